import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpName, OpOutput, OpParsedInput } from '../../../shared/contract';
import { INLINE_VALUE_MAX_CHARS } from '../../../shared/model/conversation';
import { ConversationStore, type ConversationChange } from '../timeline/conversation-store';
import { NO_MODEL_NOTICE } from '../timeline/strings';
import { EventBus } from '../events';
import { InvokeDispatcher } from '../invoke/dispatcher';
import { InvocationLog } from '../invoke/invocation-log';
import type { Transport } from '../invoke/types';
import { ProblemLog } from '../problems';
import { ToolStore } from '../bundles/tool-store';
import { TEST_FUNCTIONS, filesUnder, newBundleId, routingOnDisk, testToolBody } from '../testing/chat-fixtures';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { ChatService } from './chat-service';
import { chatHandlers } from './chat-handlers';

const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function setup() {
  const dataDir = await tempDir();
  const workspace = path.join(dataDir, 'workspace');
  await fs.mkdir(workspace);
  const events = new EventBus();
  const store = new ToolStore({ dataDir, resourcesDir: RESOURCES_DIR, problems: new ProblemLog(events, () => new Date()) });
  await store.open();
  const log = InvocationLog.open(':memory:');
  const changes: ConversationChange[] = [];
  const conversations = ConversationStore.open({ file: path.join(dataDir, 'conversations.sqlite'), now: () => new Date(), onChange: (c) => changes.push(c) });
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
  for (const [slug, fn] of [['echo', 'test.echo'], ['text', 'test.text'], ['fail', 'test.fail'], ['hang', 'test.hang']] as const) {
    await store.putTool(bundleId, slug, '1', testToolBody(slug, fn));
  }
  const routing = routingOnDisk({ dataDir, workspace, store, events });
  const chatDeps = { conversations, routing, dispatcher, registry: { store }, events, now: () => new Date() };
  const handlers = chatHandlers({ ...chatDeps, chat: new ChatService(chatDeps) });
  const call = async <N extends keyof typeof handlers & OpName>(name: N, input: OpParsedInput<N>): Promise<OpOutput<N>> =>
    (await handlers[name](input as never, { transport: 'direct' })) as OpOutput<N>;
  const conversation = await call('conversations.create', {});
  return { call, routing, conversations, dispatcher, bundleId, dataDir, workspace, changes, conversationId: conversation.id };
}

