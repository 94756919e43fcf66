/**
 * Form and multipart bodies of an HTTP tool.
 *
 * - Form (application/x-www-form-urlencoded): each field is rendered from its template; a
 *   field holding an optional placeholder that was not given (or is null) is left out. A
 *   field with an `encoding` entry whose template is exactly one placeholder writes an array
 *   or object the OpenAPI way (`style`/`explode`, see FormEncodingSchema): `deepObject` as
 *   `name[key]=v` and `name[0][key]=v` at any depth, `form` exploded as one pair per item,
 *   not exploded as `name=a,b`, `spaceDelimited` / `pipeDelimited` joined by ' ' or '|'.
 * - Multipart (multipart/form-data, RFC 7578): one part per field, in the fields' order. A
 *   file field takes text (sent as UTF-8) or `{ base64, filename?, contentType? }`, or an
 *   array of them (one part each). Names and file names are escaped as browsers do (`"`,
 *   CR and LF percent-encoded).
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../../../../shared/errors';
import type { FormEncoding, HttpBody } from '../../../../shared/model/http-spec';
import { formEncode, isOmitted, parseOrRefuse, placeholderValue, renderText, textString, type RenderEnv } from './template';

type FormBody = Extract<HttpBody, { kind: 'form' }>;
type MultipartBody = Extract<HttpBody, { kind: 'multipart' }>;

/** Levels of a deepObject value written at most. */
const MAX_DEPTH = 32;

/** The argument's own value when the template is exactly one placeholder; otherwise its rendered text. */
function fieldValue(template: string, env: RenderEnv, field: string): unknown {
  const parts = parseOrRefuse(template, field);
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only && 'placeholder' in only) return placeholderValue(only.placeholder, only.raw, env);
  return renderText(template, env, field);
}

/** `[name, value]` pairs for one field written with an OpenAPI style. */
export function styledPairs(name: string, value: unknown, enc: FormEncoding): [string, string][] {
  if (value === null || typeof value !== 'object') return [[name, textString(value)]];
  if (enc.style === 'deepObject') {
    const out: [string, string][] = [];
    const walk = (prefix: string, v: unknown, depth: number) => {
      if (depth > MAX_DEPTH) throw new AppError('VALIDATION_FAILED', `the form field '${name}' is nested too deeply`, { field: `http.body.fields.${name}` });
      if (v === null || typeof v !== 'object') out.push([prefix, textString(v)]);
      else if (Array.isArray(v)) v.forEach((x, i) => walk(`${prefix}[${i}]`, x, depth + 1));
      else for (const [k, x] of Object.entries(v)) walk(`${prefix}[${k}]`, x, depth + 1);
    };
    walk(name, value, 0);
    return out;
  }
  const item = (x: unknown) => (x !== null && typeof x === 'object' ? JSON.stringify(x) : textString(x));
  const delimiter = enc.style === 'spaceDelimited' ? ' ' : enc.style === 'pipeDelimited' ? '|' : ',';
  if (Array.isArray(value)) {
    if (enc.style === 'form' && enc.explode) return value.map((x) => [name, item(x)]);
    return [[name, value.map(item).join(delimiter)]];
  }
  const entries = Object.entries(value);
  if (enc.style === 'form' && enc.explode) return entries.map(([k, x]) => [k, item(x)]);
  return [[name, entries.flatMap(([k, x]) => [k, item(x)]).join(delimiter)]];
}

/** The x-www-form-urlencoded text of a form body. */
export function renderForm(body: FormBody, env: RenderEnv): string {
  const pairs: [string, string][] = [];
  for (const [name, template] of Object.entries(body.fields)) {
    const field = `http.body.fields.${name}`;
    if (isOmitted(template, env, field)) continue;
    const enc = body.encoding && Object.hasOwn(body.encoding, name) ? body.encoding[name] : undefined;
    if (enc) pairs.push(...styledPairs(name, fieldValue(template, env, field), enc));
    else pairs.push([name, renderText(template, env, field)]);
  }
  return pairs.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&');
}

/** A name or file name inside a Content-Disposition header, escaped as browsers do. */
function dispositionValue(s: string): string {
  return s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

interface FilePart {
  bytes: Uint8Array;
  filename: string;
  contentType: string;
}

const BASE64 = /^[A-Za-z0-9+/\s_-]*={0,2}\s*$/;

function fileOf(name: string, v: unknown): FilePart {
  if (typeof v === 'string') return { bytes: new TextEncoder().encode(v), filename: name, contentType: 'application/octet-stream' };
  const field = `http.body.fields.${name}`;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o.base64 !== 'string' || !BASE64.test(o.base64)) {
      throw new AppError('VALIDATION_FAILED', `the file '${name}' needs its bytes as base64 in 'base64' (or give its text as a string)`, { field });
    }
    const filename = typeof o.filename === 'string' && o.filename !== '' ? o.filename : name;
    const contentType = typeof o.contentType === 'string' && o.contentType !== '' ? o.contentType : 'application/octet-stream';
    if (/[^\t\x20-\x7e]/.test(contentType) || contentType.length > 256) throw new AppError('VALIDATION_FAILED', `the content type of the file '${name}' is not a valid header value`, { field });
    return { bytes: Buffer.from(o.base64, 'base64'), filename, contentType };
  }
  throw new AppError('VALIDATION_FAILED', `the file '${name}' must be its text or { base64, filename?, contentType? }`, { field });
}

/** The bytes and Content-Type (with its boundary) of a multipart body. */
export function renderMultipart(body: MultipartBody, env: RenderEnv): { bytes: Uint8Array; contentType: string } {
  const boundary = `----ToolsmithBoundary${randomBytes(12).toString('hex')}`;
  const chunks: Uint8Array[] = [];
  const head = (text: string) => chunks.push(Buffer.from(text, 'utf8'));
  const files = new Set(body.files);
  for (const [name, template] of Object.entries(body.fields)) {
    const field = `http.body.fields.${name}`;
    if (isOmitted(template, env, field)) continue;
    const value = fieldValue(template, env, field);
    const n = dispositionValue(name);
    if (files.has(name)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        const f = fileOf(name, item);
        head(`--${boundary}\r\nContent-Disposition: form-data; name="${n}"; filename="${dispositionValue(f.filename)}"\r\nContent-Type: ${f.contentType}\r\n\r\n`);
        chunks.push(f.bytes);
        head('\r\n');
      }
    } else if (value !== null && typeof value === 'object') {
      head(`--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(value)}\r\n`);
    } else {
      head(`--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${textString(value)}\r\n`);
    }
  }
  head(`--${boundary}--\r\n`);
  return { bytes: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
