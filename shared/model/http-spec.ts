/**
 * The HTTP back-end of a tool: a request built from templates. Pure (no Node, no DOM), so
 * the editor checks placeholders with the same code the core uses to refuse a save.
 *
 * Placeholders: `${name}` or `${a.b.c}` (a dotted path into the call's arguments),
 * `${name?}` (an optional argument: the query value, header, form field or JSON property
 * that holds it is left out when it is not given) and `${secret:NAME}` (a named secret,
 * sent only to the hosts it is bound to). `$${` writes a literal `${`. Placeholders may stand in path segments, query values, header values and
 * the body — never in the scheme, user info, host or port, nor in a query key or fragment.
 */
import { z } from 'zod';
import { keyedRecord } from './keyed-record';

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

const SecretName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'a secret name: letters, digits, _ . - (starting with a letter)');

const Template = z.string().max(64 * 1024);

export const HttpAuthSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }).strict(),
  /** An API key in a header or a query parameter. */
  z.object({ kind: z.literal('apiKey'), in: z.enum(['header', 'query']), name: z.string().min(1).max(128), secret: SecretName }).strict(),
  z.object({ kind: z.literal('bearer'), secret: SecretName }).strict(),
  /** `usernameSecret` sends a secret as the user name (an API key as the user, e.g. Stripe); the password may then be empty. */
  z
    .object({ kind: z.literal('basic'), username: z.string().max(256).default(''), usernameSecret: SecretName.optional(), passwordSecret: SecretName.optional() })
    .strict(),
  /**
   * HMAC request signing: the signature of `${method}\n${path-and-query}\n${timestamp}\n${sha256(body) hex}`
   * in `header` (hex or base64), the timestamp (unix seconds) in `timestampHeader`.
   */
  z
    .object({
      kind: z.literal('hmac'),
      secret: SecretName,
      algorithm: z.enum(['sha256', 'sha512']).default('sha256'),
      header: z.string().min(1).max(128).default('X-Signature'),
      timestampHeader: z.string().min(1).max(128).default('X-Timestamp'),
      encoding: z.enum(['hex', 'base64']).default('hex'),
    })
    .strict(),
  /** OAuth2: client credentials, or a refresh token exchanged for access tokens (cached until expiry). */
  z
    .object({
      kind: z.literal('oauth2'),
      grant: z.enum(['client_credentials', 'refresh_token']),
      tokenUrl: z.string().url().max(2048),
      clientId: z.string().min(1).max(512),
      clientSecret: SecretName.optional(),
      refreshTokenSecret: SecretName.optional(),
      scope: z.string().max(1024).optional(),
    })
    .strict(),
]);
export type HttpAuth = z.infer<typeof HttpAuthSchema>;

export const HttpLimitsSchema = z
  .object({
    /** Bytes of the request (URL, headers and body) we send at most. */
    maxSentBytes: z.number().int().min(1).max(64 * 1024 * 1024).default(1024 * 1024),
    /** Bytes of response body we read at most, counted after decompression. */
    maxResponseBytes: z.number().int().min(1).max(256 * 1024 * 1024).default(10 * 1024 * 1024),
    maxRetries: z.number().int().min(0).max(10).default(2),
    maxCallsPerMinute: z.number().int().min(1).max(100_000).optional(),
    maxRedirects: z.number().int().min(0).max(10).default(5),
  })
  .strict();
export type HttpLimits = z.infer<typeof HttpLimitsSchema>;

/**
 * How a form field whose value is an array or object is written (OpenAPI's `style` and
 * `explode`): `deepObject` as `name[key]=v` / `name[0][key]=v`; `form` exploded as one pair
 * per item (`name=a&name=b`, an object's own `key=v` pairs), not exploded as `name=a,b`;
 * `spaceDelimited` / `pipeDelimited` join an array with ' ' or '|'. A field with no entry
 * writes an array or object as JSON text.
 */
export const FormEncodingSchema = z
  .object({ style: z.enum(['form', 'deepObject', 'spaceDelimited', 'pipeDelimited']).default('form'), explode: z.boolean().default(true) })
  .strict();
export type FormEncoding = z.infer<typeof FormEncodingSchema>;

