import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpName, OpOutput, OpParsedInput } from '../../../shared/contract';
import { AppError } from '../../../shared/errors';
import { CONVERSATION_IMPORT_MAX_CHARS, ConversationFileSchema, type Message } from '../../../shared/model/conversation';
import { ConversationStore } from '../timeline/conversation-store';
import { EventBus } from '../events';
import { InvokeDispatcher } from '../invoke/dispatcher';
import { InvocationLog } from '../invoke/invocation-log';
import type { Transport } from '../invoke/types';
import { ProblemLog } from '../problems';
import { ToolStore } from '../bundles/tool-store';
import { TEST_FUNCTIONS, newBundleId, routingOnDisk, testToolBody } from '../testing/chat-fixtures';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { ChatService } from './chat-service';
import { chatHandlers } from './chat-handlers';
import { UNFINISHED_AT_EXPORT } from './conversation-file';

const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const NOW = new Date('2025-03-04T05:06:07.000Z');

async function setup() {
  const dataDir = await tempDir();
  const workspace = path.join(dataDir, 'workspace');
  await fs.mkdir(workspace);
  const events = new EventBus();
  const store = new ToolStore({ dataDir, resourcesDir: RESOURCES_DIR, problems: new ProblemLog(events, () => new Date()) });
  await store.open();
  const log = InvocationLog.open(':memory:');
  const conversations = ConversationStore.open({ file: path.join(dataDir, 'conversations.sqlite'), now: () => new Date() });
  closers.push(() => store.close(), () => log.close(), () => conversations.close());
  const dispatcher = new InvokeDispatcher({
    store,
    log,
    redact: (t) => t,
    localFunctions: { get: (id) => TEST_FUNCTIONS[id] },
    localContext: () => ({ workspaceDir: workspace, now: () => new Date(), transport: {} as Transport, allowedHosts: () => [] }),
    defaultTimeoutMs: 5_000,
  });
  const bundleId = newBundleId();
  await store.putBundle(bundleId, { slug: 'tests', displayName: 'Tests', description: '', isEnabled: true });
  for (const [slug, fn] of [['echo', 'test.echo'], ['fail', 'test.fail']] as const) await store.putTool(bundleId, slug, '1', testToolBody(slug, fn));
  const routing = routingOnDisk({ dataDir, workspace, store, events });
  const chatDeps = { conversations, routing, dispatcher, registry: { store }, events, now: () => NOW };
  const handlers = chatHandlers({ ...chatDeps, chat: new ChatService(chatDeps) });
  const call = async <N extends keyof typeof handlers & OpName>(name: N, input: OpParsedInput<N>): Promise<OpOutput<N>> =>
    (await handlers[name](input as never, { transport: 'direct' })) as OpOutput<N>;
  return { call, conversations, bundleId };
}

/** A conversation with a user message, a model's answer, an inline card, a routed card and a failed card. */
async function sample(h: Awaited<ReturnType<typeof setup>>) {
  const { call, conversations, bundleId } = h;
  const c = await call('conversations.create', { title: 'Release notes' });
  conversations.addMessages(c.id, [
    { role: 'user', text: 'Summarise the **release** notes', turnId: 't1' },
    { role: 'assistant', text: 'Here is the summary: all good.', turnId: 't1', model: { providerId: 'local', model: 'tiny' } },
  ]);
  await call('chat.runTool', { conversationId: c.id, bundleId, slug: 'echo', version: '1', args: { text: 'pineapple' } });
  await call('chat.runTool', { conversationId: c.id, bundleId, slug: 'echo', version: '1', args: { text: 'kept' }, output: 'variable:notes' });
  await call('chat.runTool', { conversationId: c.id, bundleId, slug: 'fail', version: '1', args: {} });
  await call('conversations.setContext', { id: c.id, sections: [{ id: 's1', title: 'Style', text: 'Be brief.', enabled: true }] });
  return c;
}

/** A row without what changes on import (its ids, and the ids that tie rows together). */
const comparable = (m: Message) => {
  const { id: _id, conversationId: _c, turnId, tool, ...rest } = m;
  return { ...rest, hasTurn: turnId !== undefined, ...(tool ? { tool: { ...tool, invocationId: 'x' } } : {}) };
};

