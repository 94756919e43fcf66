/**
 * ctx.fetch on the host side: the script's request sent through the HTTP transport HTTP tools use
 * (invoke/http/transport.ts), so the same rules hold: only hosts in Settings → Allowed hosts, on the
 * first URL and every redirect; private, loopback and link-local addresses refused at DNS time
 * unless an entry allows them; bounded bytes and time.
 *
 * Secrets: `${secret:NAME}` in the URL or a header value is replaced here, after the script has
 * handed the request over, by the secret's value for the URL's host (refused when the secret is
 * not bound to it), and the transport keeps it off any other host on every hop. The script never
 * holds a value: the response goes back with every secret value (and its encodings) replaced by
 * `[redacted]`. A placeholder in the body is refused (a body may be echoed back).
 */
import { AppError } from '../../../shared/errors';
import { secretNamesIn } from '../invoke/http/carried-secrets';
import { RESERVED_HEADERS, Sensitive } from '../invoke/http/request';
import { checkHeaderValue, normalHostname, templateOrigin } from '../invoke/http/template';
import type { AllowedHosts, Redact, SecretResolver, Transport } from '../invoke/types';

export interface ScriptFetchRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

export interface ScriptFetchResponse {
  status: number;
  url: string;
  redirected: boolean;
  headers: Record<string, string>;
  body: string;
}

export interface ScriptFetchDeps {
  transport: Transport;
  allowedHosts: () => AllowedHosts;
  secrets: SecretResolver;
  redact: Redact;
}

/** The longest response body a script is given (decoded). */
export const SCRIPT_FETCH_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
/** The longest request body a script may send. */
export const SCRIPT_FETCH_MAX_BODY_BYTES = 5 * 1024 * 1024;
const MAX_URL_CHARS = 8192;
const MAX_HEADERS = 100;
const MAX_REDIRECTS = 5;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SECRET = /(\$?)\$\{secret:([^}]*)\}/g;

const refuse = (message: string, details?: Record<string, unknown>) => new AppError('VALIDATION_FAILED', `ctx.fetch: ${message}`, details);

/** The request as the script gave it (parsed from its JSON), checked. */
export function parseFetchRequest(payload: unknown): ScriptFetchRequest {
  const p = payload as Partial<ScriptFetchRequest> | null;
  if (!p || typeof p !== 'object') throw refuse('the request is not an object');
  if (typeof p.url !== 'string' || p.url.length === 0) throw refuse('url must be a non-empty string');
  if (p.url.length > MAX_URL_CHARS) throw refuse(`the URL is ${p.url.length} characters; at most ${MAX_URL_CHARS}`);
  const method = typeof p.method === 'string' ? p.method.toUpperCase() : 'GET';
  if (!METHODS.has(method)) throw refuse(`method '${String(p.method).slice(0, 20)}' is not one of ${[...METHODS].join(', ')}`);
  const headers: Record<string, string> = {};
  const given = p.headers && typeof p.headers === 'object' ? Object.entries(p.headers) : [];
  if (given.length > MAX_HEADERS) throw refuse(`at most ${MAX_HEADERS} headers`);
  for (const [name, value] of given) {
    if (!TOKEN.test(name)) throw refuse(`'${name.slice(0, 60)}' is not a valid header name`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw refuse(`the header '${name}' is set by the transport and may not be set by a script`);
    headers[name] = String(value);
  }
  let body: string | undefined;
  if (p.body !== undefined && p.body !== null) {
    if (typeof p.body !== 'string') throw refuse('body must be a string (an object is sent as JSON by ctx.fetch itself)');
    if (method === 'GET' || method === 'HEAD') throw refuse(`${method} requests have no body`);
    if (Buffer.byteLength(p.body, 'utf8') > SCRIPT_FETCH_MAX_BODY_BYTES) throw refuse(`the body is over ${SCRIPT_FETCH_MAX_BODY_BYTES / (1024 * 1024)} MiB`);
    if (secretNamesIn(p.body).length > 0) throw refuse('${secret:NAME} may stand in the URL or a header value, not in the body');
    body = p.body;
  }
  const timeoutMs = typeof p.timeoutMs === 'number' && Number.isFinite(p.timeoutMs) && p.timeoutMs > 0 ? Math.floor(p.timeoutMs) : undefined;
  return { url: p.url, method, headers, ...(body !== undefined ? { body } : {}), ...(timeoutMs ? { timeoutMs } : {}) };
}

/** Replaces `${secret:NAME}` with what `value` gives for it (`$${` stays as written). */
function fillSecrets(text: string, value: (name: string) => string): string {
  return text.replace(SECRET, (whole, escaped: string, name: string) => (escaped ? whole.slice(1) : value(name.trim())));
}

/** Sends the request; `timeoutMs` is what is left of the call's time. Every error says it came from ctx.fetch and holds no secret. */
export async function scriptFetch(req: ScriptFetchRequest, deps: ScriptFetchDeps, signal: AbortSignal, timeoutMs: number): Promise<ScriptFetchResponse> {
  const sensitive = new Sensitive(deps.redact);
  try {
    return await send(req, deps, signal, timeoutMs, sensitive);
  } catch (e) {
    const message = sensitive.redact(e instanceof Error ? e.message : String(e));
    const words = message.startsWith('ctx.fetch: ') ? message : `ctx.fetch: ${message}`;
    throw new AppError(e instanceof AppError ? e.code : 'UNAVAILABLE', words);
  }
}

async function send(req: ScriptFetchRequest, deps: ScriptFetchDeps, signal: AbortSignal, timeoutMs: number, sensitive: Sensitive): Promise<ScriptFetchResponse> {
  for (const s of deps.secrets.values()) sensitive.add(s);
  // The host is read from the URL as written: a placeholder may not stand in it.
  const origin = templateOrigin(req.url);
  const hostname = origin.hostname;
  const resolve = (name: string) => {
    const value = deps.secrets.resolve(name, hostname);
    sensitive.add(value);
    sensitive.carried.add(name, value, deps.secrets);
    return value;
  };
  const url = fillSecrets(req.url, (name) => encodeURIComponent(resolve(name)));
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse(`'${sensitive.redact(url).slice(0, 200)}' is not a URL`);
  }
  if (normalHostname(parsed.hostname) !== hostname) throw refuse('the URL would change its host once the secrets are in it: refused');
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(req.headers)) {
    const value = fillSecrets(template, resolve);
    checkHeaderValue(name, value);
    headers[name] = value;
    for (const secret of secretNamesIn(template)) sensitive.carried.header(secret, name);
  }
  const r = await deps.transport.send(
    {
      method: req.method,
      url,
      headers,
      ...(req.body !== undefined ? { body: new TextEncoder().encode(req.body) } : {}),
      timeoutMs: Math.max(1, Math.min(timeoutMs, req.timeoutMs ?? timeoutMs)),
      maxRedirects: MAX_REDIRECTS,
      maxResponseBytes: SCRIPT_FETCH_MAX_RESPONSE_BYTES,
      signal,
      secrets: sensitive.carried.list(),
    },
    deps.allowedHosts(),
  );
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) out[k.toLowerCase()] = sensitive.redact(v);
  return {
    status: r.status,
    url: sensitive.redact(r.finalUrl),
    redirected: r.redirects.length > 0,
    headers: out,
    body: sensitive.redact(Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength).toString('utf8')),
  };
}
