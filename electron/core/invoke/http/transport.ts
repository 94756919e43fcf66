/**
 * The safe transport: one HTTP exchange under the host rules (see README.md beside this file).
 *
 * - Every URL (the first and each redirect hop) must be http(s), carry no user info, and
 *   match the allowed hosts (hosts.ts). Redirects are followed here, at most `maxRedirects`
 *   (capped at 10) times; 303 (and 301/302 after a POST) become GET without a body.
 * - Addresses: each hop is resolved and checked before anything is sent (a clear error, no
 *   socket), and the socket's own lookup checks again (lookup.ts), so a DNS answer that turns
 *   private between the two is refused at connect time. IP literals are checked in the
 *   connector, as sockets do not look them up.
 * - On a redirect to another origin (scheme, host or port), Authorization, Proxy-Authorization,
 *   Cookie and any header whose name suggests a credential are dropped for good, whatever
 *   the secrets' bindings.
 * - Bytes: a request body over 64 MiB is refused; the response body is counted on the wire
 *   and after decompression (gzip, deflate, br; stacked at most twice), and the exchange stops
 *   as soon as either count passes the limit, without reading the rest.
 * - Time: `send` must finish within `timeoutMs` (all hops and the body); `stream` must get its
 *   final headers within `timeoutMs`, then never wait more than `timeoutMs` between chunks.
 * - Connections are kept alive in a pool per allowlist (and timeout): every socket was checked
 *   against those rules when it connected, so a reused one is as safe; a changed allowlist
 *   gets a fresh pool, and a pool no call has used for a minute is closed. A failed call
 *   closes its own connection only: the pool and the calls sharing it carry on.
 * - Secrets: on every hop, a secret the request carries (TransportRequest.secrets) is kept off
 *   a host it is not bound to (carried-secrets.ts).
 * - Memory: the bodies `send` holds, all calls together, stay within a shared budget
 *   (budget.ts); past it a call stops with PAYLOAD_TOO_LARGE.
 */
import tls from 'node:tls';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { AppError } from '../../../../shared/errors';
import type { AllowedHosts, Transport, TransportRequest, TransportResponse } from '../types';
import { budgetExceeded, sharedResponseBudget, ResponseBudget } from './budget';
import { guardHop } from './carried-secrets';
import { assertUrlAllowed, effectivePort, hostLabel, matchHost, parseAllowedHosts, type HostRule } from './hosts';
import { assertLiteralAllowed, createGuardedLookup, resolveAndCheck, systemLookup, type LookupFunction } from './lookup';
import { contentEncodings, countBytes, decoded, KNOWN_ENCODINGS, tooLarge } from './response-body';
import { untilAborted } from '../../lib/abort';

/** The largest request body the transport sends, whatever a tool's own limit says. */
export const MAX_REQUEST_BODY_BYTES = 64 * 1024 * 1024;
/** The most redirects followed, whatever the request asks. */
export const MAX_REDIRECTS = 10;
/** A pool with no call running is closed after this long. */
const POOL_IDLE_MS = 60_000;
/** Pools kept at most; past it, idle ones are closed (never one a call is using). */
const MAX_POOLS = 16;

export interface HttpTransportOptions {
  /** The resolver the sockets use (and the pre-check); `dns.lookup` by default. Tests inject one. */
  lookup?: LookupFunction;
  /** Sent when the request has no User-Agent. */
  userAgent?: string;
  /** Certificate authorities to trust besides Node's own roots (a company root; tests). */
  extraCa?: string | readonly string[];
  /** The bytes of response bodies `send` may hold, all calls together; the process-wide budget by default. */
  responseBudget?: ResponseBudget;
}

type Headers = Record<string, string>;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Set by the transport or meaningless to forward; dropped from what a caller passes. */
const DROPPED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);
/** Dropped when a redirect leaves the origin. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$|auth|token|secret|api[-_]?key|session|signature|password|credential/i;
/** Dropped when a redirect turns the request into a GET without a body. */
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location', 'content-md5', 'digest'];

interface Pool {
  agent: Agent;
  /** Calls using it now: it is never closed under them. */
  active: number;
  idle?: NodeJS.Timeout;
}

