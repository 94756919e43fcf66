import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import type { Message } from '../../../shared/model/conversation';
import { DIRECTIVES_ONLY_NOTICE, NO_MODEL_NOTICE } from '../timeline/strings';
import { useTempDirs } from '../testing/temp-dir';
import { DENIED_TEXT } from '../timeline/render';
import { STOPPED_NOTICE, stepLimitNotice } from './strings';
import { RICH_SCHEMA, SECRET, call, harness, spans, until, type Harness } from '../testing/agent-harness';
import type { ModelMessage, ModelRequest } from './types';

const tempDir = useTempDirs();
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  spans.length = 0;
});

const MODEL = { providerId: 'p1', model: 'm1' };

async function setup(opts: { maxSteps?: number } = {}) {
  const h = await harness(await tempDir(), opts);
  open.push(h);
  const c = h.conversations.create(undefined, MODEL);
  const turns: string[] = [];
  const deltas: string[] = [];
  h.events.on('chat.turn', (e) => turns.push(e.state));
  h.events.on('chat.delta', (e) => deltas.push(e.text));
  const send = async (text: string) => {
    const added = await h.chat.send(c.id, text);
    await h.loop.settled(c.id);
    return added;
  };
  const rows = () => h.conversations.messages(c.id);
  const toolRows = () => rows().filter((m) => m.role === 'tool');
  const last = (req: ModelRequest | undefined): ModelMessage => req!.messages.at(-1)!;
  return { h, c, send, rows, toolRows, turns, deltas, last };
}

const roles = (ms: Message[]) => ms.map((m) => (m.role === 'tool' ? `tool:${m.tool!.status}` : m.role));

