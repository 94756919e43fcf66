/**
 * OAuth 2.1 for Streamable HTTP servers, through the SDK's auth support (discovery, dynamic
 * client registration, PKCE, refresh): the registered client and the tokens are kept in the
 * secret store, bound to the server's host (and the authorization server's, which the refresh
 * token goes to); the person signs in in their browser and the answer comes back to a
 * loopback listener on 127.0.0.1.
 *
 * The answer is taken only when it is the answer to our own sign-in: the authorization URL
 * carries a random `state` (RFC 6749 §10.12) and an answer without that very state is refused
 * with a page that says so, its code never exchanged (a page elsewhere cannot make the app
 * sign in to an account of its choosing). The listener also refuses a request whose Host is
 * not the address it listens on, or that comes with another site's Origin (DNS rebinding: a
 * site whose name resolves to 127.0.0.1 cannot talk to it).
 *
 * The authorization server is held to what it says it is: its metadata must name as `issuer`
 * the URL it was fetched for (RFC 8414 §3.3), else it is not used at all (nothing registered);
 * and an answer whose `iss` is not that issuer, or that lacks `iss` although the metadata says
 * it is sent (RFC 9207), fails the sign-in with its code never exchanged (a mix-up: the code
 * came from another authorization server). `iss` is compared as a plain string.
 *
 * Scopes: the sign-in asks for the scope the server named (WWW-Authenticate) together with the
 * scopes already granted, so a step-up for one more scope does not lose the others.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import { AppError } from '../../../shared/errors';

export interface OAuthSecrets {
  resolve(name: string, host: string): string;
  set?(name: string, value: string, hosts: readonly string[]): Promise<unknown>;
  delete?(name: string): Promise<unknown>;
}

/** The secrets a server's sign-in is kept in. */
export function oauthSecretNames(bundleId: string): { client: string; tokens: string } {
  const id = bundleId.replace(/-/g, '').slice(-20);
  return { client: `mcp-oauth.${id}.client`, tokens: `mcp-oauth.${id}.tokens` };
}

export interface OAuthDeps {
  bundleId: string;
  /** The MCP server's host (lowercase, no port): the tokens are bound to it. */
  host: string;
  secrets: OAuthSecrets;
  /** Opens the sign-in page in the person's browser; absent: the status names the URL. */
  openUrl?: (url: string) => void | Promise<void>;
  onSignIn: (url: string) => void;
  /**
   * A client registered beforehand (the server's config): used instead of dynamic registration.
   * `secret` names the secret holding the client secret, read for the authorization server's host.
   */
  preRegistered?: { clientId: string; secret?: string; redirectPort?: number };
}

/** How long a sign-in may take before the call that asked for it gives up. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** The issuer the answer to a sign-in must name (`iss`), and whether it must name one at all. */
/** The sign-in's answer: its code, and the issuer it names (RFC 9207), already checked. */
export interface SignInAnswer {
  code: string;
  iss?: string;
}

export interface IssuerCheck {
  issuer: string;
  required: boolean;
}

/** The sign-in failed because the authorization server is not the one it claims to be (details of its AppError). */
export const ISSUER_MISMATCH = 'issuer-mismatch';

/**
 * RFC 8414 §3.3: the metadata's issuer is the URL its well-known address was made from. A root
 * URL with or without its "/" makes the same address (the SDK writes the legacy fallback with it).
 */
