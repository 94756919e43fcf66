/**
 * A client of an OpenAI-compatible embeddings endpoint: POST {base URL}/embeddings with
 * `{ model, input: [texts] }` (OpenAI, LM Studio, Ollama's /v1, llama.cpp, vLLM). Texts go in
 * batches; every request has a time limit, a bounded answer and a checked shape; a failure is
 * one sentence a user can act on. The key is read for each request from the caller (the
 * secret store) and is never put in an error or a log: messages pass through `redact` too.
 */
import { AppError } from '../../../../shared/errors';

/** Where to send texts: a saved provider's base URL (…/v1) and its key, read when needed. */
export interface EmbeddingsConnection {
  baseUrl: string;
  key: () => string | undefined;
  /** Applied to every message that could echo what the server said. */
  redact?: (text: string) => string;
  /** For tests. */
  fetch?: typeof fetch;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  /** Per request; default REQUEST_TIME_LIMIT_MS. */
  timeoutMs?: number;
}

/** Texts one request carries. */
export const BATCH_SIZE = 64;
/** Characters of one text sent (a tool's text is cut here: endpoints refuse long inputs). */
export const MAX_TEXT_CHARS = 4_000;
/** Bytes of one answer read; a larger one is refused. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Dimensions a vector may have. */
export const MAX_DIMENSIONS = 16_384;
export const REQUEST_TIME_LIMIT_MS = 30_000;

export class EmbeddingsClient {
  constructor(
    private readonly conn: EmbeddingsConnection,
    readonly model: string,
  ) {}

  get url(): string {
    return `${this.conn.baseUrl.replace(/\/+$/, '')}/embeddings`;
  }

  /** One vector per text, in order, all of the same dimensions. */
  async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH_SIZE) {
      const batch = await this.request(texts.slice(i, i + BATCH_SIZE), opts);
      if (out.length && batch.length && batch[0]!.length !== out[0]!.length) throw this.fail(`the endpoint answered vectors of ${batch[0]!.length} and ${out[0]!.length} dimensions`);
      out.push(...batch);
    }
    return out;
  }

  private async request(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    const timeoutMs = opts.timeoutMs ?? REQUEST_TIME_LIMIT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const key = this.conn.key();
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    const host = hostOf(this.url);
    let res: Response;
    try {
      res = await (this.conn.fetch ?? fetch)(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input: texts.map((t) => t.slice(0, MAX_TEXT_CHARS)) }),
        signal,
        // A key is never sent on to another address.
        redirect: 'error',
      });
    } catch (e) {
      throw this.aborted(e, opts.signal, timeout, timeoutMs) ?? this.fail(`could not reach ${host}: ${causeOf(e)}`, 'UNAVAILABLE');
    }
    let text: string;
    try {
      text = await readBounded(res, MAX_RESPONSE_BYTES);
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw this.aborted(e, opts.signal, timeout, timeoutMs) ?? this.fail(`the answer of ${host} could not be read: ${causeOf(e)}`, 'UNAVAILABLE');
    }
    if (!res.ok) throw this.fail(statusMessage(res.status, this.model, serverMessage(text)), res.status === 401 || res.status === 403 ? 'FORBIDDEN' : 'UNAVAILABLE');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw this.fail(`${host} did not answer JSON: is ${this.url} an embeddings endpoint?`);
    }
    return readVectors(body, texts.length, (m) => this.fail(m));
  }

  private aborted(e: unknown, outer: AbortSignal | undefined, timeout: AbortSignal, ms: number): AppError | undefined {
    if (outer?.aborted) return new AppError('CANCELLED', 'the embedding was cancelled');
    if (timeout.aborted || (e as Error | undefined)?.name === 'TimeoutError') return new AppError('TIMEOUT', `${hostOf(this.url)} did not answer within ${Math.round(ms / 100) / 10} s`);
    return undefined;
  }

  private fail(message: string, code: 'UNAVAILABLE' | 'FORBIDDEN' | 'VALIDATION_FAILED' = 'UNAVAILABLE'): AppError {
    const redact = this.conn.redact ?? ((t: string) => t);
    const key = this.conn.key();
    // The server may echo what it was sent: the key never goes out in a message.
    const clean = redact(key ? message.split(key).join('[redacted]') : message);
    return new AppError(code, `embeddings: ${clean}`);
  }
}

function statusMessage(status: number, model: string, said: string): string {
  const tail = said ? `: ${said}` : '';
  if (status === 401 || status === 403) return `the key was refused (${status}): set the provider's key in Settings → Models${tail}`;
  if (status === 404) return `no embeddings here, or no model '${model}' (404): the provider must serve /embeddings and have the model${tail}`;
  if (status === 429) return `too many requests (429)${tail}`;
  return `the endpoint answered ${status}${tail}`;
}

/** The server's own error message, when it gave one (OpenAI's `{error: {message}}`, Ollama's `{error: "..."}`), short. */
function serverMessage(text: string): string {
  try {
    const b = JSON.parse(text) as { error?: unknown; message?: unknown };
    const m = typeof b.error === 'string' ? b.error : typeof (b.error as { message?: unknown } | undefined)?.message === 'string' ? (b.error as { message: string }).message : typeof b.message === 'string' ? b.message : '';
    return m.slice(0, 200);
  } catch {
    return text.trim().slice(0, 200).replace(/\s+/g, ' ');
  }
}

/** `{ data: [{ index, embedding: number[] }] }`, one per text, in any order; each the same length. */
export function readVectors(body: unknown, count: number, fail: (message: string) => Error): Float32Array[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw fail('the answer has no "data" list of embeddings');
  if (data.length !== count) throw fail(`${count} texts were sent and ${data.length} vectors came back`);
  const out: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(count);
  let dims = -1;
  data.forEach((d: unknown, i) => {
    const item = d as { index?: unknown; embedding?: unknown } | null;
    const index = typeof item?.index === 'number' ? item.index : i;
    const e = item?.embedding;
    if (!Number.isInteger(index) || index < 0 || index >= count || out[index]) throw fail('the answer\'s vectors do not match the texts sent');
    if (!Array.isArray(e) || e.length === 0 || e.length > MAX_DIMENSIONS) throw fail(`a vector is not a list of 1 to ${MAX_DIMENSIONS} numbers (base64 answers are not read)`);
    if (dims >= 0 && e.length !== dims) throw fail(`the endpoint answered vectors of ${e.length} and ${dims} dimensions`);
    dims = e.length;
    const v = new Float32Array(e.length);
    for (let j = 0; j < e.length; j++) {
      const x = e[j] as unknown;
      if (typeof x !== 'number' || !Number.isFinite(x)) throw fail('a vector holds something other than numbers');
      v[j] = x;
    }
    out[index] = v;
  });
  return out as Float32Array[];
}

/** The answer's text, refused past `max` bytes (counted as it arrives, whatever Content-Length says). */
async function readBounded(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new AppError('UNAVAILABLE', `embeddings: the answer is larger than ${max / 1024 / 1024} MB`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new AppError('UNAVAILABLE', `embeddings: the answer is larger than ${max / 1024 / 1024} MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** undici wraps the reason (ECONNREFUSED, ENOTFOUND) in `cause`. */
function causeOf(e: unknown): string {
  const c = (e as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof c?.code === 'string') return c.code;
  if (typeof c?.message === 'string') return c.message;
  return (e as Error | undefined)?.message ?? String(e);
}
