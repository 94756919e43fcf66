/**
 * HMAC request signing, as documented on HttpAuthSchema: the HMAC (sha256 or sha512, keyed
 * with the secret's UTF-8 bytes) of
 *
 *     `${METHOD}\n${path-and-query}\n${timestamp}\n${hex sha256 of the body}`
 *
 * where path-and-query is the URL's path and query exactly as sent (percent-encoded, `?`
 * included when there is a query), timestamp the unix time in whole seconds and the body
 * hash that of the empty string when there is no body. The signature goes in `header` (hex
 * or base64), the timestamp in `timestampHeader`. It is computed afresh on each attempt.
 */
import { createHash, createHmac } from 'node:crypto';
import type { HttpAuth } from '../../../../../shared/model/http-spec';
import { checkHeaderName, secretFor, withHeader, type AuthContext, type AuthRequest } from './common';

export function hmacStringToSign(method: string, url: string, timestampSec: number, body: Uint8Array | undefined): string {
  const u = new URL(url);
  const bodyHash = createHash('sha256')
    .update(body ?? new Uint8Array())
    .digest('hex');
  return `${method.toUpperCase()}\n${u.pathname}${u.search}\n${timestampSec}\n${bodyHash}`;
}

export function hmacSignature(key: string, algorithm: 'sha256' | 'sha512', encoding: 'hex' | 'base64', stringToSign: string): string {
  return createHmac(algorithm, Buffer.from(key, 'utf8')).update(stringToSign, 'utf8').digest(encoding);
}

export function applyHmac(auth: Extract<HttpAuth, { kind: 'hmac' }>, req: AuthRequest, ctx: AuthContext): AuthRequest {
  checkHeaderName(auth.header, 'http.auth.header');
  checkHeaderName(auth.timestampHeader, 'http.auth.timestampHeader');
  const key = secretFor(ctx, auth.secret);
  const timestamp = Math.floor(ctx.now() / 1000);
  ctx.sensitive.carried.header(auth.secret, auth.header);
  const signature = hmacSignature(key, auth.algorithm, auth.encoding, hmacStringToSign(req.method, req.url, timestamp, req.body));
  return withHeader(withHeader(req, auth.timestampHeader, String(timestamp)), auth.header, signature);
}
