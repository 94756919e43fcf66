/**
 * Running an HTTP tool: the per-tool rate limit, the request built from templates, auth, the
 * attempt loop with back-off, the response read as JSON, text or an SSE stream, and a
 * description of the exchange for the tester, with every secret redacted.
 *
 * Bounds: each attempt gets min(timeoutMs, time left) and the transport's byte limits; all
 * attempts and waits together end within totalTimeoutMs (a timer aborts whatever is running);
 * at most 1 + maxRetries attempts (plus one re-send after an OAuth2 401).
 *
 * Errors are AppErrors whose message and details pass through redaction: no secret value,
 * in any encoding we send it, appears in them. A status outside successCodes is
 * UNAUTHORIZED (401), FORBIDDEN (403), NOT_FOUND (404), TIMEOUT (408, 504),
 * PAYLOAD_TOO_LARGE (413), VALIDATION_FAILED (400, 422), RATE_LIMITED (429) or UNAVAILABLE
 * (anything else), with `details: { status, attempts, bodyPreview, retryAfterMs?, http }`.
 */
import { AppError, isAppError, type ErrorCode } from '../../../../shared/errors';
import type { FullHttpSpec } from '../../../../shared/model/http-spec';
import type { HttpExchange } from '../../../../shared/model/invocation';
import type { AllowedHosts, Redact, SecretResolver, Transport, TransportRequest } from '../types';
import { applyAuth, defaultTokenCache, type OAuth2TokenCache } from './auth/index';
import type { RateLimiter } from './rate-limit';
import type { ResponseSpill, StoredOutputRef, StoredOutputRefInfo } from '../stored-ref';
import { assertSentBytes, buildRequest, isRetryable, Sensitive } from './request';
import { isRetryableStatus, runWithRetries, type StopReason } from './retry';
import { SseCollector, type SseEvent } from './sse';

/** Characters of response body kept in `http.bodyText` and error previews. */
export const PREVIEW_CHARS = 2048;

export interface HttpToolContext {
  transport: Transport;
  allowedHosts: AllowedHosts;
  secrets: SecretResolver;
  redact: Redact;
  signal: AbortSignal;
  rateLimiter: RateLimiter;
  toolId: string;
  /** SSE events as they arrive: `{ kind: 'sse', data: SseEvent }`. */
  onEvent?: (e: { kind: string; data: unknown }) => void;
  /** Milliseconds since the epoch (injectable for tests). */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  /** OAuth2 tokens; defaults to one cache shared by the process. */
  tokenCache?: OAuth2TokenCache;
  /** One line per attempt and retry, already redacted. */
  log?: (line: string) => void;
  /** A text or JSON body over the spill's threshold is written to the tool-output store as it arrives (never held whole). */
  spill?: ResponseSpill;
  /** Back-off tuning (defaults in retry.ts). */
  retry?: { baseDelayMs?: number; maxDelayMs?: number; retryAfterCapMs?: number };
}

export interface HttpToolExchange extends HttpExchange {
  method: string;
  /** The final URL (after redirects), secrets redacted. */
  url: string;
  status: number;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  sizeBytes: number;
  durationMs: number;
  bodyText?: string;
  /** The redirects followed, secrets redacted (absent when none). */
  redirects?: string[];
}

export interface HttpToolOutcome {
  /** json: the parsed body (null when empty); text: the body; sse: the list of events; binary: { contentType, sizeBytes, base64 }. */
  value: unknown;
  attempts: number;
  http: HttpToolExchange;
}

interface AttemptOutcome {
  status: number;
  headers: Record<string, string>;
  finalUrl: string;
  redirects: string[];
  /** The body (sse: only its first bytes, for the preview). */
  body: Uint8Array;
  /** Set when the body went to the tool-output store: `body` is then its first bytes. */
  spilled?: Omit<StoredOutputRefInfo, 'preview'>;
  /** Bytes of body received (decompressed). */
  sizeBytes: number;
  events?: SseEvent[];
  eventsDelivered: number;
  sentHeaders: Record<string, string>;
}

