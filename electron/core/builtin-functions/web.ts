/**
 * The `web` bundle: fetch_url, an HTTP GET through the same safe transport and host rules
 * as HTTP tools (ctx.transport with ctx.allowedHosts()): the allowlist on the URL and on
 * every redirect, private addresses refused at DNS time, bounded bytes and time.
 *
 * The body is cut at maxBytes and marked truncated. The transport is asked for
 * maxBytes + 1 bytes: one that returns a capped body shows whether there was more; one that
 * refuses a larger body with PAYLOAD_TOO_LARGE is asked once more, streaming, with a
 * larger ceiling (FETCH_HARD_MAX_BYTES), of which only the first maxBytes + 1 are kept.
 *
 * Text (text/*, JSON, XML, JavaScript, form data, or no content type) is decoded with the
 * charset the response names (UTF-8 when none or unknown); anything else is returned as
 * base64 with encoding: 'base64'.
 */
import { TextDecoder } from 'node:util';
import { AppError, isAppError } from '../../../shared/errors';
import type { LocalFunction, TransportRequest, TransportResponse } from '../invoke/types';
import { argsOf, checkAborted, intArg, optString, q, reqString } from '../lib/args';
import { utf8CutBefore } from '../lib/utf8';

const MiB = 1024 * 1024;
export const FETCH_DEFAULT_MAX_BYTES = MiB;
export const FETCH_MAX_BYTES = 10 * MiB;
/** The ceiling of the streaming retry: a body larger than this is refused. */
export const FETCH_HARD_MAX_BYTES = 32 * MiB;
export const FETCH_DEFAULT_TIMEOUT_MS = 15_000;
export const FETCH_MAX_TIMEOUT_MS = 60_000;
export const FETCH_MAX_REDIRECTS = 5;
const USER_AGENT = 'Toolsmith fetch_url';

function header(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return v;
  return undefined;
}

function isTextual(contentType: string): boolean {
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  if (t === '') return true;
  return (
    t.startsWith('text/') ||
    t.endsWith('+json') ||
    t.endsWith('+xml') ||
    ['application/json', 'application/xml', 'application/javascript', 'application/ecmascript', 'application/x-javascript', 'application/x-www-form-urlencoded', 'application/x-ndjson', 'application/yaml', 'application/x-yaml', 'application/toml', 'image/svg+xml'].includes(t)
  );
}

function charsetOf(contentType: string): string {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return m ? m[1]!.toLowerCase() : 'utf-8';
}

/** The body as text or base64; a cut UTF-8 body loses its incomplete last character (and `bytes` says so). */
function decode(body: Uint8Array, contentType: string, cut: boolean): { text: string; encoding: 'text' | 'base64'; bytes: number } {
  if (!isTextual(contentType)) return { text: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'), encoding: 'base64', bytes: body.length };
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charsetOf(contentType), { fatal: false });
  } catch {
    decoder = new TextDecoder('utf-8', { fatal: false });
  }
  const bytes = cut && decoder.encoding === 'utf-8' ? body.subarray(0, utf8CutBefore(body, body.length)) : body;
  return { text: decoder.decode(bytes), encoding: 'text', bytes: bytes.length };
}

function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('VALIDATION_FAILED', `${q(raw)} is not an absolute URL: give one such as https://example.com/page`, { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('VALIDATION_FAILED', `only http and https URLs can be fetched: got ${q(url.protocol)}`, { field: 'url' });
  }
  if (url.username || url.password) {
    throw new AppError('VALIDATION_FAILED', 'the URL must not carry a user name or password', { field: 'url' });
  }
  url.hash = '';
  return url.toString();
}

function makeFetchUrl(): LocalFunction {
  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    const url = checkUrl(reqString(args, 'url', 8192));
    const maxBytes = intArg(args, 'maxBytes', 1, FETCH_MAX_BYTES, FETCH_DEFAULT_MAX_BYTES);
    const timeoutMs = intArg(args, 'timeoutMs', 100, FETCH_MAX_TIMEOUT_MS, FETCH_DEFAULT_TIMEOUT_MS);
    const accept = optString(args, 'accept', 256) ?? 'text/html, application/json;q=0.9, text/*;q=0.8, */*;q=0.5';
    if (/[\r\n]/.test(accept)) throw new AppError('VALIDATION_FAILED', 'accept must be one line', { field: 'accept' });
    if (!ctx?.transport || typeof ctx.allowedHosts !== 'function') throw new AppError('UNAVAILABLE', 'no HTTP transport is available to local tools');
    const signals = [ctx.signal, signal].filter((s): s is AbortSignal => s instanceof AbortSignal);
    const sig = signals.length === 0 ? new AbortController().signal : signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
    checkAborted(sig);
    const request = (maxResponseBytes: number): TransportRequest => ({
      method: 'GET',
      url,
      headers: { accept, 'user-agent': USER_AGENT },
      timeoutMs,
      maxRedirects: FETCH_MAX_REDIRECTS,
      maxResponseBytes,
      signal: sig,
    });

    let meta: Omit<TransportResponse, 'body'>;
    let body: Uint8Array;
    try {
      const r = await ctx.transport.send(request(maxBytes + 1), ctx.allowedHosts());
      meta = r;
      body = r.body;
    } catch (e) {
      if (!(isAppError(e) && e.code === 'PAYLOAD_TOO_LARGE')) throw e;
      // This transport refuses over-long bodies rather than capping them: stream, keep the head.
      const chunks: Uint8Array[] = [];
      let kept = 0;
      try {
        meta = await ctx.transport.stream(request(Math.max(FETCH_HARD_MAX_BYTES, maxBytes + 1)), ctx.allowedHosts(), (chunk) => {
          if (kept > maxBytes) return;
          const part = chunk.subarray(0, maxBytes + 1 - kept);
          chunks.push(part);
          kept += part.length;
        });
      } catch (e2) {
        if (isAppError(e2) && e2.code === 'PAYLOAD_TOO_LARGE') {
          throw new AppError('PAYLOAD_TOO_LARGE', `the response is larger than ${FETCH_HARD_MAX_BYTES / MiB} MiB: fetch_url reads at most that much`);
        }
        throw e2;
      }
      body = Buffer.concat(chunks);
    }
    const truncated = body.length > maxBytes;
    const contentType = header(meta.headers, 'content-type') ?? '';
    const { text, encoding, bytes } = decode(truncated ? body.subarray(0, maxBytes) : body, contentType, truncated);
    return {
      url,
      finalUrl: meta.finalUrl || url,
      status: meta.status,
      contentType,
      encoding,
      text,
      bytes,
      truncated,
    };
  };
}

export function createWebFunctions(): Record<'fetch-url', LocalFunction> {
  return { 'fetch-url': makeFetchUrl() };
}
