/**
 * executeHttpTool end to end: the real HttpTransport against real servers on 127.0.0.1.
 * Every test that fails checks the failure is bounded (attempts, connections) and clear, and the
 * secret checks search every output (outcome, error, logs, events) for the secret value
 * in each form it could take.
 */
import { setTimeout as sleepReal } from 'node:timers/promises';
import zlib from 'node:zlib';
import { createHmac, createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { FullHttpSpecSchema, type FullHttpSpec } from '../../../../shared/model/http-spec';
import type { SecretResolver } from '../types';
import { OAuth2TokenCache } from './auth/oauth2';
import { executeHttpTool, type HttpToolContext, type HttpToolOutcome } from './http-tool';
import { RateLimiter } from './rate-limit';
import { startHttpServer, startRawServer, type Handler, type TestServer } from './testing/servers';
import { HttpTransport } from './transport';

const SECRET = 'Zq-SECRET-7h3x9w/+=&?';
const SECRET_FORMS = [SECRET, encodeURIComponent(SECRET), new URLSearchParams([['', SECRET]]).toString().slice(1), Buffer.from(SECRET).toString('base64'), 'SECRET-7h3x9w'];

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function server(handler: Handler): Promise<TestServer> {
  const s = await startHttpServer(handler);
  servers.push(s);
  return s;
}

const secrets: SecretResolver = {
  resolve(name, host) {
    if (name !== 'TOKEN' && name !== 'OTHER') throw new AppError('NOT_FOUND', `no secret named '${name}'`);
    if (host !== '127.0.0.1') throw new AppError('FORBIDDEN', `the secret '${name}' may not be sent to '${host}'`);
    return name === 'TOKEN' ? SECRET : 'other-value';
  },
  values: () => [SECRET, 'other-value'],
};

interface Run {
  outcome?: HttpToolOutcome;
  error?: AppError;
  logs: string[];
  events: unknown[];
  sleeps: number[];
}

async function run(s: { port: number }, spec: Partial<FullHttpSpec> & { urlTemplate: string }, args: Record<string, unknown> = {}, extra: Partial<HttpToolContext> = {}): Promise<Run> {
  const logs: string[] = [];
  const events: unknown[] = [];
  const sleeps: number[] = [];
  const ctx: HttpToolContext = {
    transport: new HttpTransport(),
    allowedHosts: [`127.0.0.1:${s.port}`],
    secrets,
    redact: (t) => t.replaceAll(SECRET, '[redacted:TOKEN]'),
    signal: new AbortController().signal,
    rateLimiter: new RateLimiter(),
    toolId: 'tool-1',
    onEvent: (e) => events.push(e),
    log: (l) => logs.push(l),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    tokenCache: new OAuth2TokenCache(),
    ...extra,
  };
  const r: Run = { logs, events, sleeps };
  try {
    r.outcome = await executeHttpTool(FullHttpSpecSchema.parse({ method: 'GET', ...spec }), args, ctx);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    r.error = e;
  }
  const everything = JSON.stringify([r.outcome, r.error?.message, r.error?.details, logs, events]);
  for (const f of SECRET_FORMS) expect(everything, `secret form '${f}' leaked`).not.toContain(f);
  return r;
}

const json = (res: Parameters<Handler>[1], status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** Echoes what it received, secrets and all. */
const echo: Handler = (req, res, body) => json(res, 200, { method: req.method, url: req.url, headers: req.headers, body: body.toString() });

describe('a successful call', () => {
  it('renders the request, parses JSON and describes the exchange without the secret', async () => {
    const s = await server(echo);
    const r = await run(
      s,
      {
        urlTemplate: `http://127.0.0.1:${s.port}/users/\${user.id}/k/\${secret:TOKEN}?q=\${q}`,
        query: { key: '${secret:TOKEN}' },
        headers: { 'X-Tag': 'tag-${user.id}' },
        auth: { kind: 'bearer', secret: 'TOKEN' },
      },
      { user: { id: 'a b' }, q: 'x&y' },
    );
    expect(r.error).toBeUndefined();
    const seen = s.requests[0]!;
    // The server got the real values, encoded for where they landed.
    expect(seen.url).toBe(`/users/a%20b/k/${encodeURIComponent(SECRET)}?q=x%26y&key=${new URLSearchParams([['', SECRET]]).toString().slice(1)}`);
    expect(seen.headers['authorization']).toBe(`Bearer ${SECRET}`);
    expect(seen.headers['x-tag']).toBe('tag-a b');
    const o = r.outcome!;
    expect(o.attempts).toBe(1);
    expect((o.value as { method: string }).method).toBe('GET');
    expect(o.http).toMatchObject({ method: 'GET', status: 200, requestHeaders: { Authorization: '[redacted]', 'X-Tag': 'tag-a b', Accept: 'application/json' } });
    expect(o.http.url).toBe(`http://127.0.0.1:${s.port}/users/a%20b/k/[redacted]?q=x%26y&key=[redacted]`);
    expect(o.http.responseHeaders['content-type']).toBe('application/json');
    expect(o.http.sizeBytes).toBeGreaterThan(0);
    expect(o.http.durationMs).toBeGreaterThanOrEqual(0);
    expect(o.http.bodyText).toContain('[redacted');
    // The value is the server's answer, with the echoed secret redacted too.
    expect((o.value as { headers: Record<string, string> }).headers['authorization']).toBe('Bearer [redacted:TOKEN]');
    expect(r.logs.join('\n')).toContain('attempt 1: GET');
  });

  it('text mode returns the string; an empty JSON body is null', async () => {
    const s = await server((req, res) => {
      res.writeHead(req.url === '/empty' ? 204 : 200, { 'content-type': 'text/plain' });
      res.end(req.url === '/empty' ? undefined : 'héllo');
    });
    expect((await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/t`, responseMode: 'text' })).outcome!.value).toBe('héllo');
    expect((await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/empty` })).outcome!.value).toBeNull();
  });

  it('sends JSON, text and form bodies', async () => {
    const s = await server(echo);
    const r = await run(s, { method: 'POST', urlTemplate: `http://127.0.0.1:${s.port}/p`, body: { kind: 'json', template: { who: '${who}', n: '${n}' } } }, { who: { name: 'Ann' }, n: 3 });
    expect(JSON.parse((r.outcome!.value as { body: string }).body)).toEqual({ who: { name: 'Ann' }, n: 3 });
    expect(s.requests[0]!.headers['content-type']).toBe('application/json');
  });
});

