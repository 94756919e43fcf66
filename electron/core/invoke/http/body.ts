/**
 * Form and multipart bodies of an HTTP tool.
 *
 * - Form (application/x-www-form-urlencoded): each field is rendered from its template; a
 *   field holding an optional placeholder that was not given (or is null) is left out. A
 *   field with an `encoding` entry whose template is exactly one placeholder writes an array
 *   or object the OpenAPI way (styles.ts).
 * - Multipart (multipart/form-data, RFC 7578): one part per field, in the fields' order. A
 *   file field takes text (sent as UTF-8) or `{ base64, filename?, contentType? }`, or an
 *   array of them (one part each). Names and file names are escaped as browsers do (`"`,
 *   CR and LF percent-encoded).
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../../../../shared/errors';
import type { HttpBody } from '../../../../shared/model/http-spec';
import { fieldValue, styledPairs } from './styles';
import { formEncode, isOmitted, renderText, textString, type RenderEnv } from './template';

type FormBody = Extract<HttpBody, { kind: 'form' }>;
type MultipartBody = Extract<HttpBody, { kind: 'multipart' }>;

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
