/**
 * A secret never reaches a host it is not bound to, on any redirect hop: executeHttpTool with
 * the real HttpTransport against three real servers on 127.0.0.1, named by the resolver:
 * `api.good.test` (the secrets' host), `c.good.test` (bound too, through `*.good.test`) and
 * `evil.test` (bound to nothing). Each shape checks what the next host received, byte for
 * byte, for the secret in every form it could be carried in.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { FullHttpSpecSchema, type FullHttpSpec } from '../../../../shared/model/http-spec';
import { hostMatches } from '../../secrets/hosts';
import type { SecretResolver } from '../types';
import { OAuth2TokenCache } from './auth/oauth2';
import { executeHttpTool, type HttpToolOutcome } from './http-tool';
import { RateLimiter } from './rate-limit';
import { fakeLookup, startHttpServer, type Handler, type SeenRequest, type TestServer } from './testing/servers';
import { HttpTransport } from './transport';

const KEY = 'k3y-V4lue/Secret+x';
const PASS = 'pa55-w0rd:Secret';
const BINDINGS: Record<string, { value: string; hosts: string[] }> = {
  KEY: { value: KEY, hosts: ['api.good.test', '*.good.test'] },
  PASS: { value: PASS, hosts: ['api.good.test'] },
};
const secrets: SecretResolver = {
  resolve(name, host) {
    const s = BINDINGS[name];
    if (!s) throw new AppError('NOT_FOUND', `no secret named '${name}'`);
    if (!s.hosts.some((b) => hostMatches(b, host))) throw new AppError('FORBIDDEN', `secret '${name}' is not bound to host '${host}'`);
    return s.value;
  },
  values: () => [KEY, PASS],
};

/** Every form in which a request could carry KEY or PASS. */
const FORMS = [KEY, PASS].flatMap((v) => [
  v,
  encodeURIComponent(v),
  new URLSearchParams([['', v]]).toString().slice(1),
  JSON.stringify(v).slice(1, -1),
  Buffer.from(v).toString('base64').replace(/=+$/, ''),
  Buffer.from(v).toString('hex'),
  Buffer.from(`alice:${v}`).toString('base64').replace(/=+$/, ''),
]);

function carriesSecret(r: SeenRequest): boolean {
  const all = JSON.stringify([r.url, r.headers]) + r.body.toString('utf8');
  return FORMS.some((f) => all.includes(f));
}

let api: TestServer;
let evil: TestServer;
let good: TestServer;
/** What api.good.test answers: a status and where to. */
let redirect: { status: number; to: 'evil' | 'good'; path?: string } = { status: 302, to: 'evil' };

beforeAll(async () => {
  const origin = (to: 'evil' | 'good') => (to === 'evil' ? `http://evil.test:${evil.port}` : `http://c.good.test:${good.port}`);
  const echo: Handler = (req, res, body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, bytes: body.length }));
  evil = await startHttpServer((req, res, body) => (req.url === '/bounce' ? res.writeHead(302, { location: `${origin('good')}/landed` }).end() : echo(req, res, body)));
  good = await startHttpServer(echo);
  api = await startHttpServer((req, res) => res.writeHead(redirect.status, { location: `${origin(redirect.to)}${redirect.path ?? '/landed'}` }).end());
});
afterAll(async () => {
  await Promise.all([api, evil, good].map((s) => s.close()));
});
beforeEach(() => {
  for (const s of [api, evil, good]) s.requests.length = 0;
});

async function call(spec: Partial<FullHttpSpec>): Promise<{ outcome?: HttpToolOutcome; error?: AppError }> {
  const lookup = fakeLookup({ 'api.good.test': '127.0.0.1', 'c.good.test': '127.0.0.1', 'evil.test': '127.0.0.1' });
  try {
    const outcome = await executeHttpTool(
      FullHttpSpecSchema.parse({ method: 'GET', urlTemplate: `http://api.good.test:${api.port}/start`, limits: { maxRetries: 0, maxSentBytes: 1 << 20, maxResponseBytes: 1 << 20, maxRedirects: 5 }, ...spec }),
      {},
      {
        transport: new HttpTransport({ lookup }),
        allowedHosts: [`private:api.good.test:${api.port}`, `private:evil.test:${evil.port}`, `private:c.good.test:${good.port}`],
        secrets,
        redact: (t) => t,
        signal: new AbortController().signal,
        rateLimiter: new RateLimiter(),
        toolId: 'tool-1',
        tokenCache: new OAuth2TokenCache(),
        sleep: async () => undefined,
      },
    );
    return { outcome };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { error: e };
  }
}

/** The call went through; the first host got the secret and the unbound host got none of it. */
function expectStripped(r: { outcome?: HttpToolOutcome; error?: AppError }, method = 'GET', derived = false): void {
  expect(r.error?.message).toBeUndefined();
  expect(r.outcome?.http.status).toBe(200);
  expect(api.requests).toHaveLength(1);
  if (!derived) expect(carriesSecret(api.requests[0]!), 'the bound host got the secret').toBe(true);
  expect(evil.requests).toHaveLength(1);
  expect(evil.requests[0]!.method).toBe(method);
  expect(carriesSecret(evil.requests[0]!), 'the unbound host got the secret').toBe(false);
}

/** The redirect was refused, clearly, and the unbound host got nothing at all. */
function expectRefused(r: { outcome?: HttpToolOutcome; error?: AppError }, secret: string, status: number): void {
  expect(r.outcome).toBeUndefined();
  expect(r.error?.code).toBe('FORBIDDEN');
  expect(r.error?.message).toContain(`answered ${status}, redirecting to 'evil.test:${evil.port}'`);
  expect(r.error?.message).toContain(`the secret '${secret}', which is not bound to 'evil.test'`);
  expect(carriesSecret(api.requests[0]!)).toBe(true);
  expect(evil.accepted === 0 || evil.requests.length === 0).toBe(true);
  expect(evil.requests).toHaveLength(0);
}