describe('hostile placeholder values', () => {
  const hostile: [string, string, 'refused' | string][] = [
    ['..', '..', 'refused'],
    ['.', '.', 'refused'],
    ['%2e%2e', '%2e%2e', 'refused'],
    ['%252e%252e', '%252e%252e', 'refused'],
    ['..%2fadmin', '..%2fadmin', 'refused'],
    ['empty', '', 'refused'],
    ['a/b', 'a/b', '/files/a%2Fb/meta'],
    ['?#', '?#', '/files/%3F%23/meta'],
    ['CRLF', 'x\r\nX-Evil: 1', 'refused'],
    ['NUL', 'x\0y', 'refused'],
    ['@host', '@evil.example', '/files/%40evil.example/meta'],
    ['100 KB', 'x'.repeat(100 * 1024), 'too large'],
  ];
  for (const [label, value, expected] of hostile) {
    it(`path segment value ${label}: ${expected === 'refused' ? 'refused before sending' : expected === 'too large' ? 'PAYLOAD_TOO_LARGE before sending' : 'one encoded segment'}`, async () => {
      const s = await server(echo);
      const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/files/\${name}/meta` }, { name: value });
      if (expected === 'refused' || expected === 'too large') {
        expect(r.error?.code).toBe(expected === 'refused' ? 'VALIDATION_FAILED' : 'PAYLOAD_TOO_LARGE');
        expect(r.error?.message).toContain(expected === 'refused' ? '${name}' : 'bytes');
        expect(r.error?.details).toMatchObject({ attempts: 0 });
        expect(s.requests).toHaveLength(0);
      } else {
        expect(r.error).toBeUndefined();
        expect(s.requests[0]!.url).toBe(expected);
      }
    });
  }

  it('query values: CRLF and NUL refused, others form-encoded and round-trip', async () => {
    const s = await server(echo);
    for (const bad of ['a\r\nb', 'a\0b']) {
      const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/s?q=\${q}` }, { q: bad });
      expect(r.error?.code).toBe('VALIDATION_FAILED');
    }
    for (const ok of ['..', '?#&=+', 'a/b', '%2e%2e']) {
      const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/s?q=\${q}&z=1` }, { q: ok });
      expect(r.error).toBeUndefined();
      const url = new URL(`http://x${(r.outcome!.value as { url: string }).url}`);
      expect(url.searchParams.get('q')).toBe(ok);
      expect(url.pathname).toBe('/s');
      expect(url.searchParams.get('z')).toBe('1');
    }
  });

  it('header values: CRLF and NUL refused, nothing sent', async () => {
    const s = await server(echo);
    for (const bad of ['x\r\nX-Evil: 1', 'x\ny', 'x\0']) {
      const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/h`, headers: { 'X-V': '${v}' } }, { v: bad });
      expect(r.error?.code).toBe('VALIDATION_FAILED');
    }
    expect(s.requests).toHaveLength(0);
  });

  it('100 KB in the body: sent within maxSentBytes, refused over it', async () => {
    const s = await server(echo);
    const big = 'y'.repeat(100 * 1024);
    const ok = await run(s, { method: 'POST', urlTemplate: `http://127.0.0.1:${s.port}/b`, body: { kind: 'text', template: '${v}', contentType: 'text/plain' } }, { v: big });
    expect(ok.error).toBeUndefined();
    expect(s.requests[0]!.body.length).toBe(big.length);
    const over = await run(
      s,
      { method: 'POST', urlTemplate: `http://127.0.0.1:${s.port}/b`, body: { kind: 'text', template: '${v}', contentType: 'text/plain' }, limits: { maxSentBytes: 50_000, maxResponseBytes: 1 << 20, maxRetries: 2, maxRedirects: 5 } },
      { v: big },
    );
    expect(over.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(over.error?.message).toContain('maxSentBytes');
    expect(s.requests).toHaveLength(1);
  });

  it('a missing argument names the placeholder', async () => {
    const s = await server(echo);
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/u/\${user.id}` }, { user: {} });
    expect(r.error?.code).toBe('VALIDATION_FAILED');
    expect(r.error?.message).toContain('${user.id}');
  });
});

describe('retries', () => {
  it('503 forever: GET ends after 1 + maxRetries attempts with UNAVAILABLE, the status and a preview', async () => {
    const s = await server((_req, res) => json(res, 503, { error: 'down', echo: SECRET }));
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/x/\${secret:TOKEN}`, limits: { maxRetries: 3, maxSentBytes: 1 << 20, maxResponseBytes: 1 << 20, maxRedirects: 5 } });
    expect(r.error?.code).toBe('UNAVAILABLE');
    expect(r.error?.message).toMatch(/answered 503; gave up after 4 attempts/);
    expect(r.error?.details).toMatchObject({ status: 503, attempts: 4, http: { status: 503 } });
    expect((r.error?.details as { bodyPreview: string }).bodyPreview).toContain('"error":"down"');
    expect(s.requests).toHaveLength(4);
    expect(r.sleeps).toHaveLength(3);
  });

  it('does not retry an answer that cannot change: a body encoded three times, a body that does not decompress', async () => {
    const s = await server((req, res) => {
      if (req.url === '/triple') res.writeHead(200, { 'content-encoding': 'gzip, gzip, gzip' }).end(zlib.gzipSync(zlib.gzipSync(zlib.gzipSync('x'))));
      else res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('definitely not gzip data'));
    });
    const limits = { maxRetries: 3, maxSentBytes: 1 << 20, maxResponseBytes: 1 << 20, maxRedirects: 5 };
    const triple = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/triple`, limits });
    expect(triple.error?.message).toContain('encoded 3 times');
    const corrupt = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/corrupt`, limits });
    expect(corrupt.error?.message).toContain('could not be decompressed (gzip)');
    expect(s.requests.map((r) => r.url)).toEqual(['/triple', '/corrupt']);
    expect([...triple.sleeps, ...corrupt.sleeps]).toEqual([]);
  });

  it('retries a compressed body cut by the network (a reset is not a decoding error)', async () => {
    const gz = zlib.gzipSync(Buffer.from('x'.repeat(200_000)));
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
      res.write(gz.subarray(0, gz.length >> 1), () => res.socket?.destroy());
    });
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/cut`, limits: { maxRetries: 2, maxSentBytes: 1 << 20, maxResponseBytes: 1 << 20, maxRedirects: 5 } });
    expect(r.error?.code).toBe('UNAVAILABLE');
    expect(r.error?.message).not.toContain('could not be decompressed');
    expect(s.requests).toHaveLength(3);
  });

  it('503 forever with real waits: the total time cap ends it', async () => {
    const s = await server((_req, res) => json(res, 503, {}));
    const r = await run(
      s,
      { urlTemplate: `http://127.0.0.1:${s.port}/x`, totalTimeoutMs: 1_000, limits: { maxRetries: 10, maxSentBytes: 1 << 20, maxResponseBytes: 1 << 20, maxRedirects: 5 } },
      {},
      { sleep: undefined, random: () => 1, retry: { baseDelayMs: 100 } },
    );
    expect(r.error?.code).toBe('UNAVAILABLE');
    expect(s.requests.length).toBeLessThan(11);
    expect(r.error?.details).toMatchObject({ attempts: s.requests.length });
    expect(r.error?.message).toMatch(/no time left|gave up/);
  });

  it('429 with Retry-After: 3600 ends at once with RATE_LIMITED instead of waiting an hour', async () => {
    const s = await server((_req, res) => json(res, 429, { error: 'slow down' }, { 'retry-after': '3600' }));
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/x` }, {}, { sleep: undefined });
    expect(r.error?.code).toBe('RATE_LIMITED');
    expect(r.error?.message).toContain('retry after 3600 s');
    expect(r.error?.details).toMatchObject({ status: 429, attempts: 1, retryAfterMs: 3_600_000 });
    expect(s.requests).toHaveLength(1);
  });

  it('honours a short Retry-After, then succeeds', async () => {
    let n = 0;
    const s = await server((_req, res) => (++n === 1 ? json(res, 503, {}, { 'retry-after': '2' }) : json(res, 200, { ok: true })));
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/x` });
    expect(r.outcome).toMatchObject({ value: { ok: true }, attempts: 2 });
    expect(r.sleeps).toEqual([2000]);
  });

  it('POST is not retried without an idempotency key; with one it is, with the same key each time', async () => {
    const s = await server((_req, res) => json(res, 500, {}));
    const once = await run(s, { method: 'POST', urlTemplate: `http://127.0.0.1:${s.port}/x` });
    expect(once.error?.message).toContain('not idempotent');
    expect(s.requests).toHaveLength(1);
    const keyed = await run(s, { method: 'POST', urlTemplate: `http://127.0.0.1:${s.port}/x`, idempotencyKey: 'order-${id}' }, { id: 9 });
    expect(keyed.error?.details).toMatchObject({ attempts: 3 });
    expect(s.requests.slice(1).map((q) => q.headers['idempotency-key'])).toEqual(['order-9', 'order-9', 'order-9']);
  });

  it('a server that never answers: each attempt times out, the whole call is bounded', async () => {
    const held: import('node:net').Socket[] = [];
    const raw = await startRawServer((sock) => void held.push(sock));
    servers.push(raw);
    const r = await run(raw, { urlTemplate: `http://127.0.0.1:${raw.port}/x`, timeoutMs: 300, totalTimeoutMs: 1_000, limits: { maxRetries: 5, maxSentBytes: 1 << 20, maxResponseBytes: 1 << 20, maxRedirects: 5 } }, {}, { sleep: undefined });
    expect(r.error?.code).toBe('TIMEOUT');
    // At most one connection per allowed attempt (1 + maxRetries), each closed by the client when it gave up.
    expect((r.error?.details as { attempts: number }).attempts).toBeGreaterThanOrEqual(1);
    expect(held.length).toBeGreaterThanOrEqual(1);
    expect(held.length).toBeLessThanOrEqual(6);
    await Promise.all(held.map((sock) => new Promise((done) => (sock.destroyed ? done(undefined) : sock.once('close', done).resume()))));
  });

  it('a closed port is UNAVAILABLE after the retries, without the secret in the message', async () => {
    const s = await server(echo);
    await s.close();
    servers.splice(servers.indexOf(s), 1);
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/k/\${secret:TOKEN}` });
    expect(r.error?.code).toBe('UNAVAILABLE');
    expect(r.error?.details).toMatchObject({ attempts: 3 });
    expect(r.error?.message).toContain('connection refused');
  });
});

describe('status codes and bodies', () => {
  it('maps statuses outside successCodes to codes, with the status and a redacted preview', async () => {
    const s = await server((req, res) => json(res, Number(req.url!.slice(1)), { msg: `you sent ${req.headers['x-key']}` }));
    for (const [status, code] of [
      [400, 'VALIDATION_FAILED'],
      [401, 'UNAUTHORIZED'],
      [403, 'FORBIDDEN'],
      [404, 'NOT_FOUND'],
      [418, 'UNAVAILABLE'],
    ] as const) {
      const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/${status}`, auth: { kind: 'apiKey', in: 'header', name: 'X-Key', secret: 'TOKEN' } });
      expect(r.error?.code).toBe(code);
      expect(r.error?.details).toMatchObject({ status, attempts: 1, http: { requestHeaders: { 'X-Key': '[redacted]' } } });
      expect((r.error?.details as { bodyPreview: string }).bodyPreview).toContain('you sent [redacted');
    }
  });

  it('custom successCodes', async () => {
    const s = await server((_req, res) => json(res, 404, { none: true }));
    expect((await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/`, successCodes: [200, 404] })).outcome?.value).toEqual({ none: true });
  });

  it('bad JSON is a clear error with a preview', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>oops</html>');
    });
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/` });
    expect(r.error?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(r.error?.message).toContain("responseMode to 'text'");
    expect(r.error?.message).toContain('<html>oops</html>');
  });

  it('a response over maxResponseBytes, or a gzip bomb, is PAYLOAD_TOO_LARGE', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(8 << 20));
    const s = await server((req, res) => {
      if (req.url === '/bomb') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(bomb);
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('z'.repeat(300_000));
      }
    });
    const limits = { maxRetries: 2, maxSentBytes: 1 << 20, maxResponseBytes: 100_000, maxRedirects: 5 };
    const big = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/big`, responseMode: 'text', limits });
    expect(big.error?.code).toBe('PAYLOAD_TOO_LARGE');
    const b = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/bomb`, limits });
    expect(b.error?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('follows a redirect and shows it, with secrets redacted', async () => {
    const s = await server((req, res) => {
      if (req.url!.startsWith('/old')) {
        res.writeHead(302, { location: `/new?k=${encodeURIComponent(SECRET)}` });
        res.end();
      } else json(res, 200, { at: 'new' });
    });
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/old` });
    expect(r.outcome?.value).toEqual({ at: 'new' });
    expect(r.outcome?.http.url).toBe(`http://127.0.0.1:${s.port}/new?k=[redacted]`);
    expect(r.outcome?.http.redirects).toEqual([`http://127.0.0.1:${s.port}/new?k=[redacted]`]);
  });

  it('a host not allowed is FORBIDDEN and no connection is made', async () => {
    const s = await server(echo);
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/` }, {}, { allowedHosts: ['api.example.com'] });
    expect(r.error?.code).toBe('FORBIDDEN');
    expect(s.accepted).toBe(0);
  });

  it('a secret is resolved for the request host only', async () => {
    const s = await server(echo);
    const r = await run({ port: s.port }, { urlTemplate: `http://localhost:${s.port}/\${secret:TOKEN}` }, {}, { allowedHosts: [`localhost:${s.port}`] });
    expect(r.error?.code).toBe('FORBIDDEN');
    expect(r.error?.message).toContain("may not be sent to 'localhost'");
    expect(s.requests).toHaveLength(0);
  });

  it('the caller can cancel', async () => {
    const s = await server(async (_req, res) => {
      await sleepReal(2_000);
      json(res, 200, {});
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/` }, {}, { signal: ac.signal });
    expect(r.error?.code).toBe('CANCELLED');
    expect(r.error?.details).toMatchObject({ attempts: 1 });
    expect(s.requests).toHaveLength(1);
  });
});

describe('secrets never leak', () => {
  it('not in errors, descriptions or logs, whatever the server echoes and wherever the secret was sent', async () => {
    // The server echoes the whole request, in the body and in headers, on a 500 and on a 200.
    const s = await server((req, res, body) => {
      const text = JSON.stringify({ url: req.url, headers: req.headers, body: body.toString() });
      res.writeHead(req.url!.startsWith('/fail') ? 500 : 200, { 'content-type': 'application/json', 'x-echo': encodeURIComponent(text).slice(0, 4000), 'set-cookie': `s=${encodeURIComponent(SECRET)}` });
      res.end(text);
    });
    for (const path of ['/fail', '/ok']) {
      for (const auth of [{ kind: 'bearer', secret: 'TOKEN' }, { kind: 'basic', username: 'u', passwordSecret: 'TOKEN' }, { kind: 'apiKey', in: 'query', name: 'k', secret: 'TOKEN' }, { kind: 'hmac', secret: 'TOKEN' }] as const) {
        const r = await run(
          s,
          {
            method: 'POST',
            urlTemplate: `http://127.0.0.1:${s.port}${path}/\${secret:TOKEN}?t=\${secret:TOKEN}`,
            headers: { 'X-Custom': 'v=${secret:TOKEN}' },
            body: { kind: 'json', template: { s: '${secret:TOKEN}', t: 'pre ${secret:TOKEN}' } },
            responseMode: 'text',
            auth: FullHttpSpecSchema.shape.auth.parse(auth),
          },
          {},
        );
        // run() already searched everything for the secret; check something was there to find.
        const shown = JSON.stringify(r.outcome?.http ?? r.error?.details);
        expect(shown).toContain('[redacted');
      }
    }
  });
});

