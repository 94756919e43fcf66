/**
 * Rendering parsed templates (shared/model/http-spec.ts) for the place each value lands.
 *
 * - Path segment: the value is percent-encoded with encodeURIComponent, so it can never add a
 *   `/`, a `?` or a `#`. A value that is empty, `.` or `..`, or that decodes (once or
 *   repeatedly, e.g. `%2e%2e`, `%252e%252e`, `..%2f`) to a dot segment, or whose segment as a
 *   whole would be empty or a dot segment, is refused.
 * - Query value: application/x-www-form-urlencoded (URLSearchParams) encoding; a query
 *   parameter listed in `queryEncoding` writes an array or object with its style (styles.ts).
 * - Header value: the plain string; CR, LF, NUL and every other control character except
 *   TAB are refused, as are characters outside printable ASCII and values over
 *   MAX_HEADER_VALUE_BYTES.
 * - Body: JSON (a string that is exactly one placeholder takes the argument's JSON value;
 *   other strings interpolate), text (interpolation), form fields (interpolation, then form
 *   encoding by the caller).
 *
 * The value of `${a.b}` is the argument's string form: strings as they are, numbers, bigints
 * and booleans stringified. Objects, arrays and null are refused in URL parts and headers
 * and written as JSON in text bodies. In URL parts and headers CR, LF and NUL are refused
 * (also when they only appear after percent-decoding) and so are lone UTF-16 surrogates.
 * A path that names no argument is VALIDATION_FAILED naming the placeholder. Error messages
 * name the placeholder and the problem, never the value (it could be a secret).
 *
 * Optional placeholders (`${name?}`): when the argument is not given, what holds it is left
 * out — the query pair, the header, the form field, the JSON property or array item (a JSON
 * body that is only that placeholder sends no body); in a text body it renders as ''. In
 * the query, headers and form fields a null counts as not given (it has no string form); in
 * a JSON body a null is sent as null. They may not stand in the path.
 */
import { AppError } from '../../../../shared/errors';
import { parseTemplate, serverVariablesIn, TemplateError, type FormEncoding, type Placeholder, type TemplatePart } from '../../../../shared/model/http-spec';
import { fieldValue, styledPairs } from './styles';

/** Bytes one header value may have once rendered. */
export const MAX_HEADER_VALUE_BYTES = 8 * 1024;
/** Bytes the rendered URL may have. */
export const MAX_URL_BYTES = 16 * 1024;

export type UrlPart = 'path' | 'query' | 'header';

/** What placeholders are rendered from. */
export interface RenderEnv {
  /** The call's arguments. */
  args: Record<string, unknown>;
  /** A secret's value for this request's host (throws FORBIDDEN/NOT_FOUND from the resolver). */
  secret: (name: string) => string;
}

/** Parses a template, turning a TemplateError into VALIDATION_FAILED on `field`. */
export function parseOrRefuse(template: string, field: string): TemplatePart[] {
  try {
    return parseTemplate(template);
  } catch (e) {
    if (e instanceof TemplateError) throw new AppError('VALIDATION_FAILED', `${field}: ${e.message}`, { field });
    throw e;
  }
}

/** Whether an argument placeholder's value is absent (not given, or undefined). */
function argMissing(path: string[], env: RenderEnv): boolean {
  let cur: unknown = env.args;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return true;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur === undefined;
}

/** Whether an optional placeholder is not given (null counts as not given when `nullIsMissing`). */
export function optionalMissing(p: Placeholder, env: RenderEnv, nullIsMissing: boolean): boolean {
  if (p.kind !== 'arg' || !p.optional) return false;
  if (argMissing(p.path, env)) return true;
  return nullIsMissing && placeholderValue({ kind: 'arg', path: p.path }, '', env) === null;
}

/** Whether a template holds an optional placeholder that was not given: what holds it is then left out. */
export function isOmitted(template: string, env: RenderEnv, field: string, nullIsMissing = true): boolean {
  return parseOrRefuse(template, field).some((p) => 'placeholder' in p && optionalMissing(p.placeholder, env, nullIsMissing));
}

/** The raw value of a placeholder: an argument (any JSON value) or a secret (a string). */
export function placeholderValue(p: Placeholder, raw: string, env: RenderEnv): unknown {
  if (p.kind === 'secret') return env.secret(p.name);
  let cur: unknown = env.args;
  for (const key of p.path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) {
      throw new AppError('VALIDATION_FAILED', `${raw} names an argument that was not given`, { placeholder: raw });
    }
    cur = (cur as Record<string, unknown>)[key];
  }
  if (cur === undefined) throw new AppError('VALIDATION_FAILED', `${raw} names an argument that was not given`, { placeholder: raw });
  return cur;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const CR_LF_NUL = /[\r\n\0]/;