function sameIssuer(issuer: string, fetchedFor: string): boolean {
  if (issuer === fetchedFor) return true;
  const root = (u: string) => (/^https?:\/\/[^/?#]+\/$/i.test(u) ? u.slice(0, -1) : u);
  return root(issuer) === root(fetchedFor);
}

function scopeList(scope: string | null | undefined): string[] {
  return (scope ?? '').split(' ').filter(Boolean);
}

export class SecretOAuthProvider implements OAuthClientProvider {
  private verifier = '';
  /** What the answer of the sign-in under way must carry as `iss`, learnt from the authorization server's metadata. */
  private issuerCheck: IssuerCheck | undefined;
  /** The scope the sign-in under way asked for: what its tokens hold when their answer names none (RFC 6749 §5.1). */
  private askedScope: string | undefined;
  /** A client registered during the sign-in under way (forgotten when the authorization server proves untrustworthy). */
  private registeredNow = false;
  /** Off while a sign-in is for more scope: a refresh gives the scopes the token had, never more. */
  private refreshAllowed = true;
  private callback: LoopbackCallback | undefined;
  /** The host of the authorization server of the sign-in under way (a pre-registered client's secret is read for it). */
  private authorizationHost: string | undefined;
  private readonly names: { client: string; tokens: string };
  private readonly hosts = new Set<string>();
  /** What discovery found for the sign-in under way: the SDK reads it back on the code's leg. */
  private discovery: OAuthDiscoveryState | undefined;

  constructor(private readonly deps: OAuthDeps) {
    this.names = oauthSecretNames(deps.bundleId);
    this.hosts.add(deps.host);
  }

  /** The loopback listener, started before the sign-in (its port is in the redirect URL). */
  async listen(): Promise<LoopbackCallback> {
    if (!this.callback) {
      const saved = this.deps.preRegistered ? undefined : this.read<{ redirect_uris?: string[] }>(this.names.client);
      const port = this.deps.preRegistered?.redirectPort ?? (saved?.redirect_uris?.[0] ? Number(new URL(saved.redirect_uris[0]).port) : 0);
      this.callback = await LoopbackCallback.start(port);
    }
    return this.callback;
  }

  close(): void {
    this.callback?.close();
    this.callback = undefined;
  }

  get redirectUrl(): string | undefined {
    return this.callback?.url;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Toolsmith',
      redirect_uris: this.callback ? [this.callback.url] : [],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // SEP-837: a native app (its redirect is a loopback URL), not a web app.
      application_type: 'native',
    } as OAuthClientMetadata;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const pre = this.deps.preRegistered;
    if (!pre) return this.read<OAuthClientInformationMixed>(this.names.client);
    // The secret is read for the authorization server it is sent to (its binding in the secret store says which).
    const secret = pre.secret ? this.deps.secrets.resolve(pre.secret, this.authorizationHost ?? this.deps.host) : undefined;
    return { client_id: pre.clientId, ...(secret ? { client_secret: secret } : {}) };
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    // A client registered beforehand lives in the server's config (its secret in the secret store): nothing to keep.
    if (this.deps.preRegistered) return;
    await this.write(this.names.client, info);
    this.registeredNow = true;
  }

  tokens(): OAuthTokens | undefined {
    const t = this.read<OAuthTokens>(this.names.tokens);
    if (!t || this.refreshAllowed) return t;
    const { refresh_token: _, ...rest } = t;
    return rest;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    // A token answer without `scope` grants what was asked for (a refresh: what the token had).
    const scope = tokens.scope ?? this.askedScope ?? this.read<OAuthTokens>(this.names.tokens)?.scope;
    await this.write(this.names.tokens, scope === undefined ? tokens : { ...tokens, scope });
    this.askedScope = undefined;
    // A fixed redirect port is let go once the sign-in is done: another server may use the same app and port.
    if (this.deps.preRegistered?.redirectPort) this.close();
  }

  /**
   * What the authorization server refused is forgotten, so the next sign-in starts clean: tokens
   * it no longer takes (a revoked refresh token, tokens of another client), or the client itself.
   */
  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'tokens' || scope === 'all') await this.deps.secrets.delete?.(this.names.tokens);
    if ((scope === 'client' || scope === 'all') && !this.deps.preRegistered) await this.deps.secrets.delete?.(this.names.client);
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined;
  }

  /** The scopes the saved tokens hold. */
  grantedScopes(): string[] {
    return scopeList(this.read<OAuthTokens>(this.names.tokens)?.scope);
  }

  /** Runs one step of the SDK's auth; `moreScope`: a sign-in for more scope, which no refresh can give. */
  async run<T>(moreScope: boolean, step: () => Promise<T>): Promise<T> {
    this.registeredNow = false;
    this.refreshAllowed = !moreScope;
    try {
      return await step();
    } finally {
      this.refreshAllowed = true;
    }
  }

  /**
   * The authorization server's metadata, as discovered (before any registration or sign-in):
   * refused when it names another issuer than the one the protected resource's metadata named
   * (RFC 9728) and it was fetched for. A server without that metadata (MCP 2025-03-26, whose own
   * origin stands in for an authorization server) named no issuer, so there is none to hold it to.
   */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    const meta = state.authorizationServerMetadata;
    this.issuerCheck = undefined;
    this.discovery = undefined;
    this.authorizationHost = URL.canParse(state.authorizationServerUrl) ? new URL(state.authorizationServerUrl).hostname.toLowerCase() : undefined;
    if (!meta) {
      this.discovery = state;
      return;
    }
    const named = state.resourceMetadata?.authorization_servers?.includes(state.authorizationServerUrl) === true;
    if (named && !sameIssuer(meta.issuer, state.authorizationServerUrl)) {
      throw new AppError(
        'UNAUTHORIZED',
        `the authorization server's metadata names the issuer '${meta.issuer}', but it was fetched for '${state.authorizationServerUrl}' (RFC 8414 §3.3): it is not used, and the sign-in stops`,
        { reason: ISSUER_MISMATCH },
      );
    }
    const supported = (meta as { authorization_response_iss_parameter_supported?: unknown }).authorization_response_iss_parameter_supported === true;
    this.issuerCheck = { issuer: meta.issuer, required: supported };
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /** A sign-in failed: a client registered in it with an authorization server that proved untrustworthy is forgotten. */
  async signInFailed(e: unknown): Promise<void> {
    this.askedScope = undefined;
    if (this.deps.preRegistered?.redirectPort) this.close();
    if (!this.registeredNow || !(e instanceof AppError) || (e.details as { reason?: unknown } | undefined)?.reason !== ISSUER_MISMATCH) return;
    this.registeredNow = false;
    await this.deps.secrets.delete?.(this.names.client);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    // A step-up keeps what was granted: the scope asked for is the union (SEP-2350).
    const scope = [...new Set([...this.grantedScopes(), ...scopeList(url.searchParams.get('scope'))])];
    if (scope.length > 0) url.searchParams.set('scope', scope.join(' '));
    this.askedScope = url.searchParams.get('scope') ?? undefined;
    // The authorization server gets the refresh token later: the secret may go there too.
    this.hosts.add(url.hostname.toLowerCase());
    this.deps.onSignIn(url.href);
    await this.deps.openUrl?.(url.href);
  }

  /** A new random `state` for the authorization URL; the loopback listener takes only the answer that carries it (and the right `iss`). */
  async state(): Promise<string> {
    return (await this.listen()).newState(this.issuerCheck);
  }

  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new AppError('UNAVAILABLE', 'no sign-in is in progress');
    return this.verifier;
  }

  private read<T>(name: string): T | undefined {
    try {
      return JSON.parse(this.deps.secrets.resolve(name, this.deps.host)) as T;
    } catch {
      return undefined;
    }
  }

  private async write(name: string, value: unknown): Promise<void> {
    if (!this.deps.secrets.set) throw new AppError('UNAVAILABLE', 'the secret store cannot keep the sign-in here');
    await this.deps.secrets.set(name, JSON.stringify(value), [...this.hosts]);
  }
}

