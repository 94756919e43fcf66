/** API key auth: the secret in a header (`in: 'header'`) or a query parameter (`in: 'query'`). */
import { AppError } from '../../../../../shared/errors';
import type { HttpAuth } from '../../../../../shared/model/http-spec';
import { checkHeaderValue, formEncode, MAX_URL_BYTES } from '../template';
import { checkHeaderName, secretFor, withHeader, type AuthContext, type AuthRequest } from './common';

export function applyApiKey(auth: Extract<HttpAuth, { kind: 'apiKey' }>, req: AuthRequest, ctx: AuthContext): AuthRequest {
  const value = secretFor(ctx, auth.secret);
  if (auth.in === 'header') {
    checkHeaderName(auth.name, 'http.auth.name');
    checkSecretHeader(auth.name, value, auth.secret);
    ctx.sensitive.addHeaderName(auth.name);
    ctx.sensitive.carried.header(auth.secret, auth.name);
    return withHeader(req, auth.name, value);
  }
  if (/[\r\n\0]/.test(value)) throw new AppError('VALIDATION_FAILED', `the secret '${auth.secret}' contains CR, LF or NUL and cannot be sent`, { secret: auth.secret });
  const u = new URL(req.url);
  const pair = `${formEncode(auth.name)}=${formEncode(value)}`;
  const url = `${u.origin}${u.pathname}${u.search ? `${u.search}&` : '?'}${pair}`;
  if (Buffer.byteLength(url) > MAX_URL_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `the URL with the API key would be over ${MAX_URL_BYTES} bytes`, { limit: MAX_URL_BYTES });
  return { ...req, url };
}

/** checkHeaderValue, with a message that names the secret, not its value. */
export function checkSecretHeader(header: string, value: string, secretName: string): void {
  try {
    checkHeaderValue(header, value);
  } catch {
    throw new AppError('VALIDATION_FAILED', `the secret '${secretName}' cannot be sent in the '${header}' header: it holds control or non-ASCII characters, or is too long`, {
      secret: secretName,
      header,
    });
  }
}