function refuse(raw: string, where: string, problem: string): never {
  throw new AppError('VALIDATION_FAILED', `${raw} in the ${where} ${problem}`, { placeholder: raw, where });
}

const WHERE: Record<UrlPart, string> = { path: 'URL path', query: 'query string', header: 'header' };

/** The string form of a value for a URL part or a header; objects, arrays and null refused. */
export function scalarString(v: unknown, raw: string, part: UrlPart): string {
  let s: string;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else if (v === null) return refuse(raw, WHERE[part], 'is null; give a string, number or boolean');
  else return refuse(raw, WHERE[part], `is ${Array.isArray(v) ? 'an array' : `a ${typeof v}`}; only strings, numbers and booleans can stand there`);
  if (LONE_SURROGATE.test(s)) refuse(raw, WHERE[part], 'is not well-formed Unicode (a lone surrogate)');
  for (const form of decodedForms(s)) {
    if (CR_LF_NUL.test(form)) refuse(raw, WHERE[part], 'contains CR, LF or NUL (also refused percent-encoded)');
  }
  return s;
}

/** The string form of a value inside a text body: JSON for objects, arrays and null. */
export function textString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}

/** Decodes every valid %XX run; leaves malformed ones as they are. */
function lenientDecode(s: string): string {
  return s.replace(/(?:%[0-9A-Fa-f]{2})+/g, (m) => {
    try {
      return decodeURIComponent(m);
    } catch {
      // Not UTF-8: decode byte by byte as Latin-1 so a hidden '.', '/' or CR still shows.
      return m.replace(/%([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
  });
}

/** The value, then each successive percent-decoding of it until it stops changing (at most 5). */
function decodedForms(s: string): string[] {
  const forms = [s];
  let cur = s;
  for (let i = 0; i < 5 && cur.includes('%'); i++) {
    const next = lenientDecode(cur);
    if (next === cur) break;
    forms.push(next);
    cur = next;
  }
  return forms;
}

function isDotOrEmpty(s: string): boolean {
  return s === '' || s === '.' || s === '..';
}

/** Refuses a path value that is, or decodes to, something that could move the path. */
function checkPathValue(value: string, raw: string): void {
  if (value === '') refuse(raw, 'URL path', 'is empty: an empty path segment is refused');
  for (const form of decodedForms(value)) {
    if (form === '.' || form === '..') refuse(raw, 'URL path', "is a '.' or '..' segment (or decodes to one): refused");
    for (const piece of form.split(/[/\\]/)) {
      if (piece === '.' || piece === '..') refuse(raw, 'URL path', "would contain a '.' or '..' segment once decoded: refused");
    }
  }
}

/**
 * Renders the path of a URL template (from the first `/` after the authority up to `?`).
 * Literal text stays as the author wrote it; placeholder values are encodeURIComponent-ed.
 * Returns the path and how many segments it has.
 */
export function renderPath(pathTemplate: string, env: RenderEnv): { path: string; segments: number } {
  const parts = parseOrRefuse(pathTemplate, 'http.urlTemplate');
  // Split into segments on the literal slashes; remember which segments hold placeholders.
  const segments: { text: string; placeholders: string[] }[] = [{ text: '', placeholders: [] }];
  for (const part of parts) {
    if ('text' in part) {
      const pieces = part.text.split('/');
      segments[segments.length - 1]!.text += pieces[0];
      for (const piece of pieces.slice(1)) segments.push({ text: piece, placeholders: [] });
    } else {
      const value = scalarString(placeholderValue(part.placeholder, part.raw, env), part.raw, 'path');
      checkPathValue(value, part.raw);
      let encoded: string;
      try {
        encoded = encodeURIComponent(value);
      } catch {
        return refuse(part.raw, 'URL path', 'is not well-formed Unicode');
      }
      const seg = segments[segments.length - 1]!;
      seg.text += encoded;
      seg.placeholders.push(part.raw);
    }
  }
  for (const seg of segments) {
    if (!seg.placeholders.length) continue;
    for (const form of decodedForms(seg.text)) {
      if (isDotOrEmpty(form)) refuse(seg.placeholders.join(', '), 'URL path', "makes an empty, '.' or '..' segment: refused");
    }
  }
  return { path: segments.map((s) => s.text).join('/'), segments: segments.length };
}

/** x-www-form-urlencoded encoding of one string (as URLSearchParams writes it). */
export function formEncode(s: string): string {
  return new URLSearchParams([['', s]]).toString().slice(1);
}

/** Interpolates a template into a plain string for a URL part or header (no encoding). */
export function renderPlain(template: string, env: RenderEnv, part: UrlPart, field: string): string {
  let out = '';
  for (const p of parseOrRefuse(template, field)) {
    out += 'text' in p ? p.text : scalarString(placeholderValue(p.placeholder, p.raw, env), p.raw, part);
  }
  return out;
}

/**
 * Renders the query string of a URL template (without the leading `?`): literal text is kept
 * as written, each placeholder value is form-encoded. Keys may not hold placeholders.
 */
export function renderUrlQuery(queryTemplate: string, env: RenderEnv): string {
  if (!queryTemplate) return '';
  return queryTemplate
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) {
        if (pair.includes('${')) throw new AppError('VALIDATION_FAILED', `http.urlTemplate: placeholders may not stand in a query key: '${pair}'`, { field: 'http.urlTemplate' });
        return pair;
      }
      const key = pair.slice(0, eq);
      if (key.includes('${')) throw new AppError('VALIDATION_FAILED', `http.urlTemplate: placeholders may not stand in a query key: '${key}'`, { field: 'http.urlTemplate' });
      let value = '';
      if (isOmitted(pair.slice(eq + 1), env, 'http.urlTemplate')) return '';
      for (const p of parseOrRefuse(pair.slice(eq + 1), 'http.urlTemplate')) {
        value += 'text' in p ? p.text : formEncode(scalarString(placeholderValue(p.placeholder, p.raw, env), p.raw, 'query'));
      }
      return `${key}=${value}`;
    })
    .filter((pair) => pair !== '')
    .join('&');
}

/** A header value: interpolated, then refused if it holds control characters or is too long. */
export function renderHeaderValue(name: string, template: string, env: RenderEnv): string {
  const value = renderPlain(template, env, 'header', `http.headers.${name}`);
  checkHeaderValue(name, value);
  return value;
}

/** Refuses a header value that could split the header or that undici would refuse. */
export function checkHeaderValue(name: string, value: string): void {
  if (/[^\t\x20-\x7e]/.test(value)) {
    throw new AppError(
      'VALIDATION_FAILED',
      `the value of header '${name}' contains a control character (CR, LF, NUL, ...) or a non-ASCII character: refused; percent-encode it or send it in the body`,
      { header: name },
    );
  }
  if (value.length > MAX_HEADER_VALUE_BYTES) {
    throw new AppError('VALIDATION_FAILED', `the value of header '${name}' is ${value.length} bytes; the limit is ${MAX_HEADER_VALUE_BYTES}`, { header: name });
  }
}

/** A text body (or a form field): interpolation, objects written as JSON; an optional placeholder not given is ''. */
export function renderText(template: string, env: RenderEnv, field: string): string {
  let out = '';
  for (const p of parseOrRefuse(template, field)) {
    if ('text' in p) out += p.text;
    else if (!optionalMissing(p.placeholder, env, false)) out += textString(placeholderValue(p.placeholder, p.raw, env));
  }
  return out;
}

/** Marks a JSON template value left out (an optional placeholder not given). */
const OMIT = Symbol('omit');

/**
 * A JSON body: walks the template; a string that is exactly one placeholder becomes the
 * argument's JSON value (a secret stays a string), any other string is interpolated.
 * Object keys are literal.
 */
export function renderJson(template: unknown, env: RenderEnv): unknown {
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > 256) throw new AppError('VALIDATION_FAILED', 'http.body.template is nested too deeply', { field: 'http.body.template' });
    if (typeof v === 'string') {
      const parts = parseOrRefuse(v, 'http.body.template');
      if (parts.some((p) => 'placeholder' in p && optionalMissing(p.placeholder, env, false))) return OMIT;
      const only = parts.length === 1 ? parts[0] : undefined;
      if (only && 'placeholder' in only) return structuredClone(placeholderValue(only.placeholder, only.raw, env));
      return renderText(v, env, 'http.body.template');
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1)).filter((x) => x !== OMIT);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const value = walk(x, depth + 1);
        if (value !== OMIT) Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return v;
  };
  const out = walk(template, 0);
  return out === OMIT ? undefined : out;
}

