/**
 * Recovering in the chat, through the whole core and the scripted model server: an answer
 * asked again (regenerate: the rows after the user message are cut and a turn runs from it),
 * a user message edited and sent again (it and what follows kept as a version, the new text sent),
 * a denial with a reason the model is given, and titles that never show raw directives.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../testing/scripted-model-server';
import { useAgentCore } from '../testing/agent-core';

const start = useAgentCore();

type Msg = { role: string; content?: unknown };
const msgs = (r: RecordedRequest) => (r.body.messages ?? []) as Msg[];
const text = (m: Msg | undefined) => (m ? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')) : '');
const userTexts = (r: RecordedRequest) => msgs(r).filter((m) => m.role === 'user').map(text);

async function until<T>(fn: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const end = Date.now() + 10_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('regenerate', () => {
  it('cuts the rows after the user message and asks the model again with the same history', async () => {
    const env = await start();
    const c = await env.call('conversations.create', {});
    await env.call('conversations.setModel', { id: c.id, model: env.model });
    env.server.script([
      { kind: 'text', text: 'Paris is in Italy.' },
      { kind: 'text', text: 'Rome.' },
      { kind: 'text', text: 'Paris is in France.' },
    ]);
    await env.send(c.id, 'Where is Paris?');
    await env.send(c.id, 'And the capital of Italy?');
    const before = await env.messages(c.id);
    expect(before.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    // Retry the first answer (named by the answer itself): what came after it goes too.
    const ended = env.turns.filter((t) => t.state !== 'running').length;
    const r = await env.call('chat.regenerate', { conversationId: c.id, messageId: before[1]!.id });
    expect(r.removed).toBe(3);
    await until(() => (env.turns.filter((t) => t.state !== 'running').length > ended ? true : undefined));
    const after = await env.messages(c.id);
    expect(after.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Where is Paris?'],
      ['assistant', 'Paris is in France.'],
    ]);
    expect(after[0]!.id).toBe(before[0]!.id);
    // The model was asked with the history up to the user message only.
    expect(userTexts(env.server.requests.at(-1)!)).toEqual(['Where is Paris?']);
  });

  it('is refused with nothing removed while a turn runs, and without a model', async () => {
    const env = await start();
    const c = await env.call('conversations.create', {});
    await env.call('conversations.setModel', { id: c.id, model: env.model });
    env.server.script([{ kind: 'text', text: 'slow answer', chunks: 20, chunkDelayMs: 50 }, { kind: 'text', text: 'next' }]);
    const [user] = await env.call('chat.send', { conversationId: c.id, text: 'hello' });
    await expect(env.call('chat.regenerate', { conversationId: c.id, messageId: user!.id })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(env.call('chat.edit', { conversationId: c.id, messageId: user!.id, text: 'hi' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await until(() => (env.turns.some((t) => t.state !== 'running') ? true : undefined));
    expect((await env.messages(c.id)).map((m) => m.text)).toEqual(['hello', 'slow answer']);

    await env.call('conversations.setModel', { id: c.id, model: null });
    await expect(env.call('chat.regenerate', { conversationId: c.id, messageId: user!.id })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('no model') });
    expect(await env.messages(c.id)).toHaveLength(2);
  });
});

describe('edit and resend', () => {
  it('keeps the old message and what followed as a version, and gives the model the version shown only', async () => {
    const env = await start();
    const c = await env.call('conversations.create', {});
    await env.call('conversations.setModel', { id: c.id, model: env.model });
    env.server.script([
      { kind: 'text', text: 'It is 5.' },
      { kind: 'text', text: 'Glad to help.' },
      { kind: 'text', text: 'It is 4.' },
      { kind: 'text', text: 'It is 6.' },
      { kind: 'text', text: 'It is 8.' },
    ]);
    const [first] = await env.send(c.id, 'What is 2+3?');
    await env.send(c.id, 'Thanks');
    const ended = env.turns.filter((t) => t.state !== 'running').length;
    const edited = await env.call('chat.edit', { conversationId: c.id, messageId: first!.id, text: 'What is 2+2?' });
    expect(edited[0]).toMatchObject({ role: 'user', text: 'What is 2+2?' });
    expect(edited.some((m) => m.text === 'It is 5.')).toBe(false);
    await until(() => (env.turns.filter((t) => t.state !== 'running').length > ended ? true : undefined));
    const got = await env.call('conversations.get', { id: c.id });
    expect(got.messages.map((m) => m.text)).toEqual(['What is 2+2?', 'It is 4.']);
    expect(got.branches).toEqual([{ messageId: got.messages[0]!.id, index: 1, count: 2 }]);
    expect(userTexts(env.server.requests.at(-1)!)).toEqual(['What is 2+2?']);

    // Back to the first version: the old exchange, whole; the model is given it alone.
    const back = await env.call('conversations.switchBranch', { id: c.id, messageId: got.messages[0]!.id, branch: 0 });
    expect(back.map((m) => m.text)).toEqual(['What is 2+3?', 'It is 5.', 'Thanks', 'Glad to help.']);
    expect(back[0]!.id).toBe(first!.id);
    expect((await env.call('conversations.get', { id: c.id })).branches).toEqual([{ messageId: first!.id, index: 0, count: 2 }]);
    await env.send(c.id, 'And 3+3?');
    expect(userTexts(env.server.requests.at(-1)!)).toEqual(['What is 2+3?', 'Thanks', 'And 3+3?']);
    expect(JSON.stringify(env.server.requests.at(-1)!.body)).not.toContain('2+2');

    // A version of the new message, edited again: a third version of the same message.
    await env.call('conversations.switchBranch', { id: c.id, messageId: first!.id, branch: 1 });
    const [second] = (await env.messages(c.id)).filter((m) => m.role === 'user');
    await env.call('chat.edit', { conversationId: c.id, messageId: second!.id, text: 'What is 4+4?' });
    await until(async () => ((await env.messages(c.id)).some((m) => m.text === 'It is 8.') ? true : undefined));
    const third = await env.call('conversations.get', { id: c.id });
    expect(third.messages.map((m) => m.text)).toEqual(['What is 4+4?', 'It is 8.']);
    expect(third.branches).toEqual([{ messageId: third.messages[0]!.id, index: 2, count: 3 }]);
    expect(userTexts(env.server.requests.at(-1)!)).toEqual(['What is 4+4?']);

    // Switching is refused while a turn runs.
    env.server.script([{ kind: 'text', text: 'slow', chunks: 20, chunkDelayMs: 50 }]);
    await env.call('chat.send', { conversationId: c.id, text: 'more' });
    await expect(env.call('conversations.switchBranch', { id: c.id, messageId: third.messages[0]!.id, branch: 0 })).rejects.toMatchObject({ code: 'CONFLICT' });
    await until(async () => ((await env.messages(c.id)).some((m) => m.text === 'slow') ? true : undefined));
  });

  it('refuses text with directive errors, and a message that is not the user’s, with nothing removed', async () => {
    const env = await start();
    const c = await env.call('conversations.create', {});
    const [m] = await env.call('chat.send', { conversationId: c.id, text: 'a note\n@model none' });
    await expect(env.call('chat.edit', { conversationId: c.id, messageId: m!.id, text: '@input nowhere:x' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(env.call('chat.edit', { conversationId: c.id, messageId: 'no-such-message', text: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await env.messages(c.id)).map((r) => r.id)).toEqual([m!.id]);
  });
});

describe('deny with a reason', () => {
  it('gives the model the reason in the call’s result and keeps it on the card', async () => {
    const env = await start();
    const c = await env.call('conversations.create', {});
    await env.call('conversations.setModel', { id: c.id, model: env.model });
    env.server.script([
      { kind: 'tools', calls: [{ name: 'writefile', arguments: { path: 'x.txt', content: 'x' } }] },
      { kind: 'text', text: 'Understood, I will not write it.' },
    ]);
    await env.call('chat.send', { conversationId: c.id, text: 'write x' });
    const waiting = await until(async () => (await env.messages(c.id)).find((m) => m.tool?.status === 'awaiting-approval'));
    const ended = env.turns.filter((t) => t.state !== 'running').length;
    await env.call('approvals.respond', { conversationId: c.id, invocationId: waiting.tool!.invocationId, decision: 'deny', reason: 'write to notes/ instead' });
    await until(() => (env.turns.filter((t) => t.state !== 'running').length > ended ? true : undefined));
    const card = (await env.messages(c.id)).filter((m) => m.role === 'tool').at(-1)!.tool!;
    expect(card).toMatchObject({ status: 'denied', denyReason: 'write to notes/ instead' });
    const toolResult = msgs(env.server.requests.at(-1)!).filter((m) => m.role === 'tool').map(text).at(-1);
    expect(toolResult).toContain('the user denied this call');
    expect(toolResult).toContain('write to notes/ instead');
  });
});

describe('titles', () => {
  it('names a conversation by what its directives do, or by the tool a palette run used, never by raw directive text', async () => {
    const env = await start();
    const a = await env.call('conversations.create', {});
    await env.call('chat.send', { conversationId: a.id, text: '@input variable:nothing-here (output=variable:copy)\n@model none' }).catch(() => undefined);
    const titleA = (await env.call('conversations.get', { id: a.id })).conversation.title;
    expect(titleA).not.toContain('@');
    expect(titleA).toContain('Input');

    const b = await env.call('conversations.create', {});
    const tools = await env.call('tools.search', { q: 'readfile', pageSize: 5 });
    const readfile = tools.items.find((h) => h.tool.slug === 'readfile')!.tool;
    await env.call('chat.runTool', { conversationId: b.id, bundleId: readfile.bundleId, slug: 'readfile', version: readfile.version, args: { path: 'notes/today.md' } });
    expect((await env.call('conversations.get', { id: b.id })).conversation.title).toBe(`${readfile.displayName}: notes/today.md`);
  });
});