describe('auth through the tool', () => {
  it('HMAC: the server can verify the signature', async () => {
    const s = await server((req, res, body) => {
      const ts = req.headers['x-timestamp'] as string;
      const sts = `${req.method}\n${req.url}\n${ts}\n${createHash('sha256').update(body).digest('hex')}`;
      const ok = createHmac('sha256', SECRET).update(sts).digest('hex') === req.headers['x-signature'];
      json(res, ok ? 200 : 401, { ok });
    });
    const r = await run(s, { method: 'POST', urlTemplate: `http://127.0.0.1:${s.port}/v1/x y?b=\${b}`, body: { kind: 'json', template: { a: 1 } }, auth: { kind: 'hmac', secret: 'TOKEN', algorithm: 'sha256', header: 'X-Signature', timestampHeader: 'X-Timestamp', encoding: 'hex' } }, { b: 'c d' });
    expect(r.outcome?.value).toEqual({ ok: true });
  });

  it('OAuth2: a 401 fetches a new token once and sends again; a second 401 is UNAUTHORIZED', async () => {
    let issued = 0;
    const tokens = await server((_req, res) => json(res, 200, { access_token: `at-${++issued}`, token_type: 'Bearer', expires_in: 3600 }));
    let accept = 'at-2';
    const api = await server((req, res) => (req.headers.authorization === `Bearer ${accept}` ? json(res, 200, { ok: true }) : json(res, 401, { error: 'expired' })));
    const spec = {
      urlTemplate: `http://127.0.0.1:${api.port}/me`,
      auth: { kind: 'oauth2' as const, grant: 'client_credentials' as const, tokenUrl: `http://127.0.0.1:${tokens.port}/token`, clientId: 'c', clientSecret: 'TOKEN' },
    };
    const cache = new OAuth2TokenCache();
    const allowedHosts = [`127.0.0.1:${api.port}`, `127.0.0.1:${tokens.port}`];
    const r = await run(api, spec, {}, { tokenCache: cache, allowedHosts });
    expect(r.outcome).toMatchObject({ value: { ok: true }, attempts: 2 });
    expect(r.outcome!.http.requestHeaders['Authorization']).toBe('[redacted]');
    expect(issued).toBe(2);
    // The next call uses the cached token.
    await run(api, spec, {}, { tokenCache: cache, allowedHosts });
    expect(issued).toBe(2);
    accept = 'never';
    const r2 = await run(api, spec, {}, { tokenCache: cache, allowedHosts });
    expect(r2.error?.code).toBe('UNAUTHORIZED');
    expect(r2.error?.details).toMatchObject({ status: 401, attempts: 2 });
    expect(issued).toBe(3);
    for (const q of tokens.requests) expect(q.headers.authorization).toBe(`Basic ${Buffer.from(`c:${encodeURIComponent(SECRET).replace(/%20/g, '+')}`).toString('base64')}`);
  });
});

