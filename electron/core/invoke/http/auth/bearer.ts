/** Bearer auth: `Authorization: Bearer <secret>`. */
import type { HttpAuth } from '../../../../../shared/model/http-spec';
import { checkSecretHeader } from './api-key';
import { secretFor, withHeader, type AuthContext, type AuthRequest } from './common';

export function applyBearer(auth: Extract<HttpAuth, { kind: 'bearer' }>, req: AuthRequest, ctx: AuthContext): AuthRequest {
  const token = secretFor(ctx, auth.secret);
  const value = `Bearer ${token}`;
  checkSecretHeader('Authorization', value, auth.secret);
  ctx.sensitive.carried.header(auth.secret, 'Authorization');
  return withHeader(req, 'Authorization', value);
}
