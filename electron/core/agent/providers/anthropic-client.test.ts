import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { startScriptedModelServer, type ScriptedModelServer } from '../../testing/scripted-model-server';
import type { ModelRequest } from '../types';
import { AnthropicModelClient, anthropicBaseUrl, toAnthropicMessages } from './anthropic-client';

const KEY = 'sk-ant-test-0123456789';
let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const client = () => new AnthropicModelClient({ baseUrl: server.url, key: () => KEY, redact: (t) => t.split(KEY).join('[redacted]') });
const schema = { type: 'object', properties: { q: { type: 'string', enum: ['a', 'b'] } }, required: ['q'] };
const request: ModelRequest = {
  model: 'claude-test',
  messages: [
    { role: 'system', text: 'be brief' },
    { role: 'user', text: 'find it' },
  ],
  tools: [{ name: 'lookup', description: 'looks up', parameters: schema }],
};

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('AnthropicModelClient', () => {
  it('streams text and tool_use blocks with usage, the key as x-api-key, system apart, the whole schema', async () => {
    server.script([
      {
        kind: 'tools',
        text: 'Looking.',
        calls: [
          { name: 'lookup', arguments: { q: 'a' }, id: 'toolu_1' },
          { name: 'lookup', arguments: { q: 'b' }, id: 'toolu_2' },
        ],
        usage: { input: 30, output: 9 },
      },
    ]);
    const chunks: string[] = [];
    const r = await client().step(request, (c) => chunks.push(c), new AbortController().signal);
    expect(r).toEqual({
      text: 'Looking.',
      toolCalls: [
        { callId: 'toolu_1', name: 'lookup', argsText: '{"q":"a"}' },
        { callId: 'toolu_2', name: 'lookup', argsText: '{"q":"b"}' },
      ],
      usage: { inputTokens: 30, outputTokens: 9 },
      stopReason: 'tools',
    });
    expect(chunks.join('')).toBe('Looking.');
    const got = server.requests[0]!;
    expect(got.path).toBe('/v1/messages');
    // This version of the library sends the key as a Bearer token.
    expect(got.apiKey).toBe(KEY);
    expect(got.headers['anthropic-version']).toBeTruthy();
    expect(got.body).toMatchObject({ model: 'claude-test', stream: true, max_tokens: 4096, system: 'be brief', messages: [{ role: 'user', content: [{ type: 'text', text: 'find it' }] }] });
    expect(got.body.tools).toEqual([{ name: 'lookup', description: 'looks up', input_schema: schema }]);
  });

  it('refuses a tool_use block without a name', async () => {
    const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const body = [
      ev('message_start', { message: { id: 'm', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } } }),
      ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', input: {} } }),
      ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"q":"a"}' } }),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } }),
      ev('message_stop', {}),
    ].join('');
    server.script([{ kind: 'raw', body, contentType: 'text/event-stream' }]);
    const e = await failure(client().step(request, () => undefined, new AbortController().signal));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toContain('tool call #1 has no name');
  });

  it('ends a plain answer with stop reason end', async () => {
    server.script([{ kind: 'text', text: 'Hi!' }]);
    const r = await client().step({ ...request, tools: [] }, () => undefined, new AbortController().signal);
    expect(r.stopReason).toBe('end');
    expect(r.text).toBe('Hi!');
    expect(server.requests[0]!.body.tools).toBeUndefined();
  });

  it('lists models', async () => {
    server.setModels(['claude-a', 'claude-b']);
    expect(await client().listModels()).toEqual(['claude-a', 'claude-b']);
  });

  it('maps 401, 429, 500, a cut stream, garbage and cancellation', async () => {
    server.script([
      { kind: 'status', status: 401 },
      { kind: 'status', status: 429, headers: { 'retry-after': '3' } },
      { kind: 'status', status: 529 },
      { kind: 'cut', text: 'par' },
      { kind: 'garbage' },
      { kind: 'delay', ms: 10_000 },
    ]);
    const sig = () => new AbortController().signal;
    expect((await failure(client().step(request, () => undefined, sig()))).code).toBe('UNAUTHORIZED');
    const rl = await failure(client().step(request, () => undefined, sig()));
    expect(rl.code).toBe('RATE_LIMITED');
    expect(rl.message).toContain('retry after 3 s');
    const down = await failure(client().step(request, () => undefined, sig()));
    expect(down.code).toBe('UNAVAILABLE');
    expect(down.message).toContain('(529)');
    expect((await failure(client().step(request, () => undefined, sig()))).message).toContain('ended early');
    expect((await failure(client().step(request, () => undefined, sig()))).code).toBe('VALIDATION_FAILED');
    const ctl = new AbortController();
    const p = client().step(request, () => undefined, ctl.signal);
    await expect.poll(() => server.requests.length).toBe(6);
    ctl.abort();
    expect((await failure(p)).code).toBe('CANCELLED');
  });

  it('a stream that stalls after the headers: UNAVAILABLE after the idle time, the request abandoned', async () => {
    server.script([{ kind: 'text', text: 'one two three', chunks: 3, chunkDelayMs: 5_000 }]);
    const idle = new AnthropicModelClient({ baseUrl: server.url, key: () => KEY, redact: (t) => t, idleTimeoutMs: 300 });
    const chunks: string[] = [];
    const e = await failure(idle.step(request, (c) => chunks.push(c), new AbortController().signal));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toContain('the provider stopped sending for 300 ms');
    expect(e.details).toMatchObject({ reason: 'stream-idle', idleMs: 300 });
    // Given up after the first chunk, not after waiting out the stream: one request, the rest never read.
    expect(chunks.join('')).not.toContain('three');
    expect(server.requests.length).toBe(1);
    await expect.poll(() => server.requests[0]!.aborted).toBe(true);
  });
});

describe('toAnthropicMessages', () => {
  it('joins system messages, puts tool results in a user turn and merges consecutive turns', () => {
    const out = toAnthropicMessages([
      { role: 'system', text: 'one' },
      { role: 'system', text: 'two' },
      { role: 'user', text: 'go' },
      { role: 'assistant', text: 'ok', toolCalls: [{ callId: 'c1', name: 't', argsText: '{"a":1}' }, { callId: 'c2', name: 't', argsText: 'not json' }] },
      { role: 'tool', callId: 'c1', name: 't', text: 'r1' },
      { role: 'tool', callId: 'c2', name: 't', text: 'bad args', isError: true },
      { role: 'user', text: 'and then?' },
    ]);
    expect(out.system).toBe('one\n\ntwo');
    expect(out.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'ok' },
          { type: 'tool_use', id: 'c1', name: 't', input: { a: 1 } },
          { type: 'tool_use', id: 'c2', name: 't', input: { _raw: 'not json' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'r1' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'bad args', is_error: true },
          { type: 'text', text: 'and then?' },
        ],
      },
    ]);
  });

  it('takes /v1 off the base URL (the library adds it)', () => {
    expect(anthropicBaseUrl('https://api.anthropic.com/v1/')).toBe('https://api.anthropic.com');
    expect(anthropicBaseUrl('https://api.anthropic.com')).toBe('https://api.anthropic.com');
  });
});