export class HttpTransport implements Transport {
  private readonly pools = new Map<string, Pool>();
  private readonly lookup: LookupFunction;
  private readonly userAgent: string;
  private readonly secureContext: tls.SecureContext | undefined;
  private readonly budget: ResponseBudget;

  constructor(options: HttpTransportOptions = {}) {
    this.lookup = options.lookup ?? systemLookup;
    this.userAgent = options.userAgent ?? 'Toolsmith';
    const extra = typeof options.extraCa === 'string' ? [options.extraCa] : [...(options.extraCa ?? [])];
    this.secureContext = extra.length > 0 ? tls.createSecureContext({ ca: [...tls.rootCertificates, ...extra] }) : undefined;
    this.budget = options.responseBudget ?? sharedResponseBudget;
  }

  async send(req: TransportRequest, allowed: AllowedHosts): Promise<TransportResponse> {
    const chunks: Buffer[] = [];
    let held = 0;
    try {
      const head = await this.exchange(req, allowed, (c, url) => {
        if (!this.budget.take(c.length)) throw budgetExceeded(hostLabel(url), this.budget, held);
        held += c.length;
        chunks.push(c);
      });
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, held);
      return { ...head, body };
    } finally {
      chunks.length = 0;
      this.budget.give(held);
    }
  }

  stream(req: TransportRequest, allowed: AllowedHosts, onChunk: (chunk: Uint8Array) => void): Promise<Omit<TransportResponse, 'body'>> {
    return this.exchange(req, allowed, (c) => {
      try {
        onChunk(c);
      } catch (e) {
        throw new CallerError(e);
      }
    }, true);
  }

  /** The keep-alive pool for one allowlist and timeout, held for one call (`release` when it ends). */
  private acquire(allowed: AllowedHosts, rules: readonly HostRule[], timeoutMs: number): { agent: Agent; release: () => void } {
    const key = `${timeoutMs}\n${[...allowed].sort().join('\n')}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = { agent: createAgent(rules, this.lookup, timeoutMs, this.secureContext), active: 0 };
      this.pools.set(key, pool);
      for (const [k, p] of this.pools) if (this.pools.size > MAX_POOLS && p.active === 0 && p !== pool) this.closePool(k);
    }
    const held = pool;
    clearTimeout(held.idle);
    held.active++;
    let released = false;
    return {
      agent: held.agent,
      release: () => {
        if (released) return;
        released = true;
        held.active--;
        if (held.active > 0 || this.pools.get(key) !== held) return;
        held.idle = setTimeout(() => this.closePool(key), POOL_IDLE_MS);
        held.idle.unref();
      },
    };
  }

  private closePool(key: string): void {
    const pool = this.pools.get(key);
    if (!pool || pool.active > 0) return;
    this.pools.delete(key);
    clearTimeout(pool.idle);
    void pool.agent.close().catch(() => undefined);
  }

  /** Closes every pooled connection (calls still running on them fail). */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => (clearTimeout(p.idle), p.agent.destroy().catch(() => undefined))));
  }

  private async exchange(req: TransportRequest, allowed: AllowedHosts, onChunk: (chunk: Buffer, url: URL) => void, streaming = false): Promise<Omit<TransportResponse, 'body'>> {
    if (req.signal.aborted) throw cancelled();
    if (req.body && req.body.byteLength > MAX_REQUEST_BODY_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', `the request body is ${req.body.byteLength} bytes; the transport sends at most ${MAX_REQUEST_BODY_BYTES} bytes (64 MiB)`, {
        sentBytes: req.body.byteLength,
        limit: MAX_REQUEST_BODY_BYTES,
      });
    }
    let url = parseRequestUrl(req.url);
    const { rules } = parseAllowedHosts(allowed);
    const timeoutMs = Math.max(1, req.timeoutMs);
    const maxRedirects = Math.min(MAX_REDIRECTS, Math.max(0, Math.floor(req.maxRedirects)));
    const maxResponseBytes = Math.max(0, Math.floor(req.maxResponseBytes));

    const ctl = new AbortController();
    const onCallerAbort = () => ctl.abort(cancelled());
    req.signal.addEventListener('abort', onCallerAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const arm = (what: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => ctl.abort(new AppError('TIMEOUT', `${what} from '${hostLabel(url)}' within ${timeoutMs} ms; the server may be slow or down (raise the tool's timeoutMs if it is just slow)`, { host: hostLabel(url), timeoutMs })), timeoutMs);
    };
    arm(streaming ? 'no response headers' : 'no complete response');
    const pool = this.acquire(allowed, rules, timeoutMs);
    let res: Dispatcher.ResponseData | undefined;
    let failed = false;

    try {
      let method = req.method.toUpperCase();
      let body: Uint8Array | undefined = req.body;
      const headers = requestHeaders(req.headers, this.userAgent);
      const redirects: string[] = [];
      let from: { url: URL; status: number } | undefined;
      for (;;) {
        assertUrlAllowed(url, rules);
        guardHop(req.secrets, { url, headers, body, ...(from ? { from } : {}) });
        await untilAborted(resolveAndCheck({ hostname: url.hostname, port: effectivePort(url), protocol: url.protocol }, rules, this.lookup), ctl.signal);
        res = await request(url.href, {
          dispatcher: pool.agent,
          method: method as Dispatcher.HttpMethod,
          headers,
          ...(body ? { body } : {}),
          signal: ctl.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        // Destroying an unread body emits an error; whoever reads it listens for its own.
        res.body.on('error', () => undefined);
        const location = REDIRECT_STATUSES.has(res.statusCode) ? headerValue(res.headers['location']) : undefined;
        if (location === undefined) break;
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        if (redirects.length >= maxRedirects) {
          throw new AppError(
            'UNAVAILABLE',
            `'${hostLabel(url)}' redirected more than ${maxRedirects} time${maxRedirects === 1 ? '' : 's'}; the server may be in a redirect loop (or raise the tool's limits.maxRedirects)`,
            { reason: 'too-many-redirects', redirects: redirects.length, limit: maxRedirects },
          );
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new AppError('UNAVAILABLE', `'${hostLabel(url)}' answered ${res.statusCode} with a Location that is not a valid URL`, { status: res.statusCode });
        }
        next.hash = '';
        if (next.origin !== url.origin) for (const name of Object.keys(headers)) if (CREDENTIAL_HEADER.test(name)) delete headers[name];
        if ((res.statusCode === 303 && method !== 'HEAD') || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          for (const name of BODY_HEADERS) delete headers[name];
        }
        redirects.push(next.href);
        from = { url, status: res.statusCode };
        url = next;
      }

      if (streaming) arm('no data');
      const responseHeaders = flattenHeaders(res.headers);
      const encodings = contentEncodings(responseHeaders['content-encoding']);
      const decode = encodings.length > 0 && encodings.every((e) => KNOWN_ENCODINGS.has(e));
      if (decode && encodings.length > 2) {
        throw new AppError('UNAVAILABLE', `the response from '${hostLabel(url)}' is encoded ${encodings.length} times (${encodings.join(', ')}); at most two encodings are decoded`, { encodings, permanent: true });
      }
      const wireLimit = decode ? maxResponseBytes + Math.ceil(maxResponseBytes / 100) + 64 * 1024 : maxResponseBytes;
      const declared = Number(responseHeaders['content-length']);
      const bodyless = method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
      if (!bodyless && Number.isFinite(declared) && declared > wireLimit) throw tooLarge(url, maxResponseBytes, decode ? 'compressed' : 'plain', declared);

      const final = url;
      let source: AsyncIterable<Buffer> = countBytes(res.body, wireLimit, () => tooLarge(final, maxResponseBytes, decode ? 'compressed' : 'plain'), streaming ? () => arm('no data') : undefined);
      if (decode) {
        for (const enc of [...encodings].reverse()) {
          source = countBytes(decoded(source, enc, final), wireLimit, () => tooLarge(final, maxResponseBytes, 'decompressed'));
        }
        delete responseHeaders['content-encoding'];
        delete responseHeaders['content-length'];
      }
      let total = 0;
      for await (const chunk of source) {
        // Cut (time-out, cancel): stop here, not after what zlib still holds is decoded.
        if (ctl.signal.aborted) throw ctl.signal.reason instanceof Error ? ctl.signal.reason : cancelled();
        total += chunk.length;
        if (total > maxResponseBytes) throw tooLarge(url, maxResponseBytes, decode ? 'decompressed' : 'plain');
        onChunk(chunk, url);
      }
      return { status: res.statusCode, headers: responseHeaders, finalUrl: url.href, redirects };
    } catch (e) {
      failed = true;
      if (e instanceof CallerError) throw e.error;
      const reason: unknown = ctl.signal.reason;
      if (ctl.signal.aborted && reason instanceof AppError && !(e instanceof AppError)) throw reason;
      throw toAppError(e, url);
    } finally {
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onCallerAbort);
      // A failed exchange closes its own connection (an unread or half-read body), never the pool's others.
      if (failed) {
        if (!ctl.signal.aborted) ctl.abort(cancelled());
        res?.body.destroy();
      }
      pool.release();
    }
  }
}

