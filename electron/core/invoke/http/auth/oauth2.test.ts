import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors';
import type { SecretResolver } from '../../types';
import { Sensitive } from '../request';
import { startHttpServer, type TestServer } from '../testing/servers';
import { HttpTransport } from '../transport';
import { OAuth2TokenCache, type OAuth2Auth, type OAuth2Deps } from './oauth2';

const CLIENT_SECRET = 'cs-DISTINCT-8d7c6b5a';
const REFRESH = 'rt-DISTINCT-1a2b3c4d';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function tokenServer(answer: (form: URLSearchParams, auth: string | undefined, n: number) => { status?: number; body: unknown; type?: string }) {
  let n = 0;
  const s = await startHttpServer((req, res, body) => {
    const a = answer(new URLSearchParams(body.toString()), req.headers.authorization, ++n);
    res.writeHead(a.status ?? 200, { 'content-type': a.type ?? 'application/json' });
    res.end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
  });
  servers.push(s);
  return s;
}

function deps(server: TestServer, now: () => number, extra: Partial<OAuth2Deps> = {}): OAuth2Deps {
  const secrets: SecretResolver = {
    resolve(name, host) {
      if (host !== '127.0.0.1') throw new AppError('FORBIDDEN', `the secret '${name}' is not bound to '${host}'`);
      if (name === 'CS') return CLIENT_SECRET;
      if (name === 'RT') return REFRESH;
      throw new AppError('NOT_FOUND', `no secret named '${name}'`);
    },
    values: () => [CLIENT_SECRET, REFRESH],
  };
  return {
    transport: new HttpTransport(),
    allowedHosts: [`127.0.0.1:${server.port}`],
    secrets,
    sensitive: new Sensitive(),
    signal: new AbortController().signal,
    now,
    timeoutMs: 5_000,
    ...extra,
  };
}

const cc = (s: TestServer, scope = 'read write'): OAuth2Auth => ({ kind: 'oauth2', grant: 'client_credentials', tokenUrl: `${s.origin}/token`, clientId: 'my app', clientSecret: 'CS', scope });

