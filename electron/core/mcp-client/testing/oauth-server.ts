/**
 * A small OAuth 2.1 authorization server of our own, for tests: metadata (RFC 8414), dynamic
 * client registration (RFC 7591), authorization with PKCE S256 (approved at once, as if the
 * person clicked Allow), and the token endpoint (code and refresh_token grants). It also
 * serves the MCP server's protected-resource metadata (RFC 9728) when mounted beside it.
 * A token holds the scopes asked for at authorization (`grant` narrows them); the token answer
 * names none, so they are the ones asked for (RFC 6749 §5.1). Options make it misbehave the ways
 * a client must catch: the `iss` of the authorization response (RFC 9207) and the metadata's issuer.
 */
import { createHash, randomUUID } from 'node:crypto';
import type http from 'node:http';

export interface OAuthTestServer {
  /** Handles an OAuth request; false when the path is not one of its own. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, base: string): Promise<boolean>;
  /** Whether a request carries a valid access token. */
  authorized(req: http.IncomingMessage): boolean;
  /** The scopes a request's access token holds; undefined when it carries no valid token. */
  scopesOf(req: http.IncomingMessage): string[] | undefined;
  registered: string[];
  /** What each dynamic registration sent (its client metadata). */
  registrations: Record<string, unknown>[];
  /** The `scope` of each authorization request, in order (null: none). */
  authorizations: (string | null)[];
  tokensIssued: number;
  /** Refuses the next authorization (the person pressed Deny). */
  denyNext: boolean;
}

export interface OAuthTestOptions {
  /** The scopes a token gets for those asked for (default: all of them). */
  grant?: (asked: string[]) => string[];
  /** Its metadata says it sends `iss` in the authorization response (RFC 9207). */
  issSupported?: boolean;
  /** The `iss` it sends: its issuer, another one, its issuer with a trailing slash, or none (the default). */
  iss?: 'correct' | 'wrong' | 'trailing-slash' | 'omit';
  /** The issuer its metadata names, from its URL (default: its own URL, as RFC 8414 requires). */
  metadataIssuer?: (base: string) => string;
  /** No protected-resource metadata (RFC 9728): an MCP 2025-03-26 server, whose origin stands in for the authorization server. */
  noResourceMetadata?: boolean;
  /**
   * A client registered beforehand, and no dynamic registration: the token endpoint wants its
   * secret (HTTP Basic or in the form), the authorization endpoint its exact redirect URL.
   */
  preRegistered?: { clientId: string; clientSecret: string; redirectUri: string };
}