export async function executeHttpTool(spec: FullHttpSpec, args: Record<string, unknown>, ctx: HttpToolContext): Promise<HttpToolOutcome> {
  const now = ctx.now ?? Date.now;
  const started = now();
  const sensitive = new Sensitive(ctx.redact);
  const log = (line: string) => ctx.log?.(sensitive.redact(line));
  const abort = new AbortController();
  let deadlineHit = false;
  const onAbort = () => abort.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) abort.abort();
  const timer = setTimeout(() => {
    deadlineHit = true;
    abort.abort();
  }, spec.totalTimeoutMs);
  timer.unref?.();

  let sends = 0;
  let lastRequest: { url: string; headers: Record<string, string> } | undefined;
  /** The exchange as shown: with a response, or (after a failure before one) the last request sent. */
  const describe = (o?: AttemptOutcome): HttpToolExchange | HttpExchange | undefined => {
    if (!o && !lastRequest) return undefined;
    const text = o && spec.responseMode !== 'binary' ? decode(o.body) : undefined;
    return {
      method: spec.method,
      url: sensitive.redact(o?.finalUrl ?? lastRequest!.url),
      ...(o ? { status: o.status } : {}),
      requestHeaders: sensitive.redactHeaders(o?.sentHeaders ?? lastRequest!.headers),
      responseHeaders: o ? sensitive.redactHeaders(o.headers) : {},
      sizeBytes: o?.sizeBytes ?? 0,
      durationMs: now() - started,
      ...(text !== undefined ? { bodyText: preview(text, sensitive) } : {}),
      ...(o?.redirects.length ? { redirects: o.redirects.map((r) => sensitive.redact(r)) } : {}),
    };
  };

  try {
    for (const s of ctx.secrets.values()) sensitive.add(s);
    const base = buildRequest(spec, args, ctx.secrets, sensitive);
    ctx.rateLimiter.take(ctx.toolId, spec.limits.maxCallsPerMinute);
    const cache = ctx.tokenCache ?? defaultTokenCache;

    const sendOnce = async (n: number, timeoutMs: number, rejected?: string): Promise<AttemptOutcome & { token?: string }> => {
      const authed = await applyAuth(spec.auth, base, { hostname: base.hostname, secrets: ctx.secrets, sensitive, now }, {
        oauth2: {
          deps: { transport: ctx.transport, allowedHosts: ctx.allowedHosts, secrets: ctx.secrets, sensitive, signal: abort.signal, now, timeoutMs },
          cache,
          ...(rejected !== undefined ? { rejected } : {}),
        },
      });
      const req = authed.req;
      assertSentBytes(req, spec.limits.maxSentBytes);
      lastRequest = { url: req.url, headers: req.headers };
      sends++;
      const t0 = now();
      const out = await transfer(spec, ctx, req, timeoutMs, abort.signal, sensitive);
      log(`attempt ${n}: ${spec.method} ${req.url} -> ${out.status} in ${now() - t0} ms, ${out.sizeBytes} bytes`);
      return { ...out, ...(authed.token !== undefined ? { token: authed.token } : {}) };
    };

    let refreshed = false;
    const result = await runWithRetries<AttemptOutcome>({
      retryable: isRetryable(spec),
      maxRetries: spec.limits.maxRetries,
      totalTimeoutMs: spec.totalTimeoutMs,
      ...ctx.retry,
      now,
      ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
      ...(ctx.random ? { random: ctx.random } : {}),
      signal: abort.signal,
      attempt: async (n, remaining) => {
        const timeoutMs = Math.max(1, Math.min(spec.timeoutMs, remaining));
        let out = await sendOnce(n, timeoutMs);
        if (out.status === 401 && spec.auth.kind === 'oauth2' && !refreshed && out.token !== undefined && out.eventsDelivered === 0) {
          // The token was refused: fetch a new one once and send again.
          refreshed = true;
          log(`attempt ${n}: 401 with an OAuth2 token; fetching a new token and sending again`);
          out = await sendOnce(n, Math.max(1, Math.min(spec.timeoutMs, started + spec.totalTimeoutMs - now())), out.token);
        }
        return out;
      },
      judge: (o) => ({
        retry: !spec.successCodes.includes(o.status) && isRetryableStatus(o.status) && o.eventsDelivered === 0,
        retryAfter: header(o.headers, 'retry-after') ?? null,
      }),
      onRetry: ({ attempt, delayMs, reason }) => log(`attempt ${attempt} failed (${reason}); next attempt in ${delayMs} ms`),
    });

    const o = result.value;
    const http = describe(o) as HttpToolExchange;
    http.durationMs = now() - started;
    if (!spec.successCodes.includes(o.status)) throw statusError(spec, o, sends, http, result.stopped, result.retryAfterMs, sensitive);
    return { value: readValue(spec, o, http, sends, sensitive), attempts: sends, http };
  } catch (e) {
    throw sanitize(e, { sensitive, deadlineHit: () => deadlineHit, cancelled: ctx.signal.aborted, spec, attempts: sends, http: describe() });
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/** One exchange through the transport: the whole body, or (sse) the stream fed to a collector. */
async function transfer(
  spec: FullHttpSpec,
  ctx: HttpToolContext,
  req: { method: string; url: string; headers: Record<string, string>; body?: Uint8Array },
  timeoutMs: number,
  signal: AbortSignal,
  sensitive: Sensitive,
): Promise<AttemptOutcome> {
  const attemptAbort = new AbortController();
  const onAbort = () => attemptAbort.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) attemptAbort.abort();
  const treq: TransportRequest = {
    method: req.method,
    url: req.url,
    headers: req.headers,
    ...(req.body ? { body: req.body } : {}),
    timeoutMs,
    maxRedirects: spec.limits.maxRedirects,
    maxResponseBytes: spec.limits.maxResponseBytes,
    signal: attemptAbort.signal,
    secrets: sensitive.carried.list(),
  };
  try {
    if (ctx.spill && (spec.responseMode === 'text' || spec.responseMode === 'json')) return await spillingAttempt(ctx.transport, treq, ctx, ctx.spill, spec, req.headers, attemptAbort);
    if (spec.responseMode !== 'sse') {
      const res = await ctx.transport.send(treq, ctx.allowedHosts);
      if (res.body.byteLength > spec.limits.maxResponseBytes) throw tooLarge(spec);
      return { status: res.status, headers: res.headers, finalUrl: res.finalUrl, redirects: res.redirects, body: res.body, sizeBytes: res.body.byteLength, eventsDelivered: 0, sentHeaders: req.headers };
    }
    const collector = new SseCollector({
      maxBufferChars: spec.limits.maxResponseBytes,
      onEvent: (e) => ctx.onEvent?.({ kind: 'sse', data: redactEvent(e, sensitive) }),
    });
    const kept: Uint8Array[] = [];
    let keptBytes = 0;
    let failure: unknown;
    let head: Awaited<ReturnType<Transport['stream']>>;
    try {
      head = await ctx.transport.stream(treq, ctx.allowedHosts, (chunk) => {
        if (failure) return;
        try {
          if (collector.sizeBytes + chunk.byteLength > spec.limits.maxResponseBytes) throw tooLarge(spec);
          if (keptBytes < PREVIEW_CHARS * 4) {
            kept.push(chunk.subarray(0, PREVIEW_CHARS * 4 - keptBytes));
            keptBytes += Math.min(chunk.byteLength, PREVIEW_CHARS * 4 - keptBytes);
          }
          collector.feed(chunk);
        } catch (e) {
          // Stop the exchange: by throwing (the transport passes it on) and by aborting.
          failure = e;
          attemptAbort.abort();
          throw e;
        }
      });
    } catch (e) {
      throw failure ?? e;
    }
    if (failure) throw failure;
    const events = collector.finish();
    return {
      status: head.status,
      headers: head.headers,
      finalUrl: head.finalUrl,
      redirects: head.redirects,
      body: Buffer.concat(kept),
      sizeBytes: collector.sizeBytes,
      events,
      eventsDelivered: collector.count,
      sentHeaders: req.headers,
    };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * One attempt whose body is held in memory up to the spill's threshold and, past it, written to
 * the tool-output store chunk by chunk (each write done before the next chunk is read).
 */
async function spillingAttempt(
  transport: Transport,
  treq: TransportRequest,
  ctx: HttpToolContext,
  spill: ResponseSpill,
  spec: FullHttpSpec,
  sentHeaders: Record<string, string>,
  attemptAbort: AbortController,
): Promise<AttemptOutcome> {
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let total = 0;
  let sink: ReturnType<ResponseSpill['open']> | undefined;
  let failure: unknown;
  let head: Awaited<ReturnType<Transport['stream']>>;
  try {
    head = await transport.stream(treq, ctx.allowedHosts, (chunk) => {
      if (failure) return;
      try {
        total += chunk.byteLength;
        if (total > spec.limits.maxResponseBytes) throw tooLarge(spec);
        if (sink) {
          sink.write(chunk);
          return;
        }
        kept.push(chunk);
        keptBytes += chunk.byteLength;
        if (keptBytes > spill.thresholdBytes) {
          sink = spill.open();
          for (const c of kept) sink.write(c);
          // Only the first bytes stay, for the preview.
          const headBytes = Buffer.concat(kept).subarray(0, PREVIEW_CHARS * 4);
          kept.length = 0;
          kept.push(headBytes);
          keptBytes = headBytes.byteLength;
        }
      } catch (e) {
        failure = e;
        attemptAbort.abort();
        throw e;
      }
    });
  } catch (e) {
    sink?.discard();
    throw failure ?? e;
  }
  if (failure) {
    sink?.discard();
    throw failure;
  }
  // Only a body the tool answers with is kept: an error status (or one to retry) is not.
  const spilled = sink && spec.successCodes.includes(head.status) ? sink.finish() : (sink?.discard(), undefined);
  return {
    status: head.status,
    headers: head.headers,
    finalUrl: head.finalUrl,
    redirects: head.redirects,
    body: kept.length === 1 ? kept[0]! : Buffer.concat(kept),
    sizeBytes: total,
    eventsDelivered: 0,
    sentHeaders,
    ...(spilled ? { spilled } : {}),
  };
}

function redactEvent(e: SseEvent, sensitive: Sensitive): SseEvent {
  return {
    data: sensitive.redact(e.data),
    ...(e.event !== undefined ? { event: sensitive.redact(e.event) } : {}),
    ...(e.id !== undefined ? { id: sensitive.redact(e.id) } : {}),
  };
}

function tooLarge(spec: FullHttpSpec): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `the response is larger than this tool's limit (limits.maxResponseBytes = ${spec.limits.maxResponseBytes} bytes)`, {
    limit: spec.limits.maxResponseBytes,
  });
}

