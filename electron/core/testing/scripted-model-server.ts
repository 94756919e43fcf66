/**
 * A scripted model server for tests: real HTTP on 127.0.0.1 (a free port), real SSE. It
 * speaks the OpenAI chat API (`GET /v1/models`, `POST /v1/chat/completions`, streaming and
 * not) and Anthropic's messages API (`POST /v1/messages`, streaming and not), and answers
 * each model request from a script the test sets. Nothing in the product imports it.
 *
 *   const server = await startScriptedModelServer();
 *   server.script([
 *     { kind: 'tools', calls: [{ name: 'echo', arguments: { text: 'hi' } }] },
 *     { kind: 'text', text: 'Done: hi' },
 *   ]);
 *   // point a provider at server.url (ends in /v1) ... then:
 *   server.requests[0].body.tools  // what the model was given
 *   await server.close();
 *
 * Each POST to chat/completions or messages takes the next reply from the queue (FIFO); a
 * queued function is called with the request and answers a reply ("when the last message
 * says X, call tool Y"). When the queue is empty the `fallback` answers, if set; otherwise
 * the server answers 500 "no reply scripted". `GET /v1/models` lists `models` (set it with
 * setModels) or answers the status set with failModels.
 *
 * Reply kinds (ScriptedReply):
 * - text: the text, streamed in `chunks` pieces (default 3), then finish_reason "stop" (or
 *   `finishReason`), the usage figures and [DONE].
 * - tools: one or more tool calls (name + arguments, an object or raw JSON text, which may
 *   be malformed on purpose), optionally after some text; finish_reason "tool_calls". The
 *   arguments are streamed in two pieces, as real servers do.
 * - status: an HTTP error (401, 429, 500, ...) with a JSON body (default: an OpenAI-style
 *   `{error:{message}}`) and optional headers such as retry-after.
 * - garbage: a 200 event stream whose data lines are not JSON.
 * - raw: any body as is (default 200, text/html), e.g. a web page where the API should be.
 * - cut: streams `text` (if any), then destroys the socket mid-response.
 * - end-early: streams `text`, then ends the response cleanly with no finish_reason and no
 *   [DONE].
 * - delay: waits `ms` before answering with `then` (default: a short text); if the client
 *   goes away meanwhile (cancellation), nothing is sent. `request.aborted` records that.
 * - hold: waits until the test settles `until` (or the client goes away), then answers with
 *   `then` (default: a short text): a request kept open for as long as a test needs.
 * Every reply may set `chunkDelayMs`: a pause between streamed chunks.
 *
 * Every request is recorded (method, path, headers, the Authorization header, the key it
 * carried as Bearer or x-api-key, the parsed JSON body).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedUsage = { input: number; output: number };

export interface ScriptedToolCall {
  name: string;
  /** An object (sent as JSON) or raw text (sent as is, possibly malformed). */
  arguments: unknown;
  /** Default: call_<n>. */
  id?: string;
}

export type ScriptedReply = (
  | { kind: 'text'; text: string; chunks?: number; usage?: ScriptedUsage; finishReason?: 'stop' | 'length' }
  | { kind: 'tools'; calls: ScriptedToolCall[]; text?: string; usage?: ScriptedUsage }
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'garbage'; lines?: string[] }
  | { kind: 'raw'; body: string; status?: number; contentType?: string }
  | { kind: 'cut'; text?: string }
  | { kind: 'end-early'; text?: string }
  | { kind: 'delay'; ms: number; then?: ScriptedReply }
  | { kind: 'hold'; until: Promise<unknown>; then?: ScriptedReply }
) & { chunkDelayMs?: number };

