/**
 * OAuth2 access tokens for HTTP tools: the client credentials grant and the refresh token
 * grant (RFC 6749 §4.4 and §6), sent as `Authorization: Bearer <access token>`.
 *
 * - The token endpoint is called through the same Transport and allowed hosts as the tool
 *   (no redirects followed, at most 64 KiB of answer). Secrets (client secret, refresh token)
 *   are resolved for the token endpoint's host.
 * - Client authentication: with a client secret, HTTP Basic of the form-encoded client id and
 *   secret (RFC 6749 §2.3.1); without one (a public client), `client_id` in the form body.
 * - Tokens are cached by tokenUrl + clientId + scope + grant, and fetched again shortly
 *   before they expire (60 s, or a tenth of their lifetime when that is shorter). With no
 *   `expires_in` a token is kept for an hour (a 401 refreshes it sooner).
 * - A 401 from the API refreshes the token once (see executeHttpTool).
 * - When the server rotates the refresh token, the new one is kept in memory in the cache
 *   and used for the next refresh; the stored secret cannot be rewritten from here.
 * - Concurrent calls share one token request.
 */
import { AppError, isAppError, type ErrorCode } from '../../../../../shared/errors';
import type { HttpAuth } from '../../../../../shared/model/http-spec';
import type { AllowedHosts, SecretResolver, Transport } from '../../types';
import type { Sensitive } from '../request';
import { formEncode, normalHostname } from '../template';
import { withHeader, type AuthRequest } from './common';

export type OAuth2Auth = Extract<HttpAuth, { kind: 'oauth2' }>;

export const TOKEN_RESPONSE_MAX_BYTES = 64 * 1024;
export const DEFAULT_TOKEN_LIFETIME_MS = 3600_000;
export const DEFAULT_REFRESH_SKEW_MS = 60_000;

export interface OAuth2Deps {
  transport: Transport;
  allowedHosts: AllowedHosts;
  secrets: SecretResolver;
  sensitive: Sensitive;
  signal: AbortSignal;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Time the token request may take. */
  timeoutMs: number;
}

interface CachedToken {
  accessToken: string;
  obtainedAt: number;
  expiresAt: number;
  /** A refresh token the server handed out (rotation), used instead of the stored one. */
  refreshToken?: string;
}

export class OAuth2TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<CachedToken>>();
  private readonly skewMs: number;

  constructor(opts: { skewMs?: number } = {}) {
    this.skewMs = opts.skewMs ?? DEFAULT_REFRESH_SKEW_MS;
  }

  static key(auth: OAuth2Auth): string {
    return JSON.stringify([auth.tokenUrl, auth.clientId, auth.scope ?? '', auth.grant]);
  }

  /**
   * A valid access token: the cached one while it is fresh, else a new one. `rejected` is a
   * token the API just refused (401): unless another call already replaced it, a new one is
   * fetched regardless of its expiry.
   */
  async accessToken(auth: OAuth2Auth, deps: OAuth2Deps, opts: { rejected?: string } = {}): Promise<string> {
    const key = OAuth2TokenCache.key(auth);
    const cached = this.tokens.get(key);
    if (cached) {
      deps.sensitive.add(cached.accessToken);
      if (cached.refreshToken) deps.sensitive.add(cached.refreshToken);
      const lifetime = cached.expiresAt - cached.obtainedAt;
      const fresh = deps.now() < cached.expiresAt - Math.min(this.skewMs, lifetime / 10);
      if (opts.rejected !== undefined ? cached.accessToken !== opts.rejected : fresh) return cached.accessToken;
    }
    for (;;) {
      let pending = this.inflight.get(key);
      const mine = !pending;
      if (!pending) {
        pending = fetchToken(auth, deps, this.tokens.get(key)?.refreshToken).finally(() => this.inflight.delete(key));
        this.inflight.set(key, pending);
      }
      try {
        const token = await pending;
        this.tokens.set(key, token);
        deps.sensitive.add(token.accessToken);
        if (token.refreshToken) deps.sensitive.add(token.refreshToken);
        return token.accessToken;
      } catch (e) {
        // Another call's request was cancelled by its caller: ask again for ourselves.
        if (!mine && isAppError(e) && e.code === 'CANCELLED' && !deps.signal.aborted) continue;
        throw e;
      }
    }
  }

  /** Forgets every token (e.g. when secrets change). */
  clear(): void {
    this.tokens.clear();
  }
}

/** The cache shared by HTTP tools when the caller gives none. */
export const defaultTokenCache = new OAuth2TokenCache();

export async function applyOAuth2(auth: OAuth2Auth, req: AuthRequest, deps: OAuth2Deps, cache: OAuth2TokenCache, rejected?: string): Promise<{ req: AuthRequest; token: string }> {
  const token = await cache.accessToken(auth, deps, rejected !== undefined ? { rejected } : {});
  return { req: withHeader(req, 'Authorization', `Bearer ${token}`), token };
}

