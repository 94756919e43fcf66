/**
 * A small OAuth 2.1 authorization server of our own, for tests: metadata (RFC 8414), dynamic
 * client registration (RFC 7591), authorization with PKCE S256 (approved at once, as if the
 * person clicked Allow), and the token endpoint (code and refresh_token grants). It also
 * serves the MCP server's protected-resource metadata (RFC 9728) when mounted beside it.
 */
import { createHash, randomUUID } from 'node:crypto';
import type http from 'node:http';

export interface OAuthTestServer {
  /** Handles an OAuth request; false when the path is not one of its own. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, base: string): Promise<boolean>;
  /** Whether a request carries a valid access token. */
  authorized(req: http.IncomingMessage): boolean;
  registered: string[];
  tokensIssued: number;
  /** Refuses the next authorization (the person pressed Deny). */
  denyNext: boolean;
}

export function oauthTestServer(): OAuthTestServer {
  const clients = new Map<string, { redirect_uris: string[] }>();
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string }>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  const self: OAuthTestServer = {
    registered: [],
    tokensIssued: 0,
    denyNext: false,
    authorized: (req) => access.has(String(req.headers.authorization ?? '').replace(/^Bearer /, '')),
    async handle(req, res, base) {
      const u = new URL(req.url ?? '/', base);
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
        return true;
      };
      if (u.pathname.startsWith('/.well-known/oauth-protected-resource')) return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
      if (u.pathname === '/.well-known/oauth-authorization-server') {
        return json(200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
        });
      }
      if (u.pathname === '/register' && req.method === 'POST') {
        const meta = JSON.parse(await readBody(req)) as { redirect_uris?: string[] };
        if (!meta.redirect_uris?.length) return json(400, { error: 'invalid_redirect_uri' });
        const id = randomUUID();
        clients.set(id, { redirect_uris: meta.redirect_uris });
        self.registered.push(id);
        return json(201, { ...meta, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000) });
      }
      if (u.pathname === '/authorize') {
        const p = u.searchParams;
        const client = clients.get(p.get('client_id') ?? '');
        const redirectUri = p.get('redirect_uri') ?? '';
        if (!client || !client.redirect_uris.includes(redirectUri)) return json(400, { error: 'invalid_client' });
        if (p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) return json(400, { error: 'invalid_request', error_description: 'PKCE S256 is required' });
        const back = new URL(redirectUri);
        if (p.get('state')) back.searchParams.set('state', p.get('state')!);
        if (self.denyNext) {
          self.denyNext = false;
          back.searchParams.set('error', 'access_denied');
        } else {
          const code = randomUUID();
          codes.set(code, { clientId: p.get('client_id')!, challenge: p.get('code_challenge')!, redirectUri });
          back.searchParams.set('code', code);
        }
        res.writeHead(302, { location: back.href }).end();
        return true;
      }
      if (u.pathname === '/token' && req.method === 'POST') {
        const f = new URLSearchParams(await readBody(req));
        if (f.get('grant_type') === 'authorization_code') {
          const c = codes.get(f.get('code') ?? '');
          codes.delete(f.get('code') ?? '');
          const verifier = f.get('code_verifier') ?? '';
          const challenge = createHash('sha256').update(verifier).digest('base64url');
          if (!c || c.clientId !== f.get('client_id') || c.challenge !== challenge || c.redirectUri !== f.get('redirect_uri')) return json(400, { error: 'invalid_grant' });
        } else if (f.get('grant_type') === 'refresh_token') {
          if (!refresh.delete(f.get('refresh_token') ?? '')) return json(400, { error: 'invalid_grant' });
        } else return json(400, { error: 'unsupported_grant_type' });
        const token = `at-${randomUUID()}`;
        const rt = `rt-${randomUUID()}`;
        access.add(token);
        refresh.add(rt);
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