function readValue(spec: FullHttpSpec, o: AttemptOutcome, http: HttpToolExchange, attempts: number, sensitive: Sensitive): unknown {
  if (o.spilled) return { $storedOutput: { ...o.spilled, preview: sensitive.redact(decode(o.body).slice(0, PREVIEW_CHARS)) } } satisfies StoredOutputRef;
  if (spec.responseMode === 'sse') return (o.events ?? []).map((e) => redactEvent(e, sensitive));
  // Bytes stay bytes: never decoded as text.
  if (spec.responseMode === 'binary') return { contentType: header(o.headers, 'content-type') ?? 'application/octet-stream', sizeBytes: o.body.byteLength, base64: Buffer.from(o.body).toString('base64') };
  const text = decode(o.body);
  if (spec.responseMode === 'text') return sensitive.redact(text);
  if (spec.method === 'HEAD' || text.trim() === '') return null;
  try {
    if (!sensitive.occursIn(text)) return JSON.parse(text);
    // A secret came back (an echo): redact every string and key of the parsed value.
    return JSON.parse(text, function (this: unknown, _key, value: unknown) {
      if (typeof value === 'string') return sensitive.redact(value);
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) Object.defineProperty(out, sensitive.redact(k), { value: v, enumerable: true, writable: true, configurable: true });
        return out;
      }
      return value;
    });
  } catch (e) {
    const type = header(o.headers, 'content-type') ?? 'no content type';
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `the response (${o.status}, ${type.slice(0, 100)}) is not valid JSON: ${(e as Error).message.slice(0, 200)}; if the API answers text, set responseMode to 'text'. It begins: ${http.bodyText?.slice(0, 200) ?? ''}`,
      { status: o.status, attempts, bodyPreview: http.bodyText, http },
    );
  }
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
  504: 'TIMEOUT',
};

