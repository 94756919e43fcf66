/** Basic auth (RFC 7617): `Authorization: Basic base64(utf8(username ":" password))`. */
import { AppError } from '../../../../../shared/errors';
import type { HttpAuth } from '../../../../../shared/model/http-spec';
import { secretFor, withHeader, type AuthContext, type AuthRequest } from './common';

export function basicCredentials(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
}

export function applyBasic(auth: Extract<HttpAuth, { kind: 'basic' }>, req: AuthRequest, ctx: AuthContext): AuthRequest {
  if (auth.username.includes(':') || hasControl(auth.username)) {
    throw new AppError('VALIDATION_FAILED', "a Basic auth user name may not contain ':' or control characters", { field: 'http.auth.username' });
  }
  const password = auth.passwordSecret ? secretFor(ctx, auth.passwordSecret) : '';
  if (hasControl(password)) {
    throw new AppError('VALIDATION_FAILED', `the secret '${auth.passwordSecret}' contains control characters and cannot be a Basic auth password`, { secret: auth.passwordSecret });
  }
  // An API key as the user name (usernameSecret), as some APIs take it.
  const username = auth.usernameSecret ? secretFor(ctx, auth.usernameSecret) : auth.username;
  if (auth.usernameSecret && (username.includes(':') || hasControl(username))) {
    throw new AppError('VALIDATION_FAILED', `the secret '${auth.usernameSecret}' contains ':' or control characters and cannot be a Basic auth user name`, { secret: auth.usernameSecret });
  }
  const credentials = basicCredentials(username, password);
  ctx.sensitive.add(credentials);
  for (const name of [auth.passwordSecret, auth.usernameSecret]) if (name) ctx.sensitive.carried.header(name, 'Authorization');
  return withHeader(req, 'Authorization', `Basic ${credentials}`);
}

function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