describe('SSE', () => {
  it('streams events to onEvent as they arrive; the value is the list of events', async () => {
    // The server writes the next event only once the caller has seen the previous one: a
    // client that waited for the whole body would never get it (and the call would time out).
    const seen: ((v: unknown) => void)[] = [];
    const delivered = (n: number) => new Promise((r) => (seen[n] = r));
    const s = await server(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const first = delivered(0);
      res.write('data: {"delta":"Hel"}\n\n');
      await first;
      const second = delivered(1);
      res.write('event: delta\nid: 2\ndata: {"delta":"lo"}\n\n');
      await second;
      res.end('data: [DONE]\n\n');
    });
    const events: unknown[] = [];
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/stream`, responseMode: 'sse', totalTimeoutMs: 10_000 }, {}, {
      onEvent: (e) => {
        seen[events.length]?.(undefined);
        events.push(e);
      },
    });
    expect(r.outcome?.value).toEqual([{ data: '{"delta":"Hel"}' }, { event: 'delta', id: '2', data: '{"delta":"lo"}' }, { data: '[DONE]' }]);
    expect(events[0]).toEqual({ kind: 'sse', data: { data: '{"delta":"Hel"}' } });
    expect(s.requests[0]!.headers.accept).toBe('text/event-stream');
    expect(r.outcome?.http.bodyText).toContain('[DONE]');
    expect(r.outcome?.http.sizeBytes).toBe(Buffer.byteLength('data: {"delta":"Hel"}\n\nevent: delta\nid: 2\ndata: {"delta":"lo"}\n\ndata: [DONE]\n\n'));
  });

  it('an endless stream ends at totalTimeoutMs', async () => {
    let stop = false;
    const s = await server(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      while (!stop && !res.destroyed) {
        res.write('data: tick\n\n');
        await sleepReal(50);
      }
      res.end();
    });
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/stream`, responseMode: 'sse', totalTimeoutMs: 800 });
    stop = true;
    expect(r.error?.code).toBe('TIMEOUT');
    expect(r.error?.message).toContain('totalTimeoutMs = 800 ms');
    expect(r.events.length).toBeGreaterThan(3);
  });

  it('a stream over maxResponseBytes is PAYLOAD_TOO_LARGE', async () => {
    const s = await server(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 100 && !res.destroyed; i++) res.write(`data: ${'x'.repeat(1000)}\n\n`);
      res.end();
    });
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/`, responseMode: 'sse', limits: { maxRetries: 0, maxSentBytes: 1 << 20, maxResponseBytes: 20_000, maxRedirects: 5 } });
    expect(r.error?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a 503 before any event is retried', async () => {
    let n = 0;
    const s = await server((_req, res) => {
      if (++n === 1) return json(res, 503, {});
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: ok\n\n');
    });
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/`, responseMode: 'sse' });
    expect(r.outcome).toMatchObject({ value: [{ data: 'ok' }], attempts: 2 });
  });
});

