import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** The data lines of an event stream. */
async function dataLines(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6));
}

describe('scripted model server', () => {
  it('listens on 127.0.0.1 and lists its models', async () => {
    server = await startScriptedModelServer();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`);
    server.setModels(['a', 'b']);
    const res = await fetch(`${server.url}/models`, { headers: { authorization: 'Bearer k1' } });
    expect(((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['a', 'b']);
    expect(server.requests[0]).toMatchObject({ api: 'models', apiKey: 'k1', authorization: 'Bearer k1' });
  });

  it('streams scripted text as SSE chunks, then usage and [DONE], and records the request', async () => {
    server = await startScriptedModelServer();
    server.script([{ kind: 'text', text: 'Hello there', chunks: 3, usage: { input: 7, output: 2 } }]);
    const res = await post('/chat/completions', { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const lines = await dataLines(res);
    expect(lines.at(-1)).toBe('[DONE]');
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Hello there');
    expect(chunks.filter((c) => c.choices[0]?.delta?.content).length).toBe(3);
    expect(chunks.at(-1).usage).toEqual({ prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(server.pending()).toBe(0);
  });

  it('answers a non-streaming request with one completion', async () => {
    server = await startScriptedModelServer();
    server.script([{ kind: 'tools', calls: [{ name: 'echo', arguments: { x: 1 }, id: 'c1' }] }]);
    const res = await post('/chat/completions', { model: 'm', messages: [] });
    const body = (await res.json()) as { choices: { finish_reason: string; message: { tool_calls: unknown[] } }[] };
    expect(body.choices[0]!.finish_reason).toBe('tool_calls');
    expect(body.choices[0]!.message.tool_calls).toEqual([{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"x":1}' } }]);
  });

  it('answers from a function and from the fallback, and 500 when nothing is scripted', async () => {
    server = await startScriptedModelServer();
    server.script([(req) => ({ kind: 'text', text: `you said ${req.body.messages.at(-1).content}` })]);
    const first = await post('/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(((await first.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('you said x');
    const none = await post('/chat/completions', { model: 'm', messages: [] });
    expect(none.status).toBe(500);
    expect(await none.text()).toContain('no reply scripted');
    server.fallback(() => ({ kind: 'text', text: 'always' }));
    const fb = await post('/chat/completions', { model: 'm', messages: [] });
    expect(fb.status).toBe(200);
  });

  it('sends a status error with its headers', async () => {
    server = await startScriptedModelServer();
    server.script([{ kind: 'status', status: 429, headers: { 'retry-after': '7' } }]);
    const res = await post('/chat/completions', { model: 'm', stream: true, messages: [] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
  });

  it('sends garbage lines, ends early, and cuts the socket midway', async () => {
    server = await startScriptedModelServer();
    server.script([{ kind: 'garbage' }, { kind: 'end-early', text: 'abc' }, { kind: 'cut', text: 'partial text' }]);
    const garbage = await dataLines(await post('/chat/completions', { model: 'm', stream: true, messages: [] }));
    expect(() => JSON.parse(garbage[0]!)).toThrow();
    const early = await dataLines(await post('/chat/completions', { model: 'm', stream: true, messages: [] }));
    expect(early).not.toContain('[DONE]');
    expect(early.some((l) => l.includes('finish_reason":"stop'))).toBe(false);
    const cut = await post('/chat/completions', { model: 'm', stream: true, messages: [] });
    await expect(cut.text()).rejects.toThrow();
  });

  it('notices a client that goes away during a delay, and sends nothing after it', async () => {
    server = await startScriptedModelServer();
    server.script([{ kind: 'delay', ms: 5000 }]);
    const ctl = new AbortController();
    const req = fetch(`${server.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ stream: true }), signal: ctl.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    ctl.abort();
    expect(await req).toBeInstanceOf(Error);
    await expect.poll(() => server!.requests[0]?.aborted).toBe(true);
  });

  it('holds a reply until the test releases it', async () => {
    server = await startScriptedModelServer();
    let release!: () => void;
    server.script([{ kind: 'hold', until: new Promise<void>((r) => (release = r)), then: { kind: 'text', text: 'released' } }]);
    let answered = false;
    const res = post('/chat/completions', { model: 'm', messages: [] }).then(async (r) => {
      answered = true;
      return (await r.json()) as { choices: { message: { content: string } }[] };
    });
    await expect.poll(() => server!.requests.length).toBe(1);
    expect(answered).toBe(false);
    release();
    expect((await res).choices[0]!.message.content).toBe('released');
  });

  it('speaks Anthropic messages streaming with tool_use blocks', async () => {
    server = await startScriptedModelServer();
    server.script([{ kind: 'tools', text: 'Let me look', calls: [{ name: 'lookup', arguments: { q: 'x' }, id: 'toolu_1' }], usage: { input: 3, output: 4 } }]);
    const res = await post('/messages', { model: 'claude', stream: true, max_tokens: 10, messages: [] }, { 'x-api-key': 'ak' });
    const events = (await dataLines(res)).map((l) => JSON.parse(l));
    expect(events[0].type).toBe('message_start');
    expect(events.filter((e) => e.delta?.type === 'input_json_delta').map((e) => e.delta.partial_json).join('')).toBe('{"q":"x"}');
    expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
    expect(events.at(-1).type).toBe('message_stop');
    expect(server.requests[0]).toMatchObject({ api: 'anthropic', apiKey: 'ak' });
  });

  it('is imported by no product code (only tests and the e2e)', async () => {
    const root = path.resolve(import.meta.dirname, '..', '..', '..');
    const offenders: string[] = [];
    for (const dir of ['electron', 'shared', 'renderer']) {
      for (const rel of await fs.readdir(path.join(root, dir), { recursive: true })) {
        if (!/\.(ts|tsx|mts)$/.test(rel) || /\.test\.tsx?$/.test(rel) || rel.split(path.sep).some((p) => p === 'testing')) continue;
        const text = await fs.readFile(path.join(root, dir, rel), 'utf8');
        if (text.includes('scripted-model-server')) offenders.push(path.join(dir, rel));
      }
    }
    expect(offenders).toEqual([]);
  });
});