describe('the agent loop', () => {
  it('streams a text answer into an assistant row with its model and usage', async () => {
    const { h, send, rows, turns, deltas } = await setup();
    h.models.script = [{ text: 'Hello there', chunks: ['Hello', ' there'] }];
    const added = await send('hi');
    expect(added.map((m) => m.role)).toEqual(['user']);
    const all = rows();
    expect(roles(all)).toEqual(['user', 'assistant']);
    expect(all[1]).toMatchObject({ text: 'Hello there', model: MODEL, usage: { inputTokens: 10, outputTokens: 5 }, turnId: expect.any(String) });
    expect(deltas).toEqual(['Hello', ' there']);
    expect(turns).toEqual(['running', 'done']);
    const req = h.models.requests[0]!;
    expect(req.model).toBe('m1');
    expect(req.messages).toEqual([{ role: 'user', text: 'hi' }]);
    expect(req.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'slow', 'guarded', 'rich', 'stop_and_think', 'plan_next_steps']));
  });

  it('runs a tool call, gives the result back and ends with the answer', async () => {
    const { h, send, rows, last } = await setup();
    h.models.script = [{ toolCalls: [call('echo', { text: 'ping' }, 'c1')] }, { text: 'it said ping' }];
    await send('call echo');
    expect(roles(rows())).toEqual(['user', 'assistant', 'tool:running', 'tool:ok', 'assistant']);
    const done = rows()[3]!.tool!;
    expect(done).toMatchObject({ slug: 'echo', callId: 'c1', source: 'model', value: { echo: 'ping' }, args: { text: 'ping' } });
    expect(rows()[2]!.tool!.invocationId).toBe(done.invocationId);
    const second = h.models.requests[1]!;
    expect(second.messages.at(-2)).toEqual({ role: 'assistant', text: '', toolCalls: [{ callId: 'c1', name: 'echo', argsText: '{"text":"ping"}' }] });
    expect(last(second)).toEqual({ role: 'tool', callId: 'c1', name: 'echo', text: '{"echo":"ping"}' });
  });

  it('gives calls without an id an id no other turn has, and each turn its own results', async () => {
    const { h, send, toolRows, last } = await setup();
    h.models.script = [{ toolCalls: [call('echo', { text: 'one' }, '')] }, { text: 'a' }, { toolCalls: [call('echo', { text: 'two' }, '')] }, { text: 'b' }];
    await send('first');
    await send('second');
    const ids = [...new Set(toolRows().map((m) => m.tool!.callId))];
    expect(ids).toHaveLength(2);
    const tools = h.models.requests[3]!.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.text)).toEqual(['{"echo":"one"}', '{"echo":"two"}']);
    expect(last(h.models.requests[3])).toMatchObject({ role: 'tool', callId: ids[1] });
  });

  it('refuses a second message sent while the first one is being sent, with nothing of it written or stored', async () => {
    const { h, c, rows } = await setup();
    await fs.writeFile(path.join(h.workspace, 'n.md'), 'note');
    h.models.script = [{ text: 'answer' }];
    const first = h.chat.send(c.id, 'first\n@input file:n.md (output=variable:one)');
    const second = h.chat.send(c.id, 'second\n@input file:n.md (output=variable:two)');
    await expect(second).rejects.toMatchObject({ code: 'CONFLICT' });
    await first;
    await h.loop.settled(c.id);
    expect(roles(rows())).toEqual(['user', 'assistant']);
    expect(h.models.requests[0]!.messages.filter((m) => m.role === 'user').map((m) => m.text.split('\n')[0])).toEqual(['first']);
    expect((await h.routing.buffers.list(c.id)).map((b) => b.name)).toEqual(['one']);
  });

  it('gives the conversation back when a message is refused, or its turn could not start', async () => {
    const { h, c, send, rows } = await setup();
    await expect(h.chat.send(c.id, '@tools no_such_tool\nhi')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(h.loop.isRunning(c.id)).toBe(false);
    h.models.script = [{ text: 'fine' }];
    await send('hi');
    expect(roles(rows())).toEqual(['user', 'assistant']);
  });

  it('settledAll waits for stopped turns to end, up to a time limit', async () => {
    const { h, c, rows } = await setup();
    expect(await h.loop.settledAll(10)).toBe(true);
    h.models.script = [{ stubbornMs: 150, text: 'late' }];
    await h.chat.send(c.id, 'go');
    await until(() => h.models.requests.length === 1);
    h.loop.stopAll();
    expect(await h.loop.settledAll(20)).toBe(false);
    expect(await h.loop.settledAll(2_000)).toBe(true);
    expect(rows().at(-1)).toMatchObject({ role: 'notice', text: STOPPED_NOTICE });
  });

  it("does not pile a model client's abort listeners up on the turn (one signal per step)", async () => {
    const { h, send, rows } = await setup({ maxSteps: 14 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const signals: AbortSignal[] = [];
    // As the openai SDK does: a once-listener per request, never removed.
    const step = (i: number) => ({ toolCalls: [call('echo', { text: `n${i}` })] });
    h.models.onStep = (signal) => {
      signals.push(signal);
      signal.addEventListener('abort', () => undefined, { once: true });
    };
    h.models.script = [...Array.from({ length: 13 }, (_, i) => step(i)), { text: 'done' }];
    try {
      await send('go');
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(rows().at(-1)).toMatchObject({ role: 'assistant', text: 'done' });
    expect(new Set(signals).size).toBe(14);
    expect(warnings.filter((w) => w.includes('MaxListenersExceeded'))).toEqual([]);
  });

  it('asks no model for a message of directives only, with nothing inlined; runs them and says so', async () => {
    const { h, c, rows } = await setup();
    await fs.writeFile(path.join(h.workspace, 'n.md'), 'note');
    const added = await h.chat.send(c.id, '@input file:n.md (output=variable:n)');
    await h.loop.settled(c.id);
    expect(added.map((m) => m.role)).toEqual(['user', 'notice']);
    expect(added[1]!.text).toBe(DIRECTIVES_ONLY_NOTICE);
    expect(h.models.requests).toHaveLength(0);
    expect(await h.routing.buffers.readAll(c.id, 'n')).toBe('note');
    // Inlined content is something to ask about.
    h.models.script = [{ text: 'read it' }];
    await h.chat.send(c.id, '@input file:n.md');
    await h.loop.settled(c.id);
    expect(h.models.requests).toHaveLength(1);
    expect(roles(rows())).toEqual(['user', 'notice', 'user', 'assistant']);
  });

  it('runs the calls of one step concurrently', async () => {
    const { h, send, toolRows } = await setup();
    h.models.script = [{ toolCalls: [call('slow', { ms: 250, text: 'a' }), call('slow', { ms: 250, text: 'b' })] }, { text: 'both done' }];
    await send('go');
    expect(spans).toHaveLength(2);
    // Each call started before the other ended: they ran side by side, not one after the other.
    const [a, b] = spans as [{ start: number; end: number }, { start: number; end: number }];
    expect(a.start < b.end && b.start < a.end).toBe(true);
    expect(toolRows().filter((m) => m.tool!.status === 'ok')).toHaveLength(2);
  });

  it('waits for approval; allow-once runs the edited arguments', async () => {
    const { h, c, send, toolRows, last } = await setup();
    h.models.script = [{ toolCalls: [call('guarded', { text: 'original' }, 'g1')] }, { text: 'ok' }];
    const sent = send('please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    expect(waiting.tool).toMatchObject({ args: { text: 'original' }, callId: 'g1' });
    expect(h.loop.respond(c.id, 'not-an-id', 'allow-once')).toBe(false);
    expect(h.loop.respond(c.id, waiting.tool!.invocationId, 'allow-once', { text: 'edited' })).toBe(true);
    await sent;
    const done = toolRows().at(-1)!.tool!;
    expect(done).toMatchObject({ status: 'ok', decision: 'allow-once', args: { text: 'edited' }, value: { echo: 'edited' }, invocationId: waiting.tool!.invocationId });
    expect(last(h.models.requests[1])).toMatchObject({ role: 'tool', callId: 'g1', text: '{"echo":"edited"}' });
    expect(h.approvals.list()).toEqual([]);
  });

  it('tells the model when the user denies a call', async () => {
    const { h, c, send, toolRows, last } = await setup();
    h.models.script = [{ toolCalls: [call('guarded', { text: 'x' }, 'g1')] }, { text: 'understood' }];
    const sent = send('please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    h.loop.respond(c.id, waiting.tool!.invocationId, 'deny');
    await sent;
    expect(toolRows().at(-1)!.tool).toMatchObject({ status: 'denied', decision: 'deny' });
    expect(last(h.models.requests[1])).toEqual({ role: 'tool', callId: 'g1', name: 'guarded', text: DENIED_TEXT, isError: true });
  });

  it('remembers allow-always and allow-in-this-chat, and asks again once revoked', async () => {
    const { h, c, send, toolRows } = await setup();
    const approve = async (decision: 'allow-always' | 'allow-conversation') => {
      h.models.script = [{ toolCalls: [call('guarded', { text: decision })] }, { text: 'ok' }];
      const sent = send('again');
      const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval' && (m.tool!.args as { text: string }).text === decision));
      h.loop.respond(c.id, waiting.tool!.invocationId, decision);
      await sent;
    };
    await approve('allow-always');
    expect(h.approvals.list()).toEqual([expect.objectContaining({ toolId: h.tools.guarded!.id, toolName: 'tests/guarded', scope: 'always' })]);

    h.models.script = [{ toolCalls: [call('guarded', { text: 'free' })] }, { text: 'ok' }];
    await send('no question now');
    expect(toolRows().filter((m) => (m.tool!.args as { text: string }).text === 'free').map((m) => m.tool!.status)).toEqual(['running', 'ok']);

    expect(await h.approvals.revoke(h.tools.guarded!.id, 'always')).toBe(true);
    await approve('allow-conversation');
    expect(h.approvals.allows(h.tools.guarded!.id, c.id)).toBe(true);
    expect(h.approvals.allows(h.tools.guarded!.id, 'another')).toBe(false);
  });

  it('answers an unknown tool, arguments failing the schema and malformed JSON with errors, and goes on', async () => {
    const { h, send, toolRows } = await setup();
    h.models.script = [
      { toolCalls: [call('nope', { a: 1 }, 'u1'), call('echo', { text: 123 }, 'v1'), call('echo', '{"text": "x"', 'j1')] },
      { text: 'sorry' },
    ];
    await send('try');
    const errors = toolRows().map((m) => [m.tool!.callId, m.tool!.status, m.tool!.error?.code]);
    expect(errors).toEqual(expect.arrayContaining([['u1', 'error', 'NOT_FOUND'], ['v1', 'error', 'VALIDATION_FAILED'], ['j1', 'error', 'VALIDATION_FAILED']]));
    const results = h.models.requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(3);
    expect(results.every((m) => m.role === 'tool' && m.isError)).toBe(true);
    const text = (id: string) => (results.find((m) => m.role === 'tool' && m.callId === id) as { text: string }).text;
    expect(text('u1')).toMatch(/no tool named 'nope'.*echo/);
    expect(text('v1')).toMatch(/text/);
    expect(text('j1')).toMatch(/not valid JSON/);
  });

  it('stops a model that repeats the same call three times', async () => {
    const { h, send, rows, turns } = await setup();
    const same = () => ({ toolCalls: [call('echo', { text: 'again' })] });
    h.models.script = [same(), same(), same(), { text: 'never asked' }];
    await send('loop');
    expect(h.models.script).toHaveLength(1);
    const tools = rows().filter((m) => m.role === 'tool');
    expect(tools.filter((m) => m.tool!.status === 'ok')).toHaveLength(2);
    expect(tools.at(-1)!.tool).toMatchObject({ status: 'error', error: { code: 'CONFLICT' } });
    expect(rows().at(-1)).toMatchObject({ role: 'notice', error: { code: 'CONFLICT' } });
    expect(rows().at(-1)!.text).toMatch(/echo with the same arguments 3 times/);
    expect(turns.at(-1)).toBe('error');
  });

  it('stops at the step limit with a notice', async () => {
    const { h, send, rows } = await setup({ maxSteps: 2 });
    h.models.script = [{ toolCalls: [call('echo', { text: 'a' })] }, { toolCalls: [call('echo', { text: 'b' })] }, { text: 'late' }];
    await send('go');
    expect(rows().at(-1)).toMatchObject({ role: 'notice', text: stepLimitNotice(2) });
    expect(h.models.script).toHaveLength(1);
  });

  it('keeps the timeline when the provider fails mid-turn, and the next message works', async () => {
    const { h, send, rows, turns } = await setup();
    h.models.script = [{ toolCalls: [call('echo', { text: 'a' }, 'e1')] }, { error: new AppError('UNAVAILABLE', 'the server answered 500') }];
    await send('first');
    expect(roles(rows())).toEqual(['user', 'assistant', 'tool:running', 'tool:ok', 'notice']);
    expect(rows().at(-1)).toMatchObject({ error: { code: 'UNAVAILABLE', message: 'the server answered 500' } });
    expect(rows().at(-1)!.text).toContain('the server answered 500');
    expect(turns).toEqual(['running', 'error']);

    h.models.script = [{ text: 'back again' }];
    await send('second');
    expect(rows().at(-1)).toMatchObject({ role: 'assistant', text: 'back again' });
    const msgs = h.models.requests.at(-1)!.messages;
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(JSON.stringify(msgs)).not.toContain('500');
  });

  it('stop cancels a running tool: the call ends cancelled and the turn stopped', async () => {
    const { h, c, send, toolRows, rows, turns } = await setup();
    h.models.script = [{ toolCalls: [call('slow', { ms: 10_000 })] }, { text: 'never' }];
    const sent = send('slow please');
    await until(() => toolRows().find((m) => m.tool!.status === 'running'));
    expect(h.loop.stop(c.id)).toBe(true);
    await sent;
    // The tool's own signal fired, and its 10 s of work never finished.
    expect(spans).toEqual([expect.objectContaining({ aborted: true, end: 0 })]);
    expect(toolRows().at(-1)!.tool).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } });
    expect(rows().at(-1)).toMatchObject({ role: 'notice', text: STOPPED_NOTICE });
    expect(turns.at(-1)).toBe('stopped');
    expect(h.models.script).toHaveLength(1);
    expect(h.loop.stop(c.id)).toBe(false);
  });

  it('stop cancels the stream and keeps what arrived; a waiting approval ends cancelled', async () => {
    const { h, c, send, rows, toolRows, turns } = await setup();
    h.models.script = [{ text: 'one two three', chunks: ['one', ' two', ' three'], delayMs: 300 }];
    const sent = send('talk');
    await until(() => h.models.requests.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    h.loop.stop(c.id);
    await sent;
    expect(rows().find((m) => m.role === 'assistant')).toMatchObject({ text: 'one' });
    expect(turns.at(-1)).toBe('stopped');

    h.models.script = [{ toolCalls: [call('guarded', { text: 'x' })] }];
    const again = send('ask');
    await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    h.loop.stop(c.id);
    await again;
    expect(toolRows().at(-1)!.tool!.status).toBe('cancelled');
  });

  it('routes a call as @tools output= says, and as the model says when Settings allow it', async () => {
    const { h, c, send, toolRows, last } = await setup();
    h.models.script = [{ toolCalls: [call('echo', { text: 'to buffer' }, 'r1')] }, { text: 'stored' }];
    await send('@tools echo(output=variable:res)\nstore it');
    const routed = toolRows().at(-1)!.tool!;
    expect(routed.manifest).toMatchObject({ destination: 'variable:res' });
    expect(routed).not.toHaveProperty('value');
    expect(last(h.models.requests[1])).toMatchObject({ role: 'tool', text: expect.stringMatching(/^\[tool routed\] echo -> variable:res/) });
    expect(h.models.requests[0]!.tools.find((t) => t.name === 'echo')!.parameters).toEqual(h.tools.echo!.argSchema);

    h.settings.modelRouting = ['echo'];
    h.models.script = [{ toolCalls: [call('echo', { text: 'mine', output: 'variable:chosen', write_mode: 'replace' }, 'r2')] }, { text: 'ok' }];
    await send('your choice');
    const spec = h.models.requests[2]!.tools.find((t) => t.name === 'echo')!.parameters as { properties: Record<string, unknown> };
    expect(Object.keys(spec.properties)).toEqual(['text', 'output', 'write_mode']);
    expect(toolRows().at(-1)!.tool).toMatchObject({ status: 'ok', args: { text: 'mine' }, manifest: { destination: 'variable:chosen', writeMode: 'replace' } });
    expect(await h.chat['deps'].routing.buffers.readAll(c.id, 'chosen')).toBe('{\n  "echo": "mine"\n}');
  });

  it('gives the model the whole JSON Schema and never a secret value', async () => {
    const { h, send } = await setup();
    h.models.script = [{ toolCalls: [call('leak', {}, 'l1')] }, { text: 'ok' }];
    await send('what is the key?');
    expect(h.models.requests[0]!.tools.find((t) => t.name === 'rich')).toEqual({ name: 'rich', description: 'the rich tool', parameters: RICH_SCHEMA });
    const seen = JSON.stringify(h.models.requests);
    expect(seen).not.toContain(SECRET);
    expect(seen).toContain('[redacted]');
  });

  it('logs a non-function call and answers it at once', async () => {
    const { h, send, toolRows, last } = await setup();
    h.models.script = [{ toolCalls: [call('plan_next_steps', { steps: ['look', 'answer'] }, 'p1')] }, { text: 'done' }];
    await send('plan');
    expect(toolRows().map((m) => m.tool!.status)).toEqual(['ok']);
    expect(toolRows()[0]!.tool).toMatchObject({ bundleId: 'model', slug: 'plan_next_steps', args: { steps: ['look', 'answer'] } });
    expect(last(h.models.requests[1])).toMatchObject({ role: 'tool', callId: 'p1', text: 'ok' });
  });

  it('@model none and a conversation without a model start no turn; a second send while one runs is refused', async () => {
    const { h, c, send } = await setup();
    expect((await send('@model none\njust directives')).map((m) => m.role)).toEqual(['user']);
    const bare = h.conversations.create();
    const added = await h.chat.send(bare.id, 'hello?');
    expect(added.map((m) => m.text)).toEqual(['hello?', NO_MODEL_NOTICE]);
    expect(h.models.requests).toHaveLength(0);

    h.models.script = [{ hang: true }];
    await h.chat.send(c.id, 'slow one');
    await expect(h.chat.send(c.id, 'impatient')).rejects.toMatchObject({ code: 'CONFLICT' });
    h.loop.stop(c.id);
    await h.loop.settled(c.id);
  });

  it('@model NAME picks a model of the same provider; an unknown provider is a notice', async () => {
    const { h, c, send, rows } = await setup();
    h.models.script = [{ text: 'hi' }];
    await send('@model m2\nhello');
    expect(h.models.requests[0]!.model).toBe('m2');
    h.conversations.setModel(c.id, { providerId: 'gone', model: 'x' });
    await send('anyone?');
    expect(rows().at(-1)).toMatchObject({ role: 'notice', error: { code: 'NOT_FOUND' } });
  });
});