const post = (method: 'POST' | 'PUT', body: FullHttpSpec['body']) => ({ method, body });

describe('secrets on redirects to a host they are not bound to', () => {
  it.each([
    ['1. ${secret} in X-Custom, 302', 302, { headers: { 'X-Custom': '${secret:KEY}' } }],
    ['2. ${secret} in X-Key, 301', 301, { headers: { 'X-Key': '${secret:KEY}' } }],
    ['3. ${secret} in Ocp-Apim-Subscription-Key, 303', 303, { headers: { 'Ocp-Apim-Subscription-Key': '${secret:KEY}' } }],
    ['4. the apiKey helper in X-Functions-Key, 307', 307, { auth: { kind: 'apiKey', in: 'header', name: 'X-Functions-Key', secret: 'KEY' } }],
    ['5. ${secret} inside a longer X-Custom value, 308', 308, { headers: { 'X-Custom': 'v=1; key=${secret:KEY}; z' } }],
    ['6. the bearer helper, 302', 302, { auth: { kind: 'bearer', secret: 'KEY' } }],
    ['7. the basic helper, 307', 307, { auth: { kind: 'basic', username: 'alice', passwordSecret: 'PASS' } }],
    ['8. the hmac helper (signature in X-Hash), 302', 302, { auth: { kind: 'hmac', secret: 'KEY', algorithm: 'sha256', header: 'X-Hash', timestampHeader: 'X-Ts', encoding: 'hex' } }],
  ] as const)('%s: the header is dropped, the call goes on', async (_name, status, spec) => {
    redirect = { status, to: 'evil' };
    const r = await call(spec as Partial<FullHttpSpec>);
    const hmac = (spec as Partial<FullHttpSpec>).auth?.kind === 'hmac';
    expectStripped(r, 'GET', hmac);
    if (hmac) {
      expect(api.requests[0]!.headers['x-hash']).toBeDefined();
      expect(evil.requests[0]!.headers['x-hash']).toBeUndefined();
    }
  });

  it('9. the apiKey helper in the query, 302 to a Location that copies the key: refused', async () => {
    redirect = { status: 302, to: 'evil', path: `/landed?code=${encodeURIComponent(KEY)}` };
    const r = await call({ auth: { kind: 'apiKey', in: 'query', name: 'code', secret: 'KEY' } });
    expect(r.error?.message).toContain('its URL holds the secret');
    expectRefused(r, 'KEY', 302);
  });

  it.each([
    ['10. a POST JSON body, 307', 307, post('POST', { kind: 'json', template: { key: '${secret:KEY}' } })],
    ['11. a PUT text body, 308', 308, post('PUT', { kind: 'text', template: 'key=${secret:KEY}', contentType: 'text/plain' })],
    ['12. a POST form body (form-encoded), 307', 307, post('POST', { kind: 'form', fields: { key: '${secret:KEY}' } })],
  ] as const)('%s holding the secret: the redirect is refused, nothing reaches the next host', async (_name, status, spec) => {
    redirect = { status, to: 'evil' };
    const r = await call(spec as Partial<FullHttpSpec>);
    expect(r.error?.message).toContain('the request body, re-sent there, holds the secret');
    expectRefused(r, 'KEY', status);
    expect(r.error?.details).toMatchObject({ secret: 'KEY', host: 'evil.test', part: 'body', status });
  });

  it.each([
    ['13. a POST JSON body with the secret, 303', 303],
    ['14. a POST JSON body with the secret, 302', 302],
  ] as const)('%s: becomes a GET without the body, so it goes on', async (_name, status) => {
    redirect = { status, to: 'evil' };
    expectStripped(await call(post('POST', { kind: 'json', template: { key: '${secret:KEY}' } })));
    expect(evil.requests[0]!.body.length).toBe(0);
  });

  it('15. a POST 307 with the secret in a header only: the header is dropped, the body is re-sent', async () => {
    redirect = { status: 307, to: 'evil' };
    const r = await call({ ...post('POST', { kind: 'json', template: { q: 'plain' } }), headers: { 'X-Custom': '${secret:KEY}' } });
    expectStripped(r, 'POST');
    expect(evil.requests[0]!.body.toString()).toBe('{"q":"plain"}');
  });

  it('16. a 302 to another host the secret is bound to keeps it (Authorization still drops across origins)', async () => {
    redirect = { status: 302, to: 'good' };
    const r = await call({ headers: { 'X-Custom': '${secret:KEY}' }, auth: { kind: 'bearer', secret: 'KEY' } });
    expect(r.outcome?.http.status).toBe(200);
    expect(good.requests[0]!.headers['x-custom']).toBe(KEY);
    expect(good.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('17. two hops, through the unbound host and on to a bound one: dropped at the first, never put back', async () => {
    redirect = { status: 307, to: 'evil', path: '/bounce' };
    const r = await call({ headers: { 'X-Custom': '${secret:KEY}' } });
    expect(r.outcome?.http.status).toBe(200);
    expect(r.outcome?.http.redirects).toEqual([`http://evil.test:${evil.port}/bounce`, `http://c.good.test:${good.port}/landed`]);
    expect(carriesSecret(evil.requests[0]!)).toBe(false);
    expect(good.requests).toHaveLength(1);
    expect(carriesSecret(good.requests[0]!)).toBe(false);
  });
});
