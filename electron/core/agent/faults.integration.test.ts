/**
 * Faults of a provider and of a model's calls, through the whole core and the real
 * `openai` client against the scripted server: each one leaves a clear message in the
 * chat, the timeline intact (every row before it kept), and the next message works.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../testing/scripted-model-server';
import { useAgentCore } from '../testing/agent-core';

const KEY = 'sk-fault-key-0123456789abcdef';
const startCore = useAgentCore();

/** A core with one conversation talking to the scripted model; `send` waits for the turn. */
async function start() {
  const { server, core, call, model, send, messages, turns } = await startCore({ apiKey: KEY });
  const c = await call('conversations.create', {});
  await call('conversations.setModel', { id: c.id, model });
  return {
    server,
    core,
    send: async (text: string) => {
      await send(c.id, text);
      return turns.at(-1)!;
    },
    rows: () => messages(c.id),
  };
}

const PROVIDER_FAULTS: { name: string; reply: ScriptedReply; code: string; message: RegExp }[] = [
  { name: 'a refused key (401)', reply: { kind: 'status', status: 401, body: { error: { message: `bad key ${KEY}` } } }, code: 'UNAUTHORIZED', message: /refused the key \(401\)/ },
  { name: 'a rate limit (429)', reply: { kind: 'status', status: 429, headers: { 'retry-after': '7' } }, code: 'RATE_LIMITED', message: /429|rate/i },
  { name: 'a server error (500)', reply: { kind: 'status', status: 500 }, code: 'UNAVAILABLE', message: /500/ },
  { name: 'a stream of garbage', reply: { kind: 'garbage' }, code: 'VALIDATION_FAILED', message: /not valid/ },
  { name: 'a stream cut midway', reply: { kind: 'cut', text: 'I was say' }, code: 'UNAVAILABLE', message: /./ },
  { name: 'a stream that ends early', reply: { kind: 'end-early', text: 'Half an ans' }, code: 'UNAVAILABLE', message: /ended early/ },
];

describe('provider faults in a turn', () => {
  for (const f of PROVIDER_FAULTS) {
    it(`${f.name}: a clear notice, the timeline intact, and the next message works`, async () => {
      const { server, send, rows } = await start();
      server.script([{ kind: 'text', text: 'First answer.' }]);
      await send('hello');
      const before = await rows();

      server.script([f.reply]);
      const turn = await send('and now?');
      expect(turn.state).toBe('error');
      const after = await rows();
      expect(after.slice(0, before.length)).toEqual(before);
      const notice = after.filter((m) => m.role === 'notice' && m.error).at(-1)!;
      expect(notice.error!.code).toBe(f.code);
      expect(notice.error!.message).toMatch(f.message);
      expect(JSON.stringify(after)).not.toContain(KEY);

      server.script([{ kind: 'text', text: 'Back again.' }]);
      expect((await send('still there?')).state).toBe('done');
      expect((await rows()).at(-1)).toMatchObject({ role: 'assistant', text: 'Back again.' });
    });
  }

  it('a provider that is down: a notice saying it cannot be reached', async () => {
    const { server, send, rows } = await start();
    await server.close();
    expect((await send('anyone?')).state).toBe('error');
    const notice = (await rows()).filter((m) => m.role === 'notice' && m.error).at(-1)!;
    expect(notice.error).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/cannot reach/) });
  });
});

describe("faults in a model's tool calls are told back to the model, and the turn goes on", () => {
  const cases: { name: string; call: { name: string; arguments: unknown }; told: RegExp }[] = [
    { name: 'an unknown tool', call: { name: 'no_such_tool', arguments: {} }, told: /unknown tool|no tool/i },
    { name: 'args that fail the schema', call: { name: 'calc', arguments: { expression: 42 } }, told: /expression/ },
    { name: 'malformed JSON args', call: { name: 'calc', arguments: '{"expression": "1+' }, told: /JSON/ },
  ];
  for (const k of cases) {
    it(`${k.name}`, async () => {
      const { server, send, rows } = await start();
      let toolMessage = '';
      server.script([
        { kind: 'tools', calls: [k.call] },
        (req) => {
          toolMessage = String(req.body.messages.at(-1).content);
          return { kind: 'text', text: 'Understood.' };
        },
      ]);
      expect((await send('go')).state).toBe('done');
      expect(toolMessage).toMatch(k.told);
      const all = await rows();
      expect(all.filter((m) => m.role === 'tool').at(-1)!.tool!.status).toBe('error');
      expect(all.at(-1)).toMatchObject({ role: 'assistant', text: 'Understood.' });
    });
  }

  it('a model looping on the same call is stopped with a notice', async () => {
    const { server, send, rows } = await start();
    server.fallback(() => ({ kind: 'tools', calls: [{ name: 'calc', arguments: { expression: '1+1' } }] }));
    await send('loop');
    server.fallback(undefined);
    const all = await rows();
    // The third identical call is not run: two ran, then the turn stopped.
    expect(all.filter((m) => m.role === 'tool' && m.tool!.status === 'ok')).toHaveLength(2);
    expect(all.at(-1)).toMatchObject({ role: 'notice', text: expect.stringMatching(/same arguments 3 times in a row/) });
    server.script([{ kind: 'text', text: 'Fine.' }]);
    expect((await send('stop looping')).state).toBe('done');
  });
});

describe('a turn in progress', () => {
  it('is named by conversations.get until it ends (a reloaded window shows Stop from it)', async () => {
    const { server, core, rows } = await start();
    const list = await core.call('conversations.list', {});
    const id = list.ok ? list.value[0]!.id : '';
    server.script([{ kind: 'delay', ms: 400, then: { kind: 'text', text: 'Slow answer.' } }]);
    const sent = await core.call('chat.send', { conversationId: id, text: 'take your time' });
    expect(sent.ok).toBe(true);
    const during = await core.call('conversations.get', { id });
    expect(during.ok && during.value.runningTurnId).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(async () => (await rows()).at(-1)?.text, { timeout: 5000 }).toBe('Slow answer.');
    await expect.poll(async () => {
      const after = await core.call('conversations.get', { id });
      return after.ok ? after.value.runningTurnId : 'error';
    }).toBeUndefined();
  });
});