/** The page the browser shows for an answer the listener refuses (static text: nothing from the request is shown). */
const REFUSED_PAGE = {
  host: '<p>Refused: this sign-in answer was sent to another address than the one Toolsmith listens on. Go back to Toolsmith and sign in again from there.</p>',
  origin: '<p>Refused: this sign-in answer came from another web site. Go back to Toolsmith and sign in again from there.</p>',
  state: '<p>Refused: this sign-in answer does not belong to the sign-in Toolsmith started (its state does not match), so its code was not used. Go back to Toolsmith and sign in again from there.</p>',
};

/** A one-path listener on 127.0.0.1 for the authorization server's redirect. */
export class LoopbackCallback {
  private waiting: { resolve: (answer: SignInAnswer) => void; reject: (e: Error) => void } | undefined;
  /** The `state` of the sign-in under way; an answer is taken only with it, once. */
  private expectedState: string | undefined;
  /** The `iss` the answer of the sign-in under way must carry. */
  private expectedIssuer: IssuerCheck | undefined;
  /** `127.0.0.1:PORT`: the only Host a request may name. */
  private readonly host: string;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {
    this.host = new URL(url).host;
  }

  static async start(port: number): Promise<LoopbackCallback> {
    const ref: { self?: LoopbackCallback } = {};
    const server = http.createServer((req, res) => ref.self?.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    }).catch((e: NodeJS.ErrnoException) => {
      throw new AppError('UNAVAILABLE', `cannot listen for the sign-in answer on 127.0.0.1:${port} (${e.code ?? e.message})`);
    });
    server.unref();
    ref.self = new LoopbackCallback(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/callback`);
    return ref.self;
  }

  /** A new random state for a sign-in about to start; an answer with an earlier one is refused from now on. */
  newState(issuer?: IssuerCheck): string {
    this.expectedState = randomBytes(32).toString('base64url');
    this.expectedIssuer = issuer;
    return this.expectedState;
  }

  /** Why an answer's `iss` is not the one expected (RFC 9207: a plain string comparison); undefined when it is. */
  private issuerProblem(iss: string | null): string | undefined {
    const want = this.expectedIssuer;
    if (!want) return undefined;
    if (iss === null) return want.required ? `the sign-in answer carries no 'iss' although the authorization server '${want.issuer}' says it sends one (RFC 9207); its code was not used` : undefined;
    if (iss === want.issuer) return undefined;
    return `the sign-in answer names the issuer '${iss}' (its iss), not '${want.issuer}', the authorization server Toolsmith signed in with (RFC 9207: another server's answer); its code was not used`;
  }

  private stateMatches(got: string | null): boolean {
    const want = this.expectedState;
    if (want === undefined || got === null) return false;
    const a = Buffer.from(got);
    const b = Buffer.from(want);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private refuse(res: http.ServerResponse, status: number, why: keyof typeof REFUSED_PAGE): void {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(REFUSED_PAGE[why]);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    // DNS rebinding: a page of another site whose name now resolves to 127.0.0.1 names its own host.
    if ((req.headers.host ?? '').toLowerCase() !== this.host) return this.refuse(res, 421, 'host');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${this.host}`) return this.refuse(res, 403, 'origin');
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    const u = new URL(req.url ?? '/', this.url);
    if (u.pathname !== '/oauth/callback') {
      res.writeHead(404).end();
      return;
    }
    // Only the answer to our own sign-in, once: another one's code is never exchanged, and the waiting sign-in goes on.
    if (!this.stateMatches(u.searchParams.get('state'))) return this.refuse(res, 400, 'state');
    this.expectedState = undefined;
    const error = u.searchParams.get('error');
    // The issuer is checked on an error answer too: another server's words are not shown as this one's.
    const wrongIssuer = this.issuerProblem(u.searchParams.get('iss'));
    this.expectedIssuer = undefined;
    const code = wrongIssuer ? null : u.searchParams.get('code');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    res.end(code ? '<p>Signed in. You can close this window and go back to Toolsmith.</p>' : '<p>Sign-in failed. Go back to Toolsmith for the reason.</p>');
    const iss = u.searchParams.get('iss');
    const answer: SignInAnswer | { error: AppError } = code
      ? { code, ...(iss !== null ? { iss } : {}) }
      : wrongIssuer
        ? { error: new AppError('UNAUTHORIZED', wrongIssuer, { reason: ISSUER_MISMATCH }) }
        : { error: new AppError('UNAUTHORIZED', `the sign-in was refused: ${error ?? 'no code'} ${u.searchParams.get('error_description') ?? ''}`.trim()) };
    // The browser may come back before anyone waits (the page opened and answered at once): kept for nextCode.
    if (!this.waiting) {
      this.early = answer;
      return;
    }
    if ('code' in answer) this.waiting.resolve(answer);
    else this.waiting.reject(answer.error);
    this.waiting = undefined;
  }

  private early: SignInAnswer | { error: AppError } | undefined;

  /** Forgets an answer that came before a new sign-in started. */
  reset(): void {
    this.early = undefined;
  }

  /** The code of the next redirect, or an error when the person refuses or the time is up. */
  nextCode(timeoutMs: number, signal?: AbortSignal): Promise<SignInAnswer> {
    this.waiting?.reject(new AppError('CANCELLED', 'another sign-in started'));
    const early = this.early;
    this.early = undefined;
    if (early) return 'code' in early ? Promise.resolve(early) : Promise.reject(early.error);
    return new Promise<SignInAnswer>((resolve, reject) => {
      const t = setTimeout(() => reject(new AppError('TIMEOUT', `the sign-in was not finished within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      const done = () => {
        clearTimeout(t);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = {
        resolve: (c) => {
          done();
          resolve(c);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
    });
  }

  close(): void {
    this.waiting?.reject(new AppError('CANCELLED', 'the server was stopped'));
    this.waiting = undefined;
    this.server.close();
  }
}