describe('conversations.export', () => {
  it('writes Markdown: the messages in order, each card with its arguments and its value, routed result or error', async () => {
    const h = await setup();
    const c = await sample(h);
    const out = await h.call('conversations.export', { id: c.id, format: 'markdown' });
    expect(out).toMatchObject({ fileName: 'release-notes-2025-03-04.md', mimeType: 'text/markdown' });
    const md = out.text;
    expect(md.startsWith('# Release notes\n')).toBe(true);
    expect(md).toContain('## You · ');
    expect(md).toContain('Summarise the **release** notes');
    expect(md).toContain('## Model (local/tiny) · ');
    expect(md).toContain('## Tool: Test echo (`echo` 1) · ok · run by you');
    expect(md).toContain('```json\n{\n  "text": "pineapple"\n}\n```');
    expect(md).toContain('**Result**\n\n```json\n{\n  "echo": "pineapple"\n}\n```');
    expect(md).toMatch(/\*\*Result routed\*\*\n\n```\n.*variable:notes/);
    expect(md).toMatch(/## Tool: Test fail .* · error · [\s\S]*\*\*Error\*\* \(UNAVAILABLE\): the service is down/);
    const order = ['Summarise', 'Here is the summary', 'pineapple', 'variable:notes', 'the service is down'].map((w) => md.indexOf(w));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('folds the rows of one call into its latest state, and fences text that holds backticks', async () => {
    const h = await setup();
    const c = await h.call('conversations.create', { title: 'Calls' });
    const card = { invocationId: 'i1', bundleId: 'b', slug: 'run', version: '1', displayName: 'Run', args: {}, source: 'model' as const, callId: 'c1' };
    h.conversations.addMessages(c.id, [
      { role: 'tool', text: '', tool: { ...card, status: 'running' } },
      { role: 'tool', text: '', tool: { ...card, status: 'ok', value: 'a ``` b' } },
    ]);
    const { text } = await h.call('conversations.export', { id: c.id, format: 'markdown' });
    expect(text.match(/## Tool: Run/g)).toHaveLength(1);
    expect(text).toContain('· ok · called by the model');
    expect(text).toContain('````\na ``` b\n````');
  });

  it('writes JSON as a versioned conversation file that imports back as a copy with new ids', async () => {
    const h = await setup();
    const c = await sample(h);
    const out = await h.call('conversations.export', { id: c.id, format: 'json' });
    expect(out).toMatchObject({ fileName: 'release-notes-2025-03-04.json', mimeType: 'application/json' });
    const file = ConversationFileSchema.parse(JSON.parse(out.text));
    expect(file).toMatchObject({ format: 'toolsmith-conversation', version: 2, conversation: { id: c.id, title: 'Release notes', contextSections: [{ id: 's1' }] } });
    expect(file.messages).toHaveLength(5);

    const imported = await h.call('conversations.import', { text: out.text });
    expect(imported.messages).toBe(5);
    const copy = imported.conversation;
    expect(copy.id).not.toBe(c.id);
    expect(copy).toMatchObject({ title: 'Release notes', messageCount: 5 });
    const before = h.conversations.messages(c.id);
    const after = h.conversations.messages(copy.id);
    expect(after.map(comparable)).toEqual(before.map(comparable));
    expect(after.every((m, i) => m.id !== before[i]!.id && m.conversationId === copy.id)).toBe(true);
    expect(after[0]!.turnId).toBe(after[1]!.turnId);
    expect(after[0]!.turnId).not.toBe(before[0]!.turnId);
    expect(h.conversations.contextSections(copy.id)).toEqual(h.conversations.contextSections(c.id));

    // And the copy exports to the same file but for its ids and times.
    const again = ConversationFileSchema.parse(JSON.parse((await h.call('conversations.export', { id: copy.id, format: 'json' })).text));
    expect(again.messages.map((m) => comparable({ ...m, conversationId: '' }))).toEqual(file.messages.map((m) => comparable({ ...m, conversationId: '' })));
  });

  it('is NOT_FOUND for an unknown conversation', async () => {
    const h = await setup();
    await expect(h.call('conversations.export', { id: 'nope', format: 'json' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('conversations.import', () => {
  const valid = (messages: unknown[] = []) => ({ format: 'toolsmith-conversation', version: 1, conversation: { title: 'Imported' }, messages });

  it('refuses bad files with a clear reason and creates nothing', async () => {
    const h = await setup();
    const cases: [string, RegExp][] = [
      ['not json at all', /^the file is not JSON .*Export as JSON/],
      [JSON.stringify({ hello: 1 }), /not a Toolsmith conversation file/],
      [JSON.stringify({ ...valid(), version: 3 }), /version 3; this Toolsmith reads versions 1 and 2/],
      [JSON.stringify(valid([{ id: 'a', role: 'assistant', createdAt: '2026-01-01T00:00:00.000Z', text: 'hi', attachments: [{ name: 'x.txt', mimeType: 'text/plain', bytes: 2, dataBase64: 'aGk=' }] }])), /messages\[0\]\.attachments: only your own messages carry attached files/],
      [JSON.stringify(valid([{ id: 'm1', role: 'user', createdAt: 'x', text: 'hi' }, { id: 'm2', role: 'robot', createdAt: 'x', text: 'hi' }])), /not valid at messages\[1\]\.role: /],
      [JSON.stringify(valid([{ id: 'm1', role: 'tool', createdAt: 'x', text: '', tool: { invocationId: 'i' } }])), /not valid at messages\[0\]\.tool\.bundleId: /],
      [JSON.stringify({ ...valid(), conversation: { title: '  ' } }), /not valid at conversation\.title: a title is required/],
    ];
    for (const [text, reason] of cases) {
      const refused = await h.call('conversations.import', { text }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused, text).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect((refused as AppError).message).toMatch(reason);
    }
    expect(h.conversations.list()).toEqual([]);
  });

  it('refuses a file over the size limit before reading it', async () => {
    const h = await setup();
    await expect(h.call('conversations.import', { text: ' '.repeat(CONVERSATION_IMPORT_MAX_CHARS + 1) })).rejects.toThrow(/a conversation file may be at most 32 MiB/);
    expect(h.conversations.list()).toEqual([]);
  });

  it('runs nothing: a call left waiting is closed as cancelled, and a stored output that is not here is kept as written', async () => {
    const h = await setup();
    const card = { invocationId: 'i1', bundleId: 'b', slug: 'run', version: '1', displayName: 'Run', args: { x: 1 }, source: 'model' as const, callId: 'c1' };
    const { conversation } = await h.call(
      'conversations.import',
      {
        text: JSON.stringify(
          valid([
            { id: 'a', role: 'tool', createdAt: '2025-01-01T00:00:00.000Z', text: '', tool: { ...card, status: 'awaiting-approval' } },
            { id: 'b', role: 'tool', createdAt: '2025-01-01T00:00:01.000Z', text: 'see the stored output', tool: { ...card, invocationId: 'i2', status: 'ok', stored: { handle: 'out-404', bytes: 10, lines: 1, tokens: 3, tokensExact: false, reason: 'bytes', choice: 'handle' } } },
          ]),
        ),
      },
    );
    const rows = h.conversations.messages(conversation.id);
    expect(rows[0]!.tool).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED', message: UNFINISHED_AT_EXPORT } });
    expect(rows[1]).toMatchObject({ text: 'see the stored output', tool: { status: 'ok', stored: { handle: 'out-404' } } });
  });
});

describe('conversations.list with a search', () => {
  it('finds a word in a message, says which message, and not in another conversation', async () => {
    const h = await setup();
    const c = await sample(h);
    const other = await h.call('conversations.create', { title: 'Groceries' });
    h.conversations.addMessages(other.id, [{ role: 'user', text: 'apples and pears' }]);

    const found = await h.call('conversations.list', { q: 'SUMMARY' });
    expect(found.map((x) => x.id)).toEqual([c.id]);
    const assistant = h.conversations.messages(c.id)[1]!;
    expect(found[0]!.match).toEqual({ messageId: assistant.id, role: 'assistant', snippet: 'Here is the summary: all good.' });

    // A tool card's value is searched too.
    const byValue = await h.call('conversations.list', { q: 'pineapple' });
    expect(byValue.map((x) => x.id)).toEqual([c.id]);
    expect(byValue[0]!.match).toMatchObject({ role: 'tool', snippet: expect.stringContaining('pineapple') });

    // A title match needs no snippet; a word found nowhere finds nothing.
    expect(await h.call('conversations.list', { q: 'grocer' })).toEqual([expect.not.objectContaining({ match: expect.anything() })]);
    expect(await h.call('conversations.list', { q: 'kiwi' })).toEqual([]);
    expect((await h.call('conversations.list', { q: 'pears' })).map((x) => x.id)).toEqual([other.id]);
  });

  it('cuts a long message around the match', async () => {
    const h = await setup();
    const c = await h.call('conversations.create', { title: 'Long' });
    h.conversations.addMessages(c.id, [{ role: 'user', text: `${'a '.repeat(200)}needle\n\n${'b '.repeat(200)}` }]);
    const [hit] = await h.call('conversations.list', { q: 'needle' });
    expect(hit!.match!.snippet).toMatch(/^….{50,70}needle.{50,70}…$/);
  });
});

describe('a message with files in the Markdown export', () => {
  it('names each file with its type and size', async () => {
    const { conversationMarkdown } = await import('./conversation-file');
    const md = conversationMarkdown(
      { id: 'c', title: 'T', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' } as never,
      [{ id: 'm', conversationId: 'c', role: 'user', text: 'look', createdAt: '2026-01-01T00:00:00.000Z', attachments: [{ name: 'a.png', mimeType: 'image/png', bytes: 70 }, { name: 'n.md', mimeType: 'text/markdown', bytes: 3 }] }] as never,
      new Date('2026-01-02T00:00:00.000Z'),
    );
    expect(md).toContain('**Attached**: a.png (image/png, 70 bytes), n.md (text/markdown, 3 bytes)');
  });
});