export type ScriptedEntry = ScriptedReply | ((req: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  method: string;
  /** e.g. /v1/chat/completions */
  path: string;
  api: 'openai' | 'anthropic' | 'models' | 'other';
  headers: http.IncomingHttpHeaders;
  /** The Authorization header as sent, if any. */
  authorization: string | undefined;
  /** The key the request carried: the Bearer token, or Anthropic's x-api-key. */
  apiKey: string | undefined;
  /** The parsed JSON body (undefined for GET or a body that is not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** Set when the client went away before the reply was complete (cancellation). */
  aborted: boolean;
}

export interface ScriptedModelServer {
  /** The base URL, ending in /v1: http://127.0.0.1:<port>/v1 */
  url: string;
  port: number;
  /** Appends replies to the queue. */
  script(replies: ScriptedEntry[]): void;
  /** Answers when the queue is empty (undefined: a 500 "no reply scripted"). */
  fallback(fn: ((req: RecordedRequest) => ScriptedReply) | undefined): void;
  /** What GET /v1/models lists. Default: ['scripted-model']. */
  setModels(ids: string[]): void;
  /** GET /v1/models answers this status instead (undefined: list the models again). */
  failModels(reply: { status: number; body?: unknown; headers?: Record<string, string> } | undefined): void;
  /** Replies still queued. */
  pending(): number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startScriptedModelServer(): Promise<ScriptedModelServer> {
  const queue: ScriptedEntry[] = [];
  let fallback: ((req: RecordedRequest) => ScriptedReply) | undefined;
  let models = ['scripted-model'];
  let modelsFailure: { status: number; body?: unknown; headers?: Record<string, string> } | undefined;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let callCounter = 0;

  const server = http.createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const api: RecordedRequest['api'] =
      path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : path === '/v1/models' ? 'models' : 'other';
    const authorization = req.headers.authorization;
    const xKey = req.headers['x-api-key'];
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      api,
      headers: req.headers,
      authorization,
      apiKey: authorization?.startsWith('Bearer ') ? authorization.slice(7) : typeof xKey === 'string' ? xKey : undefined,
      body,
      aborted: false,
    };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });

    if (api === 'models' && req.method === 'GET') {
      if (modelsFailure) return sendStatus(res, modelsFailure, 'openai');
      return sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted', type: 'model', display_name: id, created_at: '2025-01-01T00:00:00Z' })), has_more: false, first_id: models[0] ?? null, last_id: models.at(-1) ?? null });
    }
    if ((api !== 'openai' && api !== 'anthropic') || req.method !== 'POST') {
      return sendJson(res, 404, { error: { message: `scripted model server: no route ${req.method} ${path}` } });
    }
    const entry = queue.shift();
    const reply = entry ? (typeof entry === 'function' ? entry(record) : entry) : fallback?.(record);
    if (!reply) return sendStatus(res, { status: 500, body: { error: { message: 'scripted model server: no reply scripted for this request' } } }, api);
    const stream = (body as { stream?: unknown } | undefined)?.stream === true;
    await answer(res, reply, api, stream, (body as { model?: string } | undefined)?.model ?? 'scripted-model');
  }

  async function answer(res: http.ServerResponse, reply: ScriptedReply, api: 'openai' | 'anthropic', stream: boolean, model: string): Promise<void> {
    const pause = reply.chunkDelayMs ?? 0;
    switch (reply.kind) {
      case 'delay': {
        const gone = await waitOrClose(res, reply.ms);
        if (gone) return;
        return answer(res, reply.then ?? { kind: 'text', text: 'after the delay' }, api, stream, model);
      }
      case 'hold': {
        const gone = await holdOrClose(res, reply.until);
        if (gone) return;
        return answer(res, reply.then ?? { kind: 'text', text: 'after the hold' }, api, stream, model);
      }
      case 'status':
        return sendStatus(res, reply, api);
      case 'raw':
        res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/html' });
        res.end(reply.body);
        return;
      case 'garbage': {
        startSse(res);
        // Anthropic's stream names each event; a nameless one would be skipped, not parsed.
        const event = api === 'anthropic' ? 'event: content_block_delta\n' : '';
        for (const line of reply.lines ?? ['this is not JSON', '{"half": ']) res.write(`${event}data: ${line}\n\n`);
        res.end();
        return;
      }
      default:
        break;
    }
    const calls = reply.kind === 'tools' ? reply.calls.map((c) => ({ id: c.id ?? `call_${++callCounter}`, name: c.name, args: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) })) : [];
    const text = reply.kind === 'tools' ? (reply.text ?? '') : (reply.text ?? '');
    const usage = reply.kind === 'text' || reply.kind === 'tools' ? (reply.usage ?? { input: 10, output: 5 }) : undefined;
    const finish = reply.kind === 'tools' ? 'tool_calls' : reply.kind === 'text' ? (reply.finishReason ?? 'stop') : undefined;
    const pieces = splitText(text, reply.kind === 'text' ? (reply.chunks ?? 3) : 2);

    if (!stream) {
      if (reply.kind === 'cut' || reply.kind === 'end-early') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":"cut",');
        res.destroy();
        return;
      }
      return sendJson(res, 200, api === 'openai' ? openaiCompletion(model, text, calls, finish!, usage!) : anthropicMessage(model, text, calls, finish!, usage!));
    }

    startSse(res);
    const events = api === 'openai' ? openaiEvents(model, pieces, calls, finish, usage) : anthropicEvents(model, pieces, calls, finish, usage);
    for (const ev of events) {
      if (res.destroyed) return;
      res.write(ev);
      if (pause > 0 && (await waitOrClose(res, pause))) return;
    }
    if (reply.kind === 'cut') {
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    script: (replies) => void queue.push(...replies),
    fallback: (fn) => void (fallback = fn),
    setModels: (ids) => void (models = [...ids]),
    failModels: (r) => void (modelsFailure = r),
    pending: () => queue.length,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- wire formats ----------------------------------------------------------------------

type Call = { id: string; name: string; args: string };

function startSse(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendStatus(res: http.ServerResponse, r: { status: number; body?: unknown; headers?: Record<string, string> }, api: 'openai' | 'anthropic'): void {
  const message = `scripted error ${r.status}`;
  const body = r.body ?? (api === 'anthropic' ? { type: 'error', error: { type: 'api_error', message } } : { error: { message, type: 'scripted', code: r.status } });
  sendJson(res, r.status, body, r.headers);
}

/** Resolves true when the client went away before `ms` passed. */
function waitOrClose(res: http.ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve(true);
    const onClose = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(false);
    }, ms);
    res.once('close', onClose);
  });
}

