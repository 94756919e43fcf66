import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { startScriptedModelServer, type ScriptedModelServer } from '../../testing/scripted-model-server';
import type { ModelRequest } from '../types';
import { OpenAIModelClient, toOpenAIMessages } from './openai-client';

const KEY = 'sk-test-0123456789abcdef';
const redact = (t: string) => t.split(KEY).join('[redacted]');
let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

function client(key: string | null = KEY, baseUrl = server.url): OpenAIModelClient {
  return new OpenAIModelClient({ baseUrl, key: () => key ?? undefined, redact });
}

const schema = {
  type: 'object',
  properties: { unit: { type: 'string', enum: ['c', 'f'] }, days: { type: 'array', items: { type: 'object', properties: { d: { type: 'integer' } } } } },
  required: ['unit'],
};
const request: ModelRequest = {
  model: 'scripted-model',
  messages: [
    { role: 'system', text: 'be brief' },
    { role: 'user', text: 'weather?' },
  ],
  tools: [{ name: 'weather', description: 'the weather', parameters: schema }],
};

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

function neverShowsKey(e: AppError): void {
  expect(JSON.stringify({ m: e.message, d: e.details })).not.toContain(KEY);
}

describe('OpenAIModelClient', () => {
  it('streams text with usage, sending the key as Bearer and the whole tool schema', async () => {
    server.script([{ kind: 'text', text: 'It is sunny today.', chunks: 4, usage: { input: 12, output: 5 } }]);
    const chunks: string[] = [];
    const r = await client().step(request, (c) => chunks.push(c), new AbortController().signal);
    expect(r).toEqual({ text: 'It is sunny today.', toolCalls: [], usage: { inputTokens: 12, outputTokens: 5 }, stopReason: 'end' });
    expect(chunks.length).toBe(4);
    const got = server.requests[0]!;
    expect(got.authorization).toBe(`Bearer ${KEY}`);
    expect(got.body.stream).toBe(true);
    expect(got.body.stream_options).toEqual({ include_usage: true });
    expect(got.body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather?' },
    ]);
    expect(got.body.tools).toEqual([{ type: 'function', function: { name: 'weather', description: 'the weather', parameters: schema } }]);
    expect(JSON.stringify(got.body)).not.toContain(KEY);
  });

  it('sends a placeholder key when none is stored', async () => {
    server.script([{ kind: 'text', text: 'ok' }]);
    await client(null).step({ ...request, tools: [] }, () => undefined, new AbortController().signal);
    expect(server.requests[0]!.authorization).toBe('Bearer not-needed');
    expect(server.requests[0]!.body.tools).toBeUndefined();
  });

  it('gathers several tool calls of one step, their arguments streamed in pieces', async () => {
    server.script([
      {
        kind: 'tools',
        text: 'Checking.',
        calls: [
          { name: 'weather', arguments: { unit: 'c' }, id: 'call_a' },
          { name: 'weather', arguments: { unit: 'f', days: [{ d: 1 }] }, id: 'call_b' },
          { name: 'broken', arguments: '{"unit": ', id: 'call_c' },
        ],
      },
    ]);
    const r = await client().step(request, () => undefined, new AbortController().signal);
    expect(r.stopReason).toBe('tools');
    expect(r.text).toBe('Checking.');
    expect(r.toolCalls).toEqual([
      { callId: 'call_a', name: 'weather', argsText: '{"unit":"c"}' },
      { callId: 'call_b', name: 'weather', argsText: '{"unit":"f","days":[{"d":1}]}' },
      { callId: 'call_c', name: 'broken', argsText: '{"unit": ' },
    ]);
  });

  it('gives the model its tool calls and results back in the API shape', async () => {
    server.script([{ kind: 'text', text: 'done' }]);
    await client().step(
      {
        ...request,
        messages: [
          { role: 'user', text: 'go' },
          { role: 'assistant', text: '', toolCalls: [{ callId: 'c1', name: 'weather', argsText: '{"unit":"c"}' }] },
          { role: 'tool', callId: 'c1', name: 'weather', text: '21 C' },
        ],
      },
      () => undefined,
      new AbortController().signal,
    );
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"unit":"c"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '21 C' },
    ]);
  });

  it('reports "length" when the model was cut at the token limit, and sends max_tokens', async () => {
    server.script([{ kind: 'text', text: 'abc', finishReason: 'length' }]);
    const r = await client().step({ ...request, maxOutputTokens: 3 }, () => undefined, new AbortController().signal);
    expect(r.stopReason).toBe('length');
    expect(server.requests[0]!.body.max_tokens).toBe(3);
  });

  it('lists models', async () => {
    server.setModels(['llama3.2', 'qwen2.5']);
    expect(await client().listModels()).toEqual(['llama3.2', 'qwen2.5']);
    expect(server.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
  });

  describe('faults', () => {
    it('a server that is down: UNAVAILABLE, is the server running?', async () => {
      const port = server.port;
      await server.close();
      const e = await failure(client(KEY, `http://127.0.0.1:${port}/v1`).step(request, () => undefined, new AbortController().signal));
      expect(e.code).toBe('UNAVAILABLE');
      expect(e.message).toBe(`cannot reach http://127.0.0.1:${port}/v1: is the server running? (ECONNREFUSED)`);
      server = await startScriptedModelServer();
    });

    it('401 and 403: UNAUTHORIZED, and the key echoed by the provider never shows', async () => {
      server.script([
        { kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } },
        { kind: 'status', status: 403 },
      ]);
      const e = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e.code).toBe('UNAUTHORIZED');
      expect(e.message).toBe('the provider refused the key (401): check it in Settings');
      neverShowsKey(e);
      const e2 = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e2.code).toBe('UNAUTHORIZED');
      expect(e2.message).toContain('(403)');
    });

    it('429: RATE_LIMITED with the retry-after', async () => {
      server.script([{ kind: 'status', status: 429, headers: { 'retry-after': '20' } }, { kind: 'status', status: 429 }]);
      const e = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e.code).toBe('RATE_LIMITED');
      expect(e.message).toContain('retry after 20 s');
      expect(e.details).toMatchObject({ retryAfter: '20 s' });
      const e2 = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e2.message).toContain('wait a moment');
      expect(server.requests.length).toBe(2); // no retries of its own
    });

    it('500: UNAVAILABLE with the status and what the provider said, redacted', async () => {
      server.script([{ kind: 'status', status: 500, body: { error: { message: `model crashed while using ${KEY}` } } }]);
      const e = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e.code).toBe('UNAVAILABLE');
      expect(e.message).toBe('the provider failed (500): model crashed while using [redacted]; try again later');
      neverShowsKey(e);
    });

    it('400: VALIDATION_FAILED with what the provider said; 404: check the base URL', async () => {
      server.script([
        { kind: 'status', status: 400, body: { error: { message: 'this model does not support tools' } } },
        { kind: 'status', status: 404, body: { error: { message: 'model "x" not found' } } },
      ]);
      const e = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e).toMatchObject({ code: 'VALIDATION_FAILED', message: 'the provider refused the request (400): this model does not support tools' });
      const e2 = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e2.code).toBe('NOT_FOUND');
      expect(e2.message).toContain('check the base URL');
    });

    it('a stream of garbage: VALIDATION_FAILED, not valid, and nothing logged', async () => {
      server.script([{ kind: 'garbage' }]);
      const logged = [vi.spyOn(console, 'error'), vi.spyOn(console, 'warn'), vi.spyOn(console, 'log')];
      try {
        const e = await failure(client().step(request, () => undefined, new AbortController().signal));
        expect(e.code).toBe('VALIDATION_FAILED');
        expect(e.message).toContain("the provider's stream was not valid");
        for (const spy of logged) expect(spy).not.toHaveBeenCalled();
      } finally {
        for (const spy of logged) spy.mockRestore();
      }
    });

    it('a stream cut midway: UNAVAILABLE, ended early, after the text so far was shown', async () => {
      server.script([{ kind: 'cut', text: 'The answer is' }]);
      const chunks: string[] = [];
      const e = await failure(client().step(request, (c) => chunks.push(c), new AbortController().signal));
      expect(e.code).toBe('UNAVAILABLE');
      expect(e.message).toContain("the provider's stream ended early");
      expect(chunks.join('')).toBe('The answer is');
    });

    it('a stream that ends cleanly with no finish reason: UNAVAILABLE, ended early', async () => {
      server.script([{ kind: 'end-early', text: 'half' }]);
      const e = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e.code).toBe('UNAVAILABLE');
      expect(e.message).toContain('ended early (no finish reason arrived)');
    });

    it('a web page where the API should be: VALIDATION_FAILED, not valid', async () => {
      server.script([{ kind: 'raw', body: '<html><body>Welcome to nginx</body></html>' }, { kind: 'raw', body: '<html></html>', contentType: 'text/event-stream' }]);
      for (let i = 0; i < 2; i++) {
        const e = await failure(client().step(request, () => undefined, new AbortController().signal));
        expect(e.code).toBe('VALIDATION_FAILED');
        expect(e.message).toContain("the provider's stream was not valid");
      }
    });

    it('an error event inside the stream: UNAVAILABLE with its message', async () => {
      server.script([{ kind: 'garbage', lines: ['{"error":{"message":"out of memory"}}'] }]);
      const e = await failure(client().step(request, () => undefined, new AbortController().signal));
      expect(e.code).toBe('UNAVAILABLE');
      expect(e.message).toContain('out of memory');
    });

    it('cancellation before the answer: CANCELLED, and the server sees the client go', async () => {
      server.script([{ kind: 'delay', ms: 10_000 }]);
      const ctl = new AbortController();
      const p = client().step(request, () => undefined, ctl.signal);
      await expect.poll(() => server.requests.length).toBe(1);
      ctl.abort();
      const e = await failure(p);
      expect(e.code).toBe('CANCELLED');
      await expect.poll(() => server.requests[0]!.aborted).toBe(true);
    });

    it('cancellation mid-stream: CANCELLED after the first chunks', async () => {
      server.script([{ kind: 'text', text: 'one two three four five six', chunks: 6, chunkDelayMs: 200 }]);
      const ctl = new AbortController();
      const chunks: string[] = [];
      const p = client().step(request, (c) => {
        chunks.push(c);
        if (chunks.length === 2) ctl.abort();
      }, ctl.signal);
      const e = await failure(p);
      expect(e.code).toBe('CANCELLED');
      expect(chunks.length).toBe(2);
      await expect.poll(() => server.requests[0]!.aborted).toBe(true);
    });

    it('a stream that stalls after the headers: UNAVAILABLE after the idle time, the request abandoned', async () => {
      server.script([{ kind: 'text', text: 'one two three', chunks: 3, chunkDelayMs: 5_000 }]);
      const idle = new OpenAIModelClient({ baseUrl: server.url, key: () => KEY, redact, idleTimeoutMs: 300 });
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

    it('the idle time restarts on every chunk and does not count the wait for the headers', async () => {
      // Margins wide enough for a busy machine: the headers wait longer than the idle time, each
      // chunk comes well within it, and all the chunks together take longer than it.
      server.script([{ kind: 'delay', ms: 2_500, then: { kind: 'text', text: 'a b c d e f', chunks: 6, chunkDelayMs: 400 } }]);
      const idle = new OpenAIModelClient({ baseUrl: server.url, key: () => KEY, redact, idleTimeoutMs: 2_000 });
      const r = await idle.step(request, () => undefined, new AbortController().signal);
      expect(r.text).toBe('a b c d e f');
    });

    it('a model list refused with 401: UNAUTHORIZED', async () => {
      server.failModels({ status: 401 });
      const e = await failure(client().listModels());
      expect(e.code).toBe('UNAUTHORIZED');
    });
  });
});

describe('toOpenAIMessages', () => {
  it('keeps assistant text beside tool calls', () => {
    expect(toOpenAIMessages([{ role: 'assistant', text: 'let me see', toolCalls: [{ callId: 'x', name: 't', argsText: '{}' }] }])).toEqual([
      { role: 'assistant', content: 'let me see', tool_calls: [{ id: 'x', type: 'function', function: { name: 't', arguments: '{}' } }] },
    ]);
  });
});
