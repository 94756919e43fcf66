/**
 * Applies a tool's auth to a request, afresh on each attempt: API key (header or query),
 * bearer, basic, HMAC signing, OAuth2 (client credentials or refresh token).
 */
import type { HttpAuth } from '../../../../../shared/model/http-spec';
import { applyApiKey } from './api-key';
import { applyBasic } from './basic';
import { applyBearer } from './bearer';
import type { AuthContext, AuthRequest } from './common';
import { applyHmac } from './hmac';
import { applyOAuth2, type OAuth2Deps, type OAuth2TokenCache } from './oauth2';

export type { AuthContext, AuthRequest } from './common';
export { OAuth2TokenCache, defaultTokenCache, type OAuth2Deps } from './oauth2';

export interface ApplyAuthOptions {
  /** Needed for OAuth2 only. */
  oauth2?: { deps: OAuth2Deps; cache: OAuth2TokenCache; rejected?: string };
}

/** The request with auth applied, and the OAuth2 access token used (to refresh it once on a 401). */
export async function applyAuth(auth: HttpAuth, req: AuthRequest, ctx: AuthContext, opts: ApplyAuthOptions = {}): Promise<{ req: AuthRequest; token?: string }> {
  switch (auth.kind) {
    case 'none':
      return { req };
    case 'apiKey':
      return { req: applyApiKey(auth, req, ctx) };
    case 'bearer':
      return { req: applyBearer(auth, req, ctx) };
    case 'basic':
      return { req: applyBasic(auth, req, ctx) };
    case 'hmac':
      return { req: applyHmac(auth, req, ctx) };
    case 'oauth2': {
      if (!opts.oauth2) throw new Error('OAuth2 auth needs a transport and a token cache');
      return applyOAuth2(auth, req, opts.oauth2.deps, opts.oauth2.cache, opts.oauth2.rejected);
    }
  }
}