/** Settles true when the client went away first, false when `until` settled first. */
function holdOrClose(res: http.ServerResponse, until: Promise<unknown>): Promise<boolean> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve(true);
    const onClose = () => resolve(true);
    res.once('close', onClose);
    const done = () => {
      res.off('close', onClose);
      resolve(false);
    };
    until.then(done, done);
  });
}

function splitText(text: string, n: number): string[] {
  if (!text) return [];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function halves(s: string): string[] {
  if (s.length < 2) return [s];
  const mid = Math.floor(s.length / 2);
  return [s.slice(0, mid), s.slice(mid)];
}

const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

function openaiEvents(model: string, pieces: string[], calls: Call[], finish: string | undefined, usage: ScriptedUsage | undefined): string[] {
  const base = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model };
  const chunk = (delta: unknown, finish_reason: string | null = null) => sse({ ...base, choices: [{ index: 0, delta, finish_reason }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  for (const p of pieces) out.push(chunk({ content: p }));
  calls.forEach((c, index) => {
    const [first, ...rest] = halves(c.args);
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: first ?? '' } }] }));
    for (const r of rest) out.push(chunk({ tool_calls: [{ index, function: { arguments: r } }] }));
  });
  if (finish) {
    out.push(chunk({}, finish));
    if (usage) out.push(sse({ ...base, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } }));
    out.push('data: [DONE]\n\n');
  }
  return out;
}

function openaiCompletion(model: string, text: string, calls: Call[], finish: string, usage: ScriptedUsage): unknown {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        finish_reason: finish,
        message: {
          role: 'assistant',
          content: text || null,
          ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) } : {}),
        },
      },
    ],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

const anthropicStop = (finish: string) => (finish === 'tool_calls' ? 'tool_use' : finish === 'length' ? 'max_tokens' : 'end_turn');

function anthropicEvents(model: string, pieces: string[], calls: Call[], finish: string | undefined, usage: ScriptedUsage | undefined): string[] {
  const out = [
    sse(
      { type: 'message_start', message: { id: 'msg_scripted', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage?.input ?? 0, output_tokens: 0 } } },
      'message_start',
    ),
  ];
  let index = 0;
  if (pieces.length) {
    out.push(sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'));
    for (const p of pieces) out.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } }, 'content_block_delta'));
    out.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    index++;
  }
  for (const c of calls) {
    out.push(sse({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }, 'content_block_start'));
    for (const h of halves(c.args)) out.push(sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: h } }, 'content_block_delta'));
    out.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    index++;
  }
  if (finish) {
    out.push(sse({ type: 'message_delta', delta: { stop_reason: anthropicStop(finish), stop_sequence: null }, usage: { output_tokens: usage?.output ?? 0 } }, 'message_delta'));
    out.push(sse({ type: 'message_stop' }, 'message_stop'));
  }
  return out;
}

function anthropicMessage(model: string, text: string, calls: Call[], finish: string, usage: ScriptedUsage): unknown {
  const content: unknown[] = [];
  if (text) content.push({ type: 'text', text });
  for (const c of calls) {
    let input: unknown;
    try {
      input = JSON.parse(c.args);
    } catch {
      input = {};
    }
    content.push({ type: 'tool_use', id: c.id, name: c.name, input });
  }
  return { id: 'msg_scripted', type: 'message', role: 'assistant', model, content, stop_reason: anthropicStop(finish), stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: usage.output } };
}