function statusError(spec: FullHttpSpec, o: AttemptOutcome, attempts: number, http: HttpToolExchange, stopped: StopReason | undefined, retryAfterMs: number | undefined, sensitive: Sensitive): AppError {
  const code = STATUS_CODES[o.status] ?? 'UNAVAILABLE';
  const u = new URL(o.finalUrl);
  const where = sensitive.redact(`${spec.method} ${u.host}${u.pathname}`);
  let why = '';
  switch (stopped?.kind) {
    case 'retry-after-too-long':
      why = `; the server asked to retry after ${Math.ceil(stopped.retryAfterMs / 1000)} s (Retry-After), longer than this tool waits (${Math.floor(stopped.limitMs / 1000)} s): try again later`;
      break;
    case 'retries-exhausted':
      why = `; gave up after ${attempts} attempts (limits.maxRetries = ${spec.limits.maxRetries})`;
      break;
    case 'method-not-idempotent':
      why = `; not retried: ${spec.method} is not idempotent and the tool sets no idempotencyKey`;
      break;
    case 'out-of-time':
      why = `; no time left for another attempt within totalTimeoutMs (${spec.totalTimeoutMs} ms) after ${attempts} attempts`;
      break;
  }
  const bodyPreview = http.bodyText ?? '';
  const shown = bodyPreview ? `: ${bodyPreview.slice(0, 200)}` : '';
  return new AppError(code, `${where} answered ${o.status}${why}${shown}`, {
    status: o.status,
    attempts,
    bodyPreview,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    http,
  });
}