describe('chat.runTool', () => {
  it('stores an ok card with the value inline, run as the user in the conversation', async () => {
    const { call, bundleId, conversationId, conversations } = await setup();
    const invocationId = uuidv7();
    const m = await call('chat.runTool', { conversationId, bundleId, slug: 'echo', version: '1', args: { text: 'hi' }, invocationId });
    expect(m).toMatchObject({ role: 'tool', conversationId, tool: { status: 'ok', value: { echo: 'hi' }, invocationId, slug: 'echo', displayName: 'Test echo', source: 'user', args: { text: 'hi' } } });
    expect(m.tool!.durationMs).toBeGreaterThanOrEqual(0);
    expect(m.tool).not.toHaveProperty('valueTruncated');
    expect(conversations.messages(conversationId)).toEqual([m]);
  });

  it('cuts a value past the inline limit and says so', async () => {
    const { call, bundleId, conversationId } = await setup();
    const m = await call('chat.runTool', { conversationId, bundleId, slug: 'text', version: '1', args: { text: 'abcd', times: INLINE_VALUE_MAX_CHARS } });
    expect(m.tool).toMatchObject({ status: 'ok', valueTruncated: true });
    expect((m.tool!.value as string).length).toBe(INLINE_VALUE_MAX_CHARS);
  });

  it('turns a failing tool into an error card, and a cancelled one into a cancelled card', async () => {
    const { call, bundleId, conversationId, dispatcher } = await setup();
    const failed = await call('chat.runTool', { conversationId, bundleId, slug: 'fail', version: '1', args: {} });
    expect(failed.tool).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE', message: 'the service is down' } });
    expect(failed.tool).not.toHaveProperty('value');

    const invocationId = uuidv7();
    const running = call('chat.runTool', { conversationId, bundleId, slug: 'hang', version: '1', args: {}, invocationId });
    await expect.poll(() => dispatcher.runningIds()).toContain(invocationId);
    dispatcher.cancel(invocationId);
    expect((await running).tool).toMatchObject({ status: 'cancelled', invocationId, error: { code: 'CANCELLED' } });
  });

  it('routes the value to a buffer and keeps only the manifest on the card', async () => {
    const { call, bundleId, conversationId, routing, conversations } = await setup();
    const m = await call('chat.runTool', {
      conversationId,
      bundleId,
      slug: 'text',
      version: '1',
      args: { text: 'payload-', times: 3 },
      output: 'variable:results',
      writeMode: 'replace',
    });
    expect(m.tool).toMatchObject({
      status: 'ok',
      manifest: {
        kind: 'tool',
        name: 'text',
        destination: 'variable:results',
        target: { kind: 'variable', ownerId: conversationId, name: 'results' },
        writeMode: 'replace',
        totalChars: 24,
        text: '[tool routed] text -> variable:results (total 24 chars)',
      },
    });
    expect(m.tool).not.toHaveProperty('value');
    expect(m.text).toBe(m.tool!.manifest!.text);
    const stored = JSON.stringify(conversations.messages(conversationId));
    expect(stored).not.toContain('payload-payload');
    expect(await routing.buffers.list(conversationId)).toEqual([expect.objectContaining({ ownerId: conversationId, name: 'results', chars: 24, source: 'tool:text' })]);
    expect(await routing.buffers.readAll(conversationId, 'results')).toBe('payload-payload-payload-');

    // replace: a second run leaves only its own value.
    await call('chat.runTool', { conversationId, bundleId, slug: 'text', version: '1', args: { text: 'again' }, output: 'variable:results', writeMode: 'replace' });
    expect(await routing.buffers.readAll(conversationId, 'results')).toBe('again');
  });

  it('routes strings as they are and other values as JSON, and keeps the value when output is inline', async () => {
    const { call, bundleId, conversationId, routing, workspace } = await setup();
    const toFile = await call('chat.runTool', { conversationId, bundleId, slug: 'text', version: '1', args: { text: 'plain' }, output: 'file:out/a.md' });
    expect(toFile.text).toBe('[tool routed] text -> file:out/a.md (total 5 chars)');
    expect(await fs.readFile(path.join(workspace, 'out/a.md'), 'utf8')).toBe('plain');
    const inline = await call('chat.runTool', { conversationId, bundleId, slug: 'text', version: '1', args: { text: 'kept' }, output: 'inline' });
    expect(inline.tool).toMatchObject({ status: 'ok', value: 'kept' });
    await call('chat.runTool', { conversationId, bundleId, slug: 'echo', version: '1', args: { text: 'json' }, output: 'variable:j' });
    expect(await routing.buffers.readAll(conversationId, 'j')).toBe('{\n  "echo": "json"\n}');
    // The inline run wrote nothing: one buffer, one file.
    expect((await routing.buffers.list(conversationId)).map((b) => b.name)).toEqual(['j']);
    expect(await filesUnder(workspace)).toEqual(['out/a.md']);
  });

  it('keeps the value on an error card when the destination refuses the write', async () => {
    const { call, bundleId, conversationId, dataDir, workspace } = await setup();
    // A folder of the workspace that is a link to a folder outside it: the router refuses to write through it.
    const outside = path.join(dataDir, 'outside');
    await fs.mkdir(outside);
    await fs.symlink(outside, path.join(workspace, 'forbidden'));
    const m = await call('chat.runTool', { conversationId, bundleId, slug: 'text', version: '1', args: { text: 'still here' }, output: 'file:forbidden/x.md' });
    expect(m.tool).toMatchObject({ status: 'error', value: 'still here', error: { code: 'FORBIDDEN', message: expect.stringContaining('file:forbidden/x.md') } });
    expect(m.text).toBe(m.tool!.error!.message);
    expect(await filesUnder(outside)).toEqual([]);
  });

  it('refuses a bad destination before running anything', async () => {
    const { call, bundleId, conversationId, dispatcher, conversations } = await setup();
    let ran = 0;
    const invoke = dispatcher.invoke.bind(dispatcher);
    dispatcher.invoke = (req) => (ran++, invoke(req));
    for (const output of ['variable:', 'file:../escape.md', 'nowhere', 'variable:bad name', 'file:out/{nosuchplaceholder}.md']) {
      await expect(call('chat.runTool', { conversationId, bundleId, slug: 'echo', version: '1', args: { text: 'x' }, output })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { field: 'output' },
      });
    }
    expect(ran).toBe(0);
    expect(conversations.messages(conversationId)).toEqual([]);
  });

  it('answers NOT_FOUND for an unknown conversation or tool, storing nothing', async () => {
    const { call, bundleId, conversationId, conversations } = await setup();
    await expect(call('chat.runTool', { conversationId: 'nope', bundleId, slug: 'echo', version: '1', args: {} })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(call('chat.runTool', { conversationId, bundleId, slug: 'echo', version: '9', args: {} })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(conversations.messages(conversationId)).toEqual([]);
  });
});

describe('chat.send', () => {
  it('refuses a message with directive errors, storing and running nothing', async () => {
    const { call, conversationId, conversations, routing, workspace } = await setup();
    await fs.writeFile(path.join(workspace, 'a.md'), 'alpha');
    await expect(call('chat.send', { conversationId, text: 'hello\n@input file:a.md (output=variable:)' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('line 2'),
      details: { errors: [expect.objectContaining({ line: 2, message: expect.any(String) })] },
    });
    // An unknown tool refuses the whole message: its @input is not read, nothing is routed.
    await expect(call('chat.send', { conversationId, text: '@tools nosuchtool\n@input file:a.md (output=variable:notes)\nhi' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining("unknown tool 'nosuchtool'"),
      details: { errors: [expect.objectContaining({ line: 1 })] },
    });
    expect(await routing.buffers.list(conversationId)).toEqual([]);
    expect(await filesUnder(workspace)).toEqual(['a.md']);
    expect(conversations.messages(conversationId)).toEqual([]);
  });

  it('with @model none: keeps the message and its outcomes, and adds nothing more', async () => {
    const { call, conversationId, workspace, routing, conversations } = await setup();
    await fs.writeFile(path.join(workspace, 'a.md'), 'alpha');
    const added = await call('chat.send', { conversationId, text: '@model none\n@input file:a.md (output=variable:notes)\nSummarise' });
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ role: 'user', text: '@model none\n@input file:a.md (output=variable:notes)\nSummarise' });
    expect(added[0]!.outcomes).toEqual([
      {
        directive: '@input file:a.md (output=variable:notes)',
        manifest: expect.objectContaining({ destination: 'variable:notes', text: '[input routed] 1 file -> variable:notes (total 5 chars)\npaths: a.md' }),
      },
    ]);
    // The buffer is the conversation's.
    expect(await routing.buffers.list(conversationId)).toEqual([expect.objectContaining({ name: 'notes', source: 'input:file:a.md' })]);
    expect(await routing.buffers.readAll(conversationId, 'notes')).toBe('alpha');
    expect(conversations.messages(conversationId)).toEqual(added);
    expect(conversations.get(conversationId).title).toBe('Summarise');
  });

  it('without @model none: adds the notice that no model is set up', async () => {
    const { call, conversationId, changes } = await setup();
    const added = await call('chat.send', { conversationId, text: 'just words' });
    expect(added.map((m) => [m.role, m.text])).toEqual([
      ['user', 'just words'],
      ['notice', NO_MODEL_NOTICE],
    ]);
    expect(added[0]).not.toHaveProperty('outcomes');
    expect(changes.map((c) => c.kind)).toEqual(['created', 'renamed', 'messages']);
  });

  it('keeps a failed input as an outcome with its error', async () => {
    const { call, conversationId } = await setup();
    const [user] = await call('chat.send', { conversationId, text: '@model none\n@input file:missing.md' });
    expect(user!.outcomes).toEqual([{ directive: '@input file:missing.md', error: expect.objectContaining({ code: 'NOT_FOUND' }) }]);
  });

  it('answers NOT_FOUND for an unknown conversation', async () => {
    const { call } = await setup();
    await expect(call('chat.send', { conversationId: 'nope', text: 'hi' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('conversations', () => {
  it('creates, lists, renames, gets and deletes (with its buffers)', async () => {
    const { call, conversationId, routing, dataDir, workspace } = await setup();
    const other = await call('conversations.create', { title: 'Other' });
    expect((await call('conversations.list', {})).map((c) => c.id)).toEqual([other.id, conversationId]);
    expect((await call('conversations.list', { q: 'oth' })).map((c) => c.id)).toEqual([other.id]);
    await call('conversations.rename', { id: conversationId, title: 'Renamed' });
    await call('chat.send', { conversationId, text: 'x' });
    await fs.writeFile(path.join(workspace, 'a.md'), 'alpha');
    await call('chat.send', { conversationId, text: '@model none\n@input file:a.md (output=variable:kept)' });
    await call('chat.send', { conversationId: other.id, text: '@model none\n@input file:a.md (output=variable:theirs)' });
    const got = await call('conversations.get', { id: conversationId });
    expect(got).toMatchObject({ conversation: { title: 'Renamed', messageCount: 3 }, contextSections: [] });
    expect(got.messages).toHaveLength(3);
    expect((await routing.buffers.list(conversationId)).map((b) => b.name)).toEqual(['kept']);
    expect(await call('conversations.delete', { id: conversationId })).toEqual({ deleted: true });
    // Its buffers went with it (on disk too); the other conversation's stay.
    expect(await routing.buffers.list(conversationId)).toEqual([]);
    await expect(routing.buffers.readAll(conversationId, 'kept')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await filesUnder(path.join(dataDir, 'buffers'))).filter((f) => f.includes('kept'))).toEqual([]);
    expect(await routing.buffers.readAll(other.id, 'theirs')).toBe('alpha');
    for (const op of ['conversations.get', 'conversations.delete', 'conversations.evaluateContext'] as const) {
      await expect(call(op, { id: conversationId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    await expect(call('conversations.rename', { id: conversationId, title: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(call('conversations.setContext', { id: conversationId, sections: [] })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('evaluates enabled context sections: prompt, inlined inputs, manifests, @model none and errors per section', async () => {
    const { call, conversationId, workspace, routing } = await setup();
    await fs.writeFile(path.join(workspace, 'rules.md'), 'be brief');
    await fs.writeFile(path.join(workspace, 'big.md'), 'lots of text');
    await call('conversations.setContext', {
      id: conversationId,
      sections: [
        { id: 'a', title: 'Rules', text: 'Follow these:\n@input file:rules.md', enabled: true },
        { id: 'b', title: 'Off', text: '@input file:rules.md', enabled: false },
        { id: 'c', title: 'Data', text: '@model none\n@input file:big.md (output=variable:big)\nUse the buffer.', enabled: true },
        { id: 'd', title: 'Broken', text: 'ok line\n@input file:x (write-mode=sideways)', enabled: true },
        { id: 'e', title: 'Unknown tool', text: '@tools nosuchtool', enabled: true },
      ],
    });
    const r = await call('conversations.evaluateContext', { id: conversationId });
    expect(r.map((s) => s.sectionId)).toEqual(['a', 'c', 'd', 'e']);
    expect(r[0]).toEqual({
      sectionId: 'a',
      title: 'Rules',
      text: 'Follow these:\n\n[input] file:rules.md\nbe brief',
      modelNone: false,
      outcomes: [{ directive: '@input file:rules.md', inlineText: 'be brief' }],
    });
    const manifest = '[input routed] 1 file -> variable:big (total 12 chars)\npaths: big.md';
    expect(r[1]).toMatchObject({ modelNone: true, text: `Use the buffer.\n\n${manifest}`, outcomes: [{ manifest: { destination: 'variable:big', writeMode: 'replace', text: manifest } }] });
    expect(r[2]).toMatchObject({ text: 'ok line', outcomes: [{ directive: '@input file:x (write-mode=sideways)', error: { code: 'VALIDATION_FAILED', message: expect.stringMatching(/^line 2, column \d+: /) } }] });
    expect(r[3]!.outcomes).toEqual([expect.objectContaining({ error: expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringContaining("unknown tool 'nosuchtool'") }) })]);
    // The routed input is a buffer of the conversation; evaluating again replaces it.
    expect(await routing.buffers.readAll(conversationId, 'big')).toBe('lots of text');
    await fs.writeFile(path.join(workspace, 'big.md'), 'less');
    await call('conversations.evaluateContext', { id: conversationId });
    expect(await routing.buffers.readAll(conversationId, 'big')).toBe('less');
  });
});
