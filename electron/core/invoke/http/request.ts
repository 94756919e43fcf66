/**
 * Building the request of an HTTP tool from its spec and the call's arguments: URL, query,
 * headers, body and its size. Secrets are resolved for the template's literal host (the host
 * of the built URL, checked again after rendering) and every secret value used is recorded
 * in a Sensitive set so that anything shown afterwards can be redacted.
 */
import { AppError } from '../../../../shared/errors';
import { IDEMPOTENT_METHODS, type FullHttpSpec } from '../../../../shared/model/http-spec';
import type { Redact, SecretResolver } from '../types';
import { CarriedSecrets, secretNamesIn } from './carried-secrets';
import { renderForm, renderMultipart } from './body';
import { checkHeaderValue, formEncode, isOmitted, normalHostname, renderHeaderValue, renderJson, renderText, renderUrl, templateOrigin, type RenderEnv } from './template';

/** A request ready for the transport (before auth is applied). */
export interface BuiltRequest {
  method: string;
  /** The full URL, secrets included: never show it without redaction. */
  url: string;
  /** The host name secrets were resolved for (URL.hostname of the URL). */
  hostname: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** Header names a tool may not set: they belong to the transport or could redirect the request. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
]);

/** Header names whose values are always shown as `[redacted]`. */
const SENSITIVE_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The strings that must never be shown: secret values and what is derived from them
 * (percent-encoded once and twice, form-, JSON- and base64-encoded forms, tokens). Redacts
 * them from any text.
 */
export class Sensitive {
  private readonly strings = new Set<string>();
  private readonly headerNames = new Set<string>(SENSITIVE_HEADERS);
  private sorted: string[] | undefined;
  /** The secrets put into the request by name, for the transport to keep them to their hosts. */
  readonly carried = new CarriedSecrets();

  constructor(private readonly redactFn: Redact = (t) => t) {}

  /** Adds a value and its encoded forms. */
  add(value: string): void {
    if (!value) return;
    const forms = [value, formEncode(value), JSON.stringify(value).slice(1, -1), Buffer.from(value).toString('base64')];
    try {
      forms.push(encodeURIComponent(value), encodeURIComponent(encodeURIComponent(value)));
    } catch {
      // A lone surrogate: it cannot be sent in a URL either.
    }
    for (const f of forms) if (f) this.strings.add(f);
    this.sorted = undefined;
  }

  /** A header whose value is always redacted in descriptions (e.g. an API key header). */
  addHeaderName(name: string): void {
    this.headerNames.add(name.toLowerCase());
  }

  isSensitiveHeader(name: string): boolean {
    return this.headerNames.has(name.toLowerCase());
  }

  /** The text with every sensitive string replaced by `[redacted]`, after the app's own Redact. */
  redact(text: string): string {
    let out = this.redactFn(text);
    this.sorted ??= [...this.strings].sort((a, b) => b.length - a.length);
    for (const s of this.sorted) if (out.includes(s)) out = out.replaceAll(s, '[redacted]');
    return out;
  }

  /** Whether redaction would change the text. */
  occursIn(text: string): boolean {
    return this.redact(text) !== text;
  }