/** Every error leaves with secrets redacted, attempts and the exchange in its details, and the right code. */
function sanitize(
  e: unknown,
  o: { sensitive: Sensitive; deadlineHit: () => boolean; cancelled: boolean; spec: FullHttpSpec; attempts: number; http: HttpExchange | undefined },
): AppError {
  const extra = { attempts: o.attempts, ...(o.http ? { http: o.http } : {}) };
  const aborted = (isAppError(e) && e.code === 'CANCELLED') || (e instanceof Error && e.name === 'AbortError') || o.deadlineHit();
  if (aborted && o.deadlineHit() && !o.cancelled) {
    return new AppError('TIMEOUT', `the call took longer than its total time limit (totalTimeoutMs = ${o.spec.totalTimeoutMs} ms) after ${o.attempts} attempt(s)`, extra);
  }
  if (aborted && o.cancelled) return new AppError('CANCELLED', 'the call was cancelled', extra);
  if (isAppError(e)) {
    const details = e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? (e.details as Record<string, unknown>) : e.details === undefined ? {} : { cause: e.details };
    return new AppError(e.code, o.sensitive.redact(e.message), o.sensitive.redactDeep({ ...extra, ...details }));
  }
  const message = e instanceof Error ? e.message : String(e);
  return new AppError('INTERNAL', `the HTTP tool failed: ${o.sensitive.redact(message).slice(0, 500)}`, extra);
}

function header(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function decode(body: Uint8Array): string {
  const text = new TextDecoder('utf-8').decode(body);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A redacted preview: redaction runs on (a generous prefix of) the whole text before it is cut, so no secret is split. */
function preview(text: string, sensitive: Sensitive): string {
  const redacted = sensitive.redact(text.length > 1 << 20 ? text.slice(0, 1 << 20) : text);
  return redacted.length > PREVIEW_CHARS ? `${redacted.slice(0, PREVIEW_CHARS)}…` : redacted;
}
