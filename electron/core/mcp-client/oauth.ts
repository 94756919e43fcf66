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
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
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
}

/** How long a sign-in may take before the call that asked for it gives up. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

export class SecretOAuthProvider implements OAuthClientProvider {
  private verifier = '';
  private callback: LoopbackCallback | undefined;
  private readonly names: { client: string; tokens: string };
  private readonly hosts = new Set<string>();

  constructor(private readonly deps: OAuthDeps) {
    this.names = oauthSecretNames(deps.bundleId);
    this.hosts.add(deps.host);
  }

  /** The loopback listener, started before the sign-in (its port is in the redirect URL). */
  async listen(): Promise<LoopbackCallback> {
    if (!this.callback) {
      const saved = this.read<{ redirect_uris?: string[] }>(this.names.client);
      const port = saved?.redirect_uris?.[0] ? Number(new URL(saved.redirect_uris[0]).port) : 0;
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
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.read<OAuthClientInformationMixed>(this.names.client);
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.write(this.names.client, info);
  }

  tokens(): OAuthTokens | undefined {
    return this.read<OAuthTokens>(this.names.tokens);
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.write(this.names.tokens, tokens);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    // The authorization server gets the refresh token later: the secret may go there too.
    this.hosts.add(url.hostname.toLowerCase());
    this.deps.onSignIn(url.href);
    await this.deps.openUrl?.(url.href);
  }

  /** A new random `state` for the authorization URL; the loopback listener takes only the answer that carries it. */
  async state(): Promise<string> {
    return (await this.listen()).newState();
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
  private waiting: { resolve: (code: string) => void; reject: (e: Error) => void } | undefined;
  /** The `state` of the sign-in under way; an answer is taken only with it, once. */
  private expectedState: string | undefined;
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
  newState(): string {
    this.expectedState = randomBytes(32).toString('base64url');
    return this.expectedState;
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
    const code = u.searchParams.get('code');
    const error = u.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    res.end(code ? '<p>Signed in. You can close this window and go back to Toolsmith.</p>' : '<p>Sign-in failed. Go back to Toolsmith for the reason.</p>');
    const answer: { code: string } | { error: AppError } = code ? { code } : { error: new AppError('UNAUTHORIZED', `the sign-in was refused: ${error ?? 'no code'} ${u.searchParams.get('error_description') ?? ''}`.trim()) };
    // The browser may come back before anyone waits (the page opened and answered at once): kept for nextCode.
    if (!this.waiting) {
      this.early = answer;
      return;
    }
    if ('code' in answer) this.waiting.resolve(answer.code);
    else this.waiting.reject(answer.error);
    this.waiting = undefined;
  }

  private early: { code: string } | { error: AppError } | undefined;

  /** Forgets an answer that came before a new sign-in started. */
  reset(): void {
    this.early = undefined;
  }

  /** The code of the next redirect, or an error when the person refuses or the time is up. */
  nextCode(timeoutMs: number, signal?: AbortSignal): Promise<string> {
    this.waiting?.reject(new AppError('CANCELLED', 'another sign-in started'));
    const early = this.early;
    this.early = undefined;
    if (early) return 'code' in early ? Promise.resolve(early.code) : Promise.reject(early.error);
    return new Promise<string>((resolve, reject) => {
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