describe('maxCallsPerMinute', () => {
  it('refuses calls over the limit with RATE_LIMITED and retryAfterMs, sending nothing', async () => {
    const s = await server(echo);
    const rateLimiter = new RateLimiter();
    const spec = { urlTemplate: `http://127.0.0.1:${s.port}/`, limits: { maxCallsPerMinute: 2, maxRetries: 0, maxSentBytes: 1 << 20, maxResponseBytes: 1 << 20, maxRedirects: 5 } };
    await run(s, spec, {}, { rateLimiter });
    await run(s, spec, {}, { rateLimiter });
    const r = await run(s, spec, {}, { rateLimiter });
    expect(r.error?.code).toBe('RATE_LIMITED');
    expect((r.error?.details as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(50_000);
    expect(s.requests).toHaveLength(2);
    // Another tool has its own window.
    expect((await run(s, spec, {}, { rateLimiter, toolId: 'tool-2' })).error).toBeUndefined();
  });
});

describe('binary responses', () => {
  it("responseMode 'binary' returns the bytes as base64 with their type and size, never decoded as text", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x0a]);
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(bytes);
    });
    const r = await run(s, { urlTemplate: `http://127.0.0.1:${s.port}/widget.png`, responseMode: 'binary' });
    expect(r.error).toBeUndefined();
    expect(r.outcome!.value).toEqual({ contentType: 'image/png', sizeBytes: 8, base64: bytes.toString('base64') });
    expect(r.outcome!.http.bodyText).toBeUndefined();
  });
});