describe('OAuth2 client credentials', () => {
  it('authenticates with Basic of the form-encoded id and secret, sends grant and scope, caches the token', async () => {
    const s = await tokenServer((form, auth) => {
      expect(auth).toBe(`Basic ${Buffer.from(`my+app:${CLIENT_SECRET}`).toString('base64')}`);
      expect(Object.fromEntries(form)).toEqual({ grant_type: 'client_credentials', scope: 'read write' });
      return { body: { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 } };
    });
    const cache = new OAuth2TokenCache();
    const t = 1_000_000;
    expect(await cache.accessToken(cc(s), deps(s, () => t))).toBe('at-1');
    expect(await cache.accessToken(cc(s), deps(s, () => t + 3_000_000))).toBe('at-1');
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('fetches a new token shortly before expiry, and when the API rejected the cached one', async () => {
    const s = await tokenServer((_f, _a, n) => ({ body: { access_token: `at-${n}`, expires_in: 600 } }));
    const cache = new OAuth2TokenCache();
    let t = 0;
    const d = deps(s, () => t);
    expect(await cache.accessToken(cc(s), d)).toBe('at-1');
    t = 600_000 - 61_000;
    expect(await cache.accessToken(cc(s), d)).toBe('at-1');
    t = 600_000 - 59_000;
    expect(await cache.accessToken(cc(s), d)).toBe('at-2');
    expect(await cache.accessToken(cc(s), d, { rejected: 'at-2' })).toBe('at-3');
    // A rejection of a token already replaced does not fetch again.
    expect(await cache.accessToken(cc(s), d, { rejected: 'at-2' })).toBe('at-3');
    expect(s.requests).toHaveLength(3);
  });

  it('keys the cache by token URL, client id and scope', async () => {
    const s = await tokenServer((f, _a, n) => ({ body: { access_token: `at-${n}-${f.get('scope')}` } }));
    const cache = new OAuth2TokenCache();
    const d = deps(s, () => 0);
    expect(await cache.accessToken(cc(s, 'a'), d)).toBe('at-1-a');
    expect(await cache.accessToken(cc(s, 'b'), d)).toBe('at-2-b');
    expect(await cache.accessToken(cc(s, 'a'), d)).toBe('at-1-a');
  });

  it('shares one token request between concurrent calls', async () => {
    const s = await tokenServer((_f, _a, n) => ({ body: { access_token: `at-${n}` } }));
    const cache = new OAuth2TokenCache();
    const d = deps(s, () => 0);
    const tokens = await Promise.all([1, 2, 3, 4].map(() => cache.accessToken(cc(s), d)));
    expect(tokens).toEqual(['at-1', 'at-1', 'at-1', 'at-1']);
    expect(s.requests).toHaveLength(1);
  });

  it('a refusal by the token endpoint is UNAUTHORIZED with its error code, never the secret', async () => {
    const s = await tokenServer(() => ({ status: 401, body: { error: 'invalid_client', error_description: `secret ${CLIENT_SECRET} is wrong` } }));
    const d = deps(s, () => 0);
    const e = (await new OAuth2TokenCache().accessToken(cc(s), d).catch((x: unknown) => x)) as AppError;
    expect(e.code).toBe('UNAUTHORIZED');
    expect(e.message).toContain('invalid_client');
    expect(e.message).toContain('401');
    expect(JSON.stringify([e.message, e.details])).not.toContain(CLIENT_SECRET);
  });

  it('refuses answers without a usable bearer token', async () => {
    for (const body of [{}, { access_token: 'a b' }, { access_token: 'x', token_type: 'mac' }, 'not json']) {
      const s = await tokenServer(() => ({ body }));
      const e = (await new OAuth2TokenCache().accessToken(cc(s), deps(s, () => 0)).catch((x: unknown) => x)) as AppError;
      expect(e.code).toBe('UNAVAILABLE');
    }
  });

  it('accepts a form-encoded answer', async () => {
    const s = await tokenServer(() => ({ body: 'access_token=at-form&token_type=bearer&expires_in=60', type: 'application/x-www-form-urlencoded' }));
    expect(await new OAuth2TokenCache().accessToken(cc(s), deps(s, () => 0))).toBe('at-form');
  });

  it('calls the token endpoint only on an allowed host', async () => {
    const s = await tokenServer(() => ({ body: { access_token: 'x' } }));
    const e = (await new OAuth2TokenCache().accessToken(cc(s), deps(s, () => 0, { allowedHosts: ['api.example.com'] })).catch((x: unknown) => x)) as AppError;
    expect(e.code).toBe('FORBIDDEN');
    expect(s.accepted).toBe(0);
  });

  it('needs a client secret for client_credentials', async () => {
    const s = await tokenServer(() => ({ body: { access_token: 'x' } }));
    const auth: OAuth2Auth = { kind: 'oauth2', grant: 'client_credentials', tokenUrl: `${s.origin}/token`, clientId: 'c' };
    await expect(new OAuth2TokenCache().accessToken(auth, deps(s, () => 0))).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('OAuth2 refresh token', () => {
  it('exchanges the stored refresh token, then the rotated one; public clients send client_id', async () => {
    const seen: Record<string, string>[] = [];
    const s = await tokenServer((form, auth, n) => {
      expect(auth).toBeUndefined();
      seen.push(Object.fromEntries(form));
      return { body: { access_token: `at-${n}`, expires_in: 60, refresh_token: `rt-rotated-${n}` } };
    });
    const auth: OAuth2Auth = { kind: 'oauth2', grant: 'refresh_token', tokenUrl: `${s.origin}/token`, clientId: 'pub', refreshTokenSecret: 'RT' };
    const cache = new OAuth2TokenCache();
    let t = 0;
    const d = deps(s, () => t);
    expect(await cache.accessToken(auth, d)).toBe('at-1');
    t = 120_000;
    expect(await cache.accessToken(auth, d)).toBe('at-2');
    expect(seen).toEqual([
      { grant_type: 'refresh_token', refresh_token: REFRESH, client_id: 'pub' },
      { grant_type: 'refresh_token', refresh_token: 'rt-rotated-1', client_id: 'pub' },
    ]);
    // Rotated tokens are sensitive too.
    expect(d.sensitive.redact('rt-rotated-2 at-2')).toBe('[redacted] [redacted]');
  });

  it('needs refreshTokenSecret', async () => {
    const s = await tokenServer(() => ({ body: { access_token: 'x' } }));
    const auth: OAuth2Auth = { kind: 'oauth2', grant: 'refresh_token', tokenUrl: `${s.origin}/token`, clientId: 'c' };
    await expect(new OAuth2TokenCache().accessToken(auth, deps(s, () => 0))).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