export const HttpBodySchema = z.discriminatedUnion('kind', [
  /** A JSON value whose strings may hold placeholders; a string that is exactly one placeholder takes the argument's JSON value. */
  z.object({ kind: z.literal('json'), template: z.unknown() }).strict(),
  z.object({ kind: z.literal('text'), template: Template, contentType: z.string().max(256).default('text/plain; charset=utf-8') }).strict(),
  z.object({ kind: z.literal('form'), fields: keyedRecord(z.string().max(256), Template), encoding: keyedRecord(z.string().max(256), FormEncodingSchema).optional() }).strict(),
  /**
   * multipart/form-data: one part per field. A field named in `files` is sent as a file: its
   * value is its text, or `{ base64, filename?, contentType? }` (an array of them sends several
   * files). Other fields are text; an object or array is written as JSON.
   */
  z.object({ kind: z.literal('multipart'), fields: keyedRecord(z.string().max(256), Template), files: z.array(z.string().max(256)).max(100).default([]) }).strict(),
]);
export type HttpBody = z.infer<typeof HttpBodySchema>;

export const FullHttpSpecSchema = z
  .object({
    method: z.enum(HTTP_METHODS),
    urlTemplate: z.string().min(1).max(8192),
    query: keyedRecord(z.string().min(1).max(256), Template).default({}),
    /** How a query parameter whose value is an array or object is written (as form fields are; see FormEncodingSchema). */
    queryEncoding: keyedRecord(z.string().min(1).max(256), FormEncodingSchema).optional(),
    headers: keyedRecord(z.string().min(1).max(256), Template).default({}),
    body: HttpBodySchema.optional(),
    auth: HttpAuthSchema.default({ kind: 'none' }),
    timeoutMs: z.number().int().min(100).max(10 * 60_000).default(30_000),
    /** Total time for all attempts, back-off included. */
    totalTimeoutMs: z.number().int().min(100).max(30 * 60_000).default(120_000),
    successCodes: z.array(z.number().int().min(100).max(599)).max(100).default([200, 201, 202, 203, 204, 206]),
    /** binary: the body as `{ contentType, sizeBytes, base64 }`, never decoded as text. */
    responseMode: z.enum(['json', 'text', 'sse', 'binary']).default('json'),
    /** Makes a non-idempotent method retryable: sent as the Idempotency-Key header. */
    idempotencyKey: Template.optional(),
    limits: HttpLimitsSchema.default(HttpLimitsSchema.parse({})),
  })
  .strict();
export type FullHttpSpec = z.infer<typeof FullHttpSpecSchema>;

// ---- placeholders ------------------------------------------------------------------------

export type Placeholder = { kind: 'arg'; path: string[]; optional?: true } | { kind: 'secret'; name: string };
export type TemplatePart = { text: string } | { placeholder: Placeholder; raw: string };

const ARG_PATH = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$0-9][\w$-]*)*$/;

/** Splits a template into text and placeholders; throws a TemplateError on a malformed one. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let k = 0;
  while (k < template.length) {
    if (template.startsWith('$${', k)) {
      text += '${';
      k += 3;
      continue;
    }
    if (template.startsWith('${', k)) {
      const end = template.indexOf('}', k + 2);
      if (end < 0) throw new TemplateError(`unclosed placeholder at character ${k + 1}: add a '}'`);
      const inner = template.slice(k + 2, end).trim();
      if (text) parts.push({ text });
      text = '';
      parts.push({ placeholder: parsePlaceholder(inner), raw: template.slice(k, end + 1) });
      k = end + 1;
      continue;
    }
    text += template[k];
    k++;
  }
  if (text) parts.push({ text });
  return parts;
}

function parsePlaceholder(inner: string): Placeholder {
  if (inner.startsWith('secret:')) {
    const name = inner.slice('secret:'.length);
    if (!SecretName.safeParse(name).success) throw new TemplateError(`'\${${inner}}' does not name a secret: use letters, digits, _ . -`);
    return { kind: 'secret', name };
  }
  const optional = inner.endsWith('?');
  const name = optional ? inner.slice(0, -1) : inner;
  if (!ARG_PATH.test(name)) throw new TemplateError(`'\${${inner}}' is not an argument name or a dotted path like \${user.id} (or \${user.id?} when optional)`);
  return optional ? { kind: 'arg', path: name.split('.'), optional: true } : { kind: 'arg', path: name.split('.') };
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

export function placeholdersOf(template: string): Placeholder[] {
  return parseTemplate(template).flatMap((p) => ('placeholder' in p ? [p.placeholder] : []));
}

/** Where a problem with a spec lies, for an error on the right field. */
export interface SpecProblem {
  field: string;
  /** A short rule name: 'url-scheme', 'placeholder-location', 'template', 'header-name', 'no-body'. */
  rule: string;
  message: string;
}

/**
 * Checks a URL template: http(s) scheme, a literal host (no placeholder in scheme, user
 * info, host or port), placeholders only in path segments and query values.
 */