/** One request to the token endpoint. */
export async function fetchToken(auth: OAuth2Auth, deps: OAuth2Deps, rotatedRefreshToken?: string): Promise<CachedToken> {
  const field = 'http.auth.tokenUrl';
  let u: URL;
  try {
    u = new URL(auth.tokenUrl);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'the OAuth2 token URL is not a valid URL', { field });
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password) {
    throw new AppError('VALIDATION_FAILED', 'the OAuth2 token URL must be http(s) and carry no user info', { field });
  }
  const secret = (name: string) => {
    const v = deps.secrets.resolve(name, normalHostname(u.hostname));
    deps.sensitive.add(v);
    return v;
  };

  const form: [string, string][] = [['grant_type', auth.grant]];
  if (auth.grant === 'refresh_token') {
    if (!auth.refreshTokenSecret) throw new AppError('VALIDATION_FAILED', 'OAuth2 with the refresh_token grant needs refreshTokenSecret', { field: 'http.auth.refreshTokenSecret' });
    form.push(['refresh_token', rotatedRefreshToken ?? secret(auth.refreshTokenSecret)]);
  } else if (!auth.clientSecret) {
    throw new AppError('VALIDATION_FAILED', 'OAuth2 with the client_credentials grant needs clientSecret', { field: 'http.auth.clientSecret' });
  }
  if (auth.scope) form.push(['scope', auth.scope]);
  let headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
  if (auth.clientSecret) {
    const credentials = Buffer.from(`${formEncode(auth.clientId)}:${formEncode(secret(auth.clientSecret))}`).toString('base64');
    deps.sensitive.add(credentials);
    headers = withHeader({ method: 'POST', url: auth.tokenUrl, headers }, 'Authorization', `Basic ${credentials}`).headers;
  } else {
    form.push(['client_id', auth.clientId]);
  }
  const body = new TextEncoder().encode(form.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&'));

  const res = await deps.transport.send(
    { method: 'POST', url: u.href, headers, body, timeoutMs: deps.timeoutMs, maxRedirects: 0, maxResponseBytes: TOKEN_RESPONSE_MAX_BYTES, signal: deps.signal },
    deps.allowedHosts,
  );
  const text = new TextDecoder().decode(res.body);
  const contentType = Object.entries(res.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  let fields: Record<string, unknown> = {};
  try {
    if (/x-www-form-urlencoded/i.test(contentType)) fields = Object.fromEntries(new URLSearchParams(text));
    else {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) fields = parsed as Record<string, unknown>;
    }
  } catch {
    fields = {};
  }
  const str = (k: string) => (typeof fields[k] === 'string' ? (fields[k] as string) : undefined);
  // Whatever the endpoint sent back is sensitive until proven otherwise.
  for (const k of ['access_token', 'refresh_token', 'id_token']) {
    const v = str(k);
    if (v) deps.sensitive.add(v);
  }

  if (res.status < 200 || res.status > 299) {
    const code: ErrorCode = res.status === 429 ? 'RATE_LIMITED' : res.status >= 500 ? 'UNAVAILABLE' : 'UNAUTHORIZED';
    const reason = [str('error'), str('error_description')]
      .filter(Boolean)
      .map((s) => deps.sensitive.redact(s!).slice(0, 200))
      .join(': ');
    throw new AppError(code, `the OAuth2 token endpoint ${u.host} answered ${res.status}${reason ? ` (${reason})` : ''}`, {
      tokenStatus: res.status,
      ...(reason ? { reason } : {}),
    });
  }
  const accessToken = str('access_token');
  if (!accessToken) throw new AppError('UNAVAILABLE', `the OAuth2 token endpoint ${u.host} answered ${res.status} without an access_token`, { tokenStatus: res.status });
  if (!/^[\x21-\x7e]+$/.test(accessToken) || accessToken.length > 8192) {
    throw new AppError('UNAVAILABLE', `the OAuth2 token endpoint ${u.host} returned an access token that cannot be sent in a header`, { tokenStatus: res.status });
  }
  const tokenType = str('token_type');
  if (tokenType !== undefined && tokenType.toLowerCase() !== 'bearer') {
    throw new AppError('UNAVAILABLE', `the OAuth2 token endpoint ${u.host} returned a '${tokenType.slice(0, 40)}' token; only bearer tokens are supported`, { tokenStatus: res.status });
  }
  const expiresIn = Number(fields['expires_in']);
  const lifetime = Number.isFinite(expiresIn) && expiresIn > 0 ? Math.min(expiresIn * 1000, 365 * 86_400_000) : DEFAULT_TOKEN_LIFETIME_MS;
  const obtainedAt = deps.now();
  const refreshToken = str('refresh_token') ?? rotatedRefreshToken;
  return { accessToken, obtainedAt, expiresAt: obtainedAt + lifetime, ...(refreshToken ? { refreshToken } : {}) };
}