export function oauthTestServer(opts: OAuthTestOptions = {}): OAuthTestServer {
  const clients = new Map<string, { redirect_uris: string[] }>();
  const pre = opts.preRegistered;
  if (pre) clients.set(pre.clientId, { redirect_uris: [pre.redirectUri] });
  /** The client id a token request authenticated as with the pre-registered secret, or undefined. */
  const secretOf = (req: http.IncomingMessage, form: URLSearchParams): string | undefined => {
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (basic) {
      const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':').map((x) => decodeURIComponent(x));
      return pre && id === pre.clientId && secret === pre.clientSecret ? id : undefined;
    }
    return pre && form.get('client_id') === pre.clientId && form.get('client_secret') === pre.clientSecret ? pre.clientId : undefined;
  };
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string; scopes: string[] }>();
  /** Access tokens and refresh tokens, with the scopes they hold. */
  const access = new Map<string, string[]>();
  const refresh = new Map<string, string[]>();
  const bearer = (req: http.IncomingMessage) => String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  const self: OAuthTestServer = {
    registered: [],
    registrations: [],
    authorizations: [],
    tokensIssued: 0,
    denyNext: false,
    authorized: (req) => access.has(bearer(req)),
    scopesOf: (req) => access.get(bearer(req)),
    async handle(req, res, base) {
      const u = new URL(req.url ?? '/', base);
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
        return true;
      };
      if (u.pathname.startsWith('/.well-known/oauth-protected-resource')) return opts.noResourceMetadata ? json(404, { error: 'not_found' }) : json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
      if (u.pathname === '/.well-known/oauth-authorization-server') {
        return json(200, {
          issuer: opts.metadataIssuer?.(base) ?? base,
          ...(opts.issSupported ? { authorization_response_iss_parameter_supported: true } : {}),
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          ...(pre ? {} : { registration_endpoint: `${base}/register` }),
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: pre ? ['client_secret_basic', 'client_secret_post'] : ['none'],
        });
      }
      if (u.pathname === '/register' && req.method === 'POST' && !pre) {
        const meta = JSON.parse(await readBody(req)) as { redirect_uris?: string[] };
        self.registrations.push(meta);
        if (!meta.redirect_uris?.length) return json(400, { error: 'invalid_redirect_uri' });
        const id = randomUUID();
        clients.set(id, { redirect_uris: meta.redirect_uris });
        self.registered.push(id);
        return json(201, { ...meta, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000) });
      }
      if (u.pathname === '/authorize') {
        const p = u.searchParams;
        self.authorizations.push(p.get('scope'));
        const client = clients.get(p.get('client_id') ?? '');
        const redirectUri = p.get('redirect_uri') ?? '';
        if (!client || !client.redirect_uris.includes(redirectUri)) return json(400, { error: 'invalid_client' });
        if (p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) return json(400, { error: 'invalid_request', error_description: 'PKCE S256 is required' });
        const back = new URL(redirectUri);
        if (p.get('state')) back.searchParams.set('state', p.get('state')!);
        const iss = { correct: base, wrong: 'https://evil.example.com', 'trailing-slash': `${base}/`, omit: undefined }[opts.iss ?? 'omit'];
        if (iss !== undefined) back.searchParams.set('iss', iss);
        if (self.denyNext) {
          self.denyNext = false;
          back.searchParams.set('error', 'access_denied');
        } else {
          const code = randomUUID();
          const asked = (p.get('scope') ?? '').split(' ').filter(Boolean);
          codes.set(code, { clientId: p.get('client_id')!, challenge: p.get('code_challenge')!, redirectUri, scopes: opts.grant ? opts.grant(asked) : asked });
          back.searchParams.set('code', code);
        }
        res.writeHead(302, { location: back.href }).end();
        return true;
      }
      if (u.pathname === '/token' && req.method === 'POST') {
        const f = new URLSearchParams(await readBody(req));
        if (pre && !secretOf(req, f)) return json(401, { error: 'invalid_client' });
        if (pre && !f.get('client_id')) f.set('client_id', pre.clientId);
        let scopes: string[];
        if (f.get('grant_type') === 'authorization_code') {
          const c = codes.get(f.get('code') ?? '');
          codes.delete(f.get('code') ?? '');
          const verifier = f.get('code_verifier') ?? '';
          const challenge = createHash('sha256').update(verifier).digest('base64url');
          if (!c || c.clientId !== f.get('client_id') || c.challenge !== challenge || c.redirectUri !== f.get('redirect_uri')) return json(400, { error: 'invalid_grant' });
          scopes = c.scopes;
        } else if (f.get('grant_type') === 'refresh_token') {
          const held = refresh.get(f.get('refresh_token') ?? '');
          if (!held) return json(400, { error: 'invalid_grant' });
          refresh.delete(f.get('refresh_token') ?? '');
          scopes = held;
        } else return json(400, { error: 'unsupported_grant_type' });
        const token = `at-${randomUUID()}`;
        const rt = `rt-${randomUUID()}`;
        access.set(token, scopes);
        refresh.set(rt, scopes);
        self.tokensIssued++;
        return json(200, { access_token: token, token_type: 'Bearer', expires_in: 3600, refresh_token: rt });
      }
      return false;
    },
  };
  return self;
}

/** A request's whole body as text (the test servers of this folder read small bodies only). */
export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (s += c));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}