// ---- the whole URL -----------------------------------------------------------------------

const URL_TEMPLATE = /^(https?):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/;

/** The literal origin of a URL template: where the request goes, known before any value is rendered. */
export interface TemplateOrigin {
  /** e.g. `https://api.example.com:8443` */
  origin: string;
  /** Lowercase host name as URL.hostname gives it (IPv6 in brackets), no port, one trailing dot dropped: the host secrets are resolved for. */
  hostname: string;
  /** host[:port] */
  host: string;
  pathTemplate: string;
  queryTemplate: string;
}

/** URL.hostname without one trailing dot (`example.com.` is `example.com`), as the allowed hosts compare it. */
export function normalHostname(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

/** Splits a URL template and checks its authority is literal; VALIDATION_FAILED otherwise. */
export function templateOrigin(urlTemplate: string): TemplateOrigin {
  const field = 'http.urlTemplate';
  const m = URL_TEMPLATE.exec(urlTemplate);
  if (!m) throw new AppError('VALIDATION_FAILED', 'urlTemplate must start with http:// or https://', { field });
  const [, scheme, authority = '', path = '', query = ''] = m;
  if (authority.includes('${') || authority.includes('$')) {
    throw new AppError('VALIDATION_FAILED', 'placeholders may not stand in the scheme, user info, host or port; put them in the path or the query', { field });
  }
  if (authority.includes('@')) throw new AppError('VALIDATION_FAILED', 'user info (user:password@) is not allowed in the URL; use the auth settings', { field });
  const variables = serverVariablesIn(urlTemplate);
  if (variables.length) {
    throw new AppError('VALIDATION_FAILED', `the URL still holds the server variable ${variables.map((v) => `{${v}}`).join(', ')}: fill it in (e.g. your own domain) in the tool's URL`, { field, variables });
  }
  let base: URL;
  try {
    base = new URL(`${scheme}://${authority}/`);
  } catch {
    throw new AppError('VALIDATION_FAILED', `'${authority}' is not a valid host`, { field });
  }
  if (!base.hostname) throw new AppError('VALIDATION_FAILED', 'the URL needs a host', { field });
  return { origin: base.origin, hostname: normalHostname(base.hostname), host: base.host, pathTemplate: path, queryTemplate: query };
}

/**
 * Renders a URL template and the spec's `query` map into the URL to request (no fragment:
 * fragments are never sent). Checks the result still has the template's origin, no user
 * info, and exactly the path segments the template has; refuses URLs over MAX_URL_BYTES.
 */
export function renderUrl(urlTemplate: string, query: Record<string, string>, env: RenderEnv, queryEncoding?: Record<string, FormEncoding>): string {
  const t = templateOrigin(urlTemplate);
  const { path, segments } = t.pathTemplate ? renderPath(t.pathTemplate, env) : { path: '/', segments: 2 };
  const pairs: string[] = [];
  const inline = renderUrlQuery(t.queryTemplate, env);
  if (inline) pairs.push(inline);
  for (const [key, template] of Object.entries(query)) {
    const field = `http.query.${key}`;
    if (isOmitted(template, env, field)) continue;
    const enc = queryEncoding && Object.hasOwn(queryEncoding, key) ? queryEncoding[key] : undefined;
    if (!enc) {
      pairs.push(`${formEncode(key)}=${formEncode(renderPlain(template, env, 'query', field))}`);
      continue;
    }
    // An array or object written with its style; every value checked as a query value is.
    const parts = parseOrRefuse(template, field);
    const raw = parts.length === 1 && 'placeholder' in parts[0]! ? parts[0].raw : template;
    for (const [k, v] of styledPairs(key, fieldValue(template, env, field), enc)) pairs.push(`${formEncode(k)}=${formEncode(scalarString(v, raw, 'query'))}`);
  }
  const text = `${t.origin}${path}${pairs.length ? `?${pairs.join('&')}` : ''}`;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'the rendered URL is not valid', { field: 'http.urlTemplate' });
  }
  if (u.origin !== t.origin || u.username || u.password || u.hash) {
    throw new AppError('VALIDATION_FAILED', 'the rendered URL would change the destination: refused', { field: 'http.urlTemplate' });
  }
  if (u.pathname.split('/').length !== segments) {
    throw new AppError('VALIDATION_FAILED', "the rendered URL's path has a different number of segments than the template (a '.', '..' or '\\' in the template?): refused", {
      field: 'http.urlTemplate',
    });
  }
  const bytes = Buffer.byteLength(u.href);
  if (bytes > MAX_URL_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `the URL would be ${bytes} bytes; the limit is ${MAX_URL_BYTES}: send large values in the body`, { field: 'http.urlTemplate', bytes, limit: MAX_URL_BYTES });
  }
  return u.href;
}