/** What `onChunk` threw: handed back to the caller untouched. */
class CallerError {
  constructor(readonly error: unknown) {}
}

/** An Agent whose sockets may only reach what the rules allow, checked when connecting. */
function createAgent(rules: readonly HostRule[], lookup: LookupFunction, timeoutMs: number, secureContext: tls.SecureContext | undefined): Agent {
  return new Agent({
    connections: 4,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: (opts, callback) => {
      const protocol = opts.protocol;
      const port = Number(opts.port) || (protocol === 'https:' ? 443 : 80);
      const hostname = opts.hostname.includes(':') && !opts.hostname.startsWith('[') ? `[${opts.hostname}]` : opts.hostname;
      try {
        if (!matchHost(rules, hostname, port, protocol)) {
          throw new AppError('FORBIDDEN', `host '${hostname}:${port}' is not in the allowed hosts; add it in Settings → Allowed hosts`, { host: hostname, port });
        }
        assertLiteralAllowed({ hostname, port, protocol }, rules);
      } catch (e) {
        callback(e as Error, null);
        return;
      }
      const connector = buildConnector({ timeout: timeoutMs, lookup: createGuardedLookup(rules, port, protocol, lookup), ...(secureContext ? { secureContext } : {}) });
      connector(opts, callback);
    },
  });
}

function parseRequestUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'the request URL is not a valid absolute URL (it must start with http:// or https://)', { field: 'url' });
  }
  url.hash = '';
  return url;
}

function requestHeaders(given: Record<string, string>, userAgent: string): Headers {
  const headers: Headers = {};
  for (const [name, value] of Object.entries(given)) {
    const n = name.toLowerCase();
    if (!DROPPED_HEADERS.has(n)) headers[n] = value;
  }
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  headers['user-agent'] ??= userAgent;
  return headers;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Headers {
  const out: Headers = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function cancelled(): AppError {
  return new AppError('CANCELLED', 'the request was cancelled');
}


/** Network and undici errors as AppErrors that say what happened and what to do. */
function toAppError(e: unknown, url: URL): AppError {
  if (e instanceof AppError) return e;
  const err = e as { code?: string; message?: string; name?: string };
  const code = err.code ?? err.name ?? 'EUNKNOWN';
  const where = hostLabel(url);
  const details = { host: where, cause: code };
  switch (code) {
    case 'ECONNREFUSED':
      return new AppError('UNAVAILABLE', `could not connect to '${where}' (connection refused): check that the server is running and the port is right`, details);
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
      return new AppError('UNAVAILABLE', `could not resolve '${url.hostname}' (${code}): check the host name`, details);
    case 'EAI_AGAIN':
      return new AppError('UNAVAILABLE', `could not resolve '${url.hostname}' (${code}): check the network and the DNS settings, then try again`, details);
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return new AppError('TIMEOUT', `'${where}' did not answer in time (${code}); the server may be slow or down`, details);
    case 'UND_ERR_INVALID_ARG':
      return new AppError('VALIDATION_FAILED', `the request to '${where}' is malformed: ${err.message ?? code}`, details);
    case 'UND_ERR_ABORTED':
    case 'AbortError':
      return cancelled();
  }
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code)) {
    return new AppError('UNAVAILABLE', `the secure connection to '${where}' failed (${code}): ${err.message ?? ''}`.trim(), details);
  }
  return new AppError('UNAVAILABLE', `the connection to '${where}' failed (${code})${err.message ? `: ${err.message}` : ''}`, details);
}