  /** Headers for a description: sensitive ones as `[redacted]`, the rest redacted. */
  redactHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) out[this.redact(k)] = this.isSensitiveHeader(k) ? '[redacted]' : this.redact(v);
    return out;
  }

  /** Deep copy of a JSON-like value with every string redacted. */
  redactDeep(v: unknown, depth = 0): unknown {
    if (typeof v === 'string') return this.redact(v);
    if (depth > 32 || v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => this.redactDeep(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[this.redact(k)] = this.redactDeep(x, depth + 1);
    return out;
  }
}

/** The environment templates render in: secrets resolved for `hostname` and recorded as sensitive. */
export function renderEnv(args: Record<string, unknown>, secrets: SecretResolver, hostname: string, sensitive: Sensitive): RenderEnv {
  return {
    args,
    secret: (name) => {
      const value = secrets.resolve(name, hostname);
      sensitive.add(value);
      sensitive.carried.add(name, value, secrets);
      return value;
    },
  };
}

/** Finds a header by name, case-insensitively. */
export function headerKey(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  return Object.keys(headers).find((k) => k.toLowerCase() === lower);
}

/** Sets a header, replacing any with the same name in another case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const existing = headerKey(headers, name);
  if (existing !== undefined) delete headers[existing];
  headers[name] = value;
}

/** Whether attempts may be repeated: an idempotent method, or an idempotency key is sent. */
export function isRetryable(spec: Pick<FullHttpSpec, 'method' | 'idempotencyKey'>): boolean {
  return IDEMPOTENT_METHODS.has(spec.method) || !!spec.idempotencyKey;
}

/**
 * Builds the request (without auth): renders the URL and query, headers, the Idempotency-Key,
 * the body with its Content-Type, and a default Accept for the response mode.
 */
export function buildRequest(spec: FullHttpSpec, args: Record<string, unknown>, secrets: SecretResolver, sensitive: Sensitive): BuiltRequest {
  for (const s of secrets.values()) sensitive.add(s);
  const origin = templateOrigin(spec.urlTemplate);
  const env = renderEnv(args, secrets, origin.hostname, sensitive);
  const url = renderUrl(spec.urlTemplate, spec.query, env, spec.queryEncoding);
  if (normalHostname(new URL(url).hostname) !== origin.hostname) throw new AppError('VALIDATION_FAILED', 'the rendered URL would change the host: refused', { field: 'http.urlTemplate' });

  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(spec.headers)) {
    if (!TOKEN.test(name)) throw new AppError('VALIDATION_FAILED', `'${name}' is not a valid header name`, { field: 'http.headers' });
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new AppError('VALIDATION_FAILED', `the header '${name}' is set by the transport and may not be set by a tool`, { field: 'http.headers' });
    if (isOmitted(template, env, `http.headers.${name}`)) continue;
    setHeader(headers, name, renderHeaderValue(name, template, env));
    for (const secret of secretNamesIn(template)) sensitive.carried.header(secret, name);
  }
  if (spec.idempotencyKey) setHeader(headers, 'Idempotency-Key', renderHeaderValue('Idempotency-Key', spec.idempotencyKey, env));

  const accept = spec.responseMode === 'json' ? 'application/json' : spec.responseMode === 'sse' ? 'text/event-stream' : undefined;
  if (accept && headerKey(headers, 'accept') === undefined) headers['Accept'] = accept;

  let body: Uint8Array | undefined;
  if (spec.body) {
    if (spec.method === 'GET' || spec.method === 'HEAD') throw new AppError('VALIDATION_FAILED', `${spec.method} requests have no body`, { field: 'http.body' });
    let bytes: Uint8Array | undefined;
    let contentType: string;
    if (spec.body.kind === 'json') {
      // A template that is only an optional placeholder, not given: no body.
      const value = renderJson(spec.body.template, env);
      bytes = value === undefined ? undefined : new TextEncoder().encode(JSON.stringify(value) ?? 'null');
      contentType = 'application/json';
    } else if (spec.body.kind === 'text') {
      bytes = new TextEncoder().encode(renderText(spec.body.template, env, 'http.body.template'));
      contentType = spec.body.contentType;
    } else if (spec.body.kind === 'multipart') {
      ({ bytes, contentType } = renderMultipart(spec.body, env));
    } else {
      bytes = new TextEncoder().encode(renderForm(spec.body, env));
      contentType = 'application/x-www-form-urlencoded';
    }
    if (bytes) {
      checkHeaderValue('Content-Type', contentType);
      // multipart: the boundary is ours, so our Content-Type wins.
      if (spec.body.kind === 'multipart') setHeader(headers, 'Content-Type', contentType);
      else if (headerKey(headers, 'content-type') === undefined) headers['Content-Type'] = contentType;
      body = bytes;
    }
  }
  return { method: spec.method, url, hostname: origin.hostname, headers, ...(body ? { body } : {}) };
}

/**
 * The bytes a request puts on the wire, HTTP/1.1 framing counted: request line, Host,
 * each header line, Content-Length, the blank line and the body. (The transport may add a
 * few headers of its own, e.g. Accept-Encoding; they are not counted.)
 */
export function sentBytes(req: { method: string; url: string; headers: Record<string, string>; body?: Uint8Array }): number {
  const u = new URL(req.url);
  let n = Buffer.byteLength(`${req.method} ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\n`);
  for (const [k, v] of Object.entries(req.headers)) n += Buffer.byteLength(`${k}: ${v}\r\n`);
  if (req.body) n += Buffer.byteLength(`content-length: ${req.body.byteLength}\r\n`) + req.body.byteLength;
  return n + 2;
}

/** PAYLOAD_TOO_LARGE when the request is over `maxSentBytes`. */
export function assertSentBytes(req: Parameters<typeof sentBytes>[0], maxSentBytes: number): number {
  const n = sentBytes(req);
  if (n > maxSentBytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', `the request would send ${n} bytes; this tool's limit (limits.maxSentBytes) is ${maxSentBytes}`, { sentBytes: n, limit: maxSentBytes });
  }
  return n;
}