export function urlTemplateProblems(urlTemplate: string): SpecProblem[] {
  const field = 'http.urlTemplate';
  const m = /^(https?):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/.exec(urlTemplate);
  if (!m) return [{ field, rule: 'url-scheme', message: 'urlTemplate must start with http:// or https://' }];
  const [, , authority = '', path = '', query = '', fragment = ''] = m;
  const problems: SpecProblem[] = [];
  if (authority.includes('${')) problems.push({ field, rule: 'placeholder-location', message: 'placeholders may not stand in the scheme, user info, host or port; put them in the path or the query' });
  if (authority.includes('@')) problems.push({ field, rule: 'no-userinfo', message: 'user info (user:password@) is not allowed in the URL; use the auth settings' });
  if (authority === '' || authority.startsWith(':')) problems.push({ field, rule: 'host-required', message: 'the URL needs a host' });
  if (fragment.includes('${')) problems.push({ field, rule: 'placeholder-location', message: 'placeholders may not stand in the #fragment' });
  for (const pair of query.replace(/^\?/, '').split('&')) {
    const key = pair.split('=')[0] ?? '';
    if (key.includes('${')) problems.push({ field, rule: 'placeholder-location', message: `placeholders may not stand in a query key: '${key}'` });
  }
  const variables = serverVariablesIn(urlTemplate);
  if (variables.length) {
    problems.push({ field, rule: 'server-variable', message: `fill in the server variable${variables.length > 1 ? 's' : ''} ${variables.map((v) => `{${v}}`).join(', ')} (e.g. your own domain) before the tool can be used` });
  }
  for (const t of [path, query]) {
    try {
      const parts = parseTemplate(t);
      if (t === path && parts.some((p) => 'placeholder' in p && p.placeholder.kind === 'arg' && p.placeholder.optional)) {
        problems.push({ field, rule: 'placeholder-location', message: 'an optional placeholder (${name?}) may not stand in the path: a path segment cannot be left out' });
      }
    } catch (e) {
      problems.push({ field, rule: 'template', message: (e as Error).message });
    }
  }
  return problems;
}

/**
 * The OpenAPI server variables (`{name}`, not `${name}`) a URL template still holds before
 * its query: an imported tool keeps them until its user fills them in (a host cannot be a
 * placeholder).
 */
export function serverVariablesIn(urlTemplate: string): string[] {
  // Only before the query: a query value may hold literal braces (`?q={a}`).
  const literal = urlTemplate.replace(/\$\$\{/g, '').replace(/\$\{[^}]*\}/g, '').split(/[?#]/)[0]!;
  return [...new Set([...literal.matchAll(/\{([^{}\s/?#]{1,128})\}/g)].map((m) => m[1]!))];
}

/** Every placeholder problem of a spec, each on its field. */
export function httpSpecProblems(spec: FullHttpSpec): SpecProblem[] {
  const problems = urlTemplateProblems(spec.urlTemplate);
  const check = (field: string, template: string) => {
    try {
      parseTemplate(template);
    } catch (e) {
      problems.push({ field, rule: 'template', message: (e as Error).message });
    }
  };
  for (const [k, v] of Object.entries(spec.query)) check(`http.query.${k}`, v);
  for (const [k, v] of Object.entries(spec.headers)) {
    if (/[\r\n\0]/.test(k) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) problems.push({ field: `http.headers`, rule: 'header-name', message: `'${k}' is not a valid header name` });
    check(`http.headers.${k}`, v);
  }
  if (spec.body?.kind === 'text') check('http.body.template', spec.body.template);
  if (spec.body?.kind === 'form' || spec.body?.kind === 'multipart') for (const [k, v] of Object.entries(spec.body.fields)) check(`http.body.fields.${k}`, v);
  if (spec.body?.kind === 'multipart') {
    for (const f of spec.body.files) if (!Object.hasOwn(spec.body.fields, f)) problems.push({ field: 'http.body.files', rule: 'unknown-field', message: `'${f}' is not one of the body's fields` });
  }
  if (spec.auth.kind === 'basic' && !spec.auth.usernameSecret && !spec.auth.passwordSecret) {
    problems.push({ field: 'http.auth', rule: 'basic-secret', message: 'basic auth needs passwordSecret, usernameSecret or both' });
  }
  if (spec.body?.kind === 'json') walkStrings(spec.body.template, (s) => check('http.body.template', s));
  if (spec.body && (spec.method === 'GET' || spec.method === 'HEAD')) problems.push({ field: 'http.body', rule: 'no-body', message: `${spec.method} requests have no body` });
  if (spec.idempotencyKey) check('http.idempotencyKey', spec.idempotencyKey);
  return problems;
}

function walkStrings(v: unknown, fn: (s: string) => void): void {
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') fn(x);
    else if (Array.isArray(x)) stack.push(...x);
    else if (x && typeof x === 'object') stack.push(...Object.values(x));
  }
}
