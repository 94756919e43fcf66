import net from 'node:net';
import zlib from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError, type ErrorCode } from '../../../../shared/errors';
import type { TransportRequest } from '../types';
import { TEST_CERT, fakeLookup, freePort, startHttpServer, startHttpsServer, startRawServer, type Handler, type TestServer } from './testing/servers';
import { ResponseBudget } from './budget';
import { HttpTransport, MAX_REQUEST_BODY_BYTES } from './transport';

const MiB = 1024 * 1024;
const LOOPBACK_NAMES = ['allowed.test', 'a.test', 'b.test', 'loop.test', 'allowed.test.evil.test', 'evil.test'];

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(handler: Handler): Promise<TestServer> {
  const s = await startHttpServer(handler);
  servers.push(s);
  return s;
}

function lookupTable(extra: Parameters<typeof fakeLookup>[0] = {}) {
  return fakeLookup({
    ...Object.fromEntries(LOOPBACK_NAMES.map((n) => [n, '127.0.0.1'])),
    'meta.test': '169.254.169.254',
    'cgnat.test': '100.64.0.1',
    'ula.test': 'fd00::1',
    'zero.test': '0.0.0.0',
    'mapped.test': '::ffff:127.0.0.1',
    'private.test': '10.0.0.5',
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    ...extra,
  });
}

function req(url: string, over: Partial<TransportRequest> = {}): TransportRequest {
  return { method: 'GET', url, headers: {}, timeoutMs: 5_000, maxRedirects: 5, maxResponseBytes: MiB, signal: new AbortController().signal, ...over };
}

async function refused(p: Promise<unknown>, code: ErrorCode, message?: string | RegExp): Promise<AppError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err, 'the request should have failed').toBeInstanceOf(AppError);
  const e = err as AppError;
  expect(e.code, e.message).toBe(code);
  if (typeof message === 'string') expect(e.message).toContain(message);
  else if (message) expect(e.message).toMatch(message);
  return e;
}

const settle = () => new Promise((r) => setTimeout(r, 50));
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const ok: Handler = (_req, res) => res.end('hello');
const echo: Handler = (req, res, body) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString('utf8') }));
};
const redirectTo =
  (location: string, status = 302): Handler =>
  (_req, res) => {
    res.writeHead(status, { location });
    res.end('moved');
  };

/** Writes `total` zero bytes with backpressure; `sent` tells how many went out before the client stopped reading. */
function zeros(total: number, withLength: boolean) {
  const state = { sent: 0, closed: Promise.resolve() };
  const handler: Handler = async (_req, res) => {
    state.closed = new Promise((r) => res.once('close', () => r()));
    res.writeHead(200, withLength ? { 'content-length': String(total) } : {});
    const chunk = Buffer.alloc(64 * 1024);
    while (state.sent < total && !res.destroyed) {
      const more = res.write(chunk);
      state.sent += chunk.length;
      if (!more) await new Promise<void>((r) => (res.once('drain', r), res.once('close', r)));
    }
    res.end();
  };
  return { state, handler };
}

/** `size` zero bytes compressed by `make`, fed 1 MiB at a time (never held whole). */
async function bomb(make: () => zlib.Gzip | zlib.Deflate | zlib.BrotliCompress, size: number): Promise<Buffer> {
  const z = make();
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => z.on('end', r));
  const chunk = Buffer.alloc(MiB);
  for (let n = 0; n < size; n += MiB) if (!z.write(chunk)) await new Promise((r) => z.once('drain', r));
  z.end();
  await done;
  return Buffer.concat(out);
}

describe('HttpTransport: hosts', () => {
  it('reaches a host allowed exactly, and reports status, headers, body and final URL', async () => {
    const s = await server((_req, res) => {
      res.setHeader('x-reply', 'yes');
      res.end('hello');
    });
    const t = new HttpTransport({ lookup: lookupTable() });
    const r = await t.send(req(`http://allowed.test:${s.port}/ok#frag`), [`private:allowed.test:${s.port}`]);
    expect(r.status).toBe(200);
    expect(r.headers['x-reply']).toBe('yes');
    expect(text(r.body)).toBe('hello');
    expect(r.finalUrl).toBe(`http://allowed.test:${s.port}/ok`);
    expect(r.redirects).toEqual([]);
    expect(s.accepted).toBe(1);
  });

  it.each(['127.0.0.1', '2130706433', '0x7f.1', '127.1', '0177.0.0.1', '0x7f000001', '[::ffff:127.0.0.1]', '0.0.0.0', '0'])(
    "refuses the IP literal '%s' unless that address is allowed, with zero connections",
    async (host) => {
      const s = await server(ok);
      const t = new HttpTransport({ lookup: lookupTable() });
      const e = await refused(t.send(req(`http://${host}:${s.port}/`), [`localhost:${s.port}`, `*.test:${s.port}`, `private:allowed.test:${s.port}`]), 'FORBIDDEN', 'is not in the allowed hosts; add it in Settings → Allowed hosts');
      expect(e.message).toMatch(/^host '(127\.0\.0\.1|\[::ffff:7f00:1\]|0\.0\.0\.0):\d+'/);
      await settle();
      expect(s.accepted).toBe(0);
    },
  );

  it('treats every spelling of 127.0.0.1 as the allowed address 127.0.0.1 (but not its IPv4-mapped form)', async () => {
    const s = await server(ok);
    const t = new HttpTransport({ lookup: lookupTable() });
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '127.1', '0177.0.0.1']) {
      expect((await t.send(req(`http://${host}:${s.port}/`), [`127.0.0.1:${s.port}`])).status, host).toBe(200);
    }
    // One kept-alive connection serves all five spellings: they are one origin.
    const accepted = s.accepted;
    expect(accepted).toBeGreaterThanOrEqual(1);
    await refused(t.send(req(`http://[::ffff:127.0.0.1]:${s.port}/`), [`127.0.0.1:${s.port}`]), 'FORBIDDEN');
    await refused(t.send(req(`http://0.0.0.0:${s.port}/`), [`127.0.0.1:${s.port}`]), 'FORBIDDEN');
    await settle();
    expect(s.accepted).toBe(accepted);
  });

  it.each([
    ['loop.test', 'a loopback address (127.0.0.1)'],
    ['meta.test', 'a link-local address (169.254.169.254)'],
    ['cgnat.test', 'a shared (carrier-grade NAT) address (100.64.0.1)'],
    ['ula.test', 'a private address (fd00::1)'],
    ['zero.test', 'an unspecified address (0.0.0.0)'],
    ['mapped.test', 'a loopback address (::ffff:7f00:1, which is 127.0.0.1)'],
    ['private.test', 'a private address (10.0.0.5)'],
    ['mixed.test', 'a loopback address (127.0.0.1)'],
  ])('refuses %s, reached through a wildcard, as it resolves to %s', async (name, what) => {
    const s = await server(ok);
    const lookup = lookupTable();
    const t = new HttpTransport({ lookup });
    const e = await refused(t.send(req(`http://${name}:${s.port}/`), [`*.test:${s.port}`]), 'FORBIDDEN', `'${name}' resolves to ${what}, refused unless '${name}' is marked as a private-network host`);
    expect(e.message).toContain(`add 'private:${name}:${s.port}' in Settings → Allowed hosts`);
    await settle();
    expect(s.accepted).toBe(0);
  });

  it('lets a name that resolves to loopback through only when its entry is marked private:', async () => {
    const s = await server(ok);
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req(`http://loop.test:${s.port}/`), [`*.test:${s.port}`]), 'FORBIDDEN');
    // Listed exactly but not marked: a name must resolve to public addresses.
    await refused(
      t.send(req(`http://loop.test:${s.port}/`), [`loop.test:${s.port}`]),
      'FORBIDDEN',
      `'loop.test' resolves to a loopback address (127.0.0.1), refused unless 'loop.test' is marked as a private-network host; add 'private:loop.test:${s.port}'`,
    );
    await settle();
    expect(s.accepted).toBe(0);
    expect((await t.send(req(`http://loop.test:${s.port}/`), [`*.test:${s.port}`, `private:loop.test:${s.port}`])).status).toBe(200);
    expect((await t.send(req(`http://loop.test:${s.port}/`), [`private:*.test:${s.port}`])).status).toBe(200);
    expect(s.accepted).toBeGreaterThan(0);
  });

  it('refuses an exactly listed name whose answer turns to loopback (rebinding), or that resolves to the metadata address', async () => {
    const s = await server(ok);
    const lookup = lookupTable({ 'rebind.test': { turns: ['93.184.216.34', '127.0.0.1'] } });
    const t = new HttpTransport({ lookup });
    await refused(t.send(req(`http://rebind.test:${s.port}/`), [`rebind.test:${s.port}`]), 'FORBIDDEN', "'rebind.test' resolves to a loopback address (127.0.0.1)");
    expect(lookup.calls['rebind.test']).toBe(2);
    await refused(t.send(req(`http://meta.test:${s.port}/`), [`meta.test:${s.port}`]), 'FORBIDDEN', "'meta.test' resolves to a link-local address (169.254.169.254)");
    await settle();
    expect(s.accepted).toBe(0);
  });

  it('lets localhost listed exactly reach loopback, and nothing else private', async () => {
    const s = await server(ok);
    const t = new HttpTransport({ lookup: lookupTable({ localhost: ['127.0.0.1'], 'localhost.': ['127.0.0.1'] }) });
    expect((await t.send(req(`http://localhost:${s.port}/`), [`localhost:${s.port}`])).status).toBe(200);
    const lan = new HttpTransport({ lookup: lookupTable({ localhost: ['10.0.0.5'] }) });
    await refused(lan.send(req(`http://localhost:${s.port}/`), [`localhost:${s.port}`]), 'FORBIDDEN', "'localhost' resolves to a private address (10.0.0.5)");
    expect(s.accepted).toBe(1);
  });

  it('uses the real resolver by default: localhost needs its exact entry', async () => {
    const s = await server(ok);
    const t = new HttpTransport();
    await refused(t.send(req(`http://localhost:${s.port}/`), [`127.0.0.1:${s.port}`]), 'FORBIDDEN', 'not in the allowed hosts');
    await settle();
    expect(s.accepted).toBe(0);
    expect((await t.send(req(`http://localhost:${s.port}/`), [`localhost:${s.port}`])).status).toBe(200);
  });

  it('refuses a DNS answer that turns private at connect time (rebinding), with zero connections', async () => {
    const s = await server(ok);
    const lookup = lookupTable({ 'rebind.test': { turns: ['93.184.216.34', '127.0.0.1'] } });
    const t = new HttpTransport({ lookup });
    await refused(t.send(req(`http://rebind.test:${s.port}/`), [`*.test:${s.port}`]), 'FORBIDDEN', "'rebind.test' resolves to a loopback address (127.0.0.1)");
    expect(lookup.calls['rebind.test']).toBe(2); // the pre-check saw a public address; the socket's own lookup did not
    await settle();
    expect(s.accepted).toBe(0);
  });

  it('is not fooled by look-alike hosts or user info', async () => {
    const s = await server(ok);
    const lookup = lookupTable();
    const t = new HttpTransport({ lookup });
    const allowed = [`private:allowed.test:${s.port}`];
    await refused(t.send(req(`http://allowed.test.evil.test:${s.port}/`), allowed), 'FORBIDDEN', `host 'allowed.test.evil.test:${s.port}' is not in the allowed hosts`);
    await refused(t.send(req(`http://evil@allowed.test:${s.port}/`), allowed), 'FORBIDDEN', 'user info');
    await refused(t.send(req(`http://evil:pw@allowed.test:${s.port}/`), allowed), 'FORBIDDEN', 'user info');
    await refused(t.send(req(`http://allowed.test@evil.test:${s.port}/`), allowed), 'FORBIDDEN');
    await refused(t.send(req(`http://allowed.test:${s.port}@127.0.0.1:${s.port}/`), allowed), 'FORBIDDEN');
    await refused(t.send(req(`http://allowed.test..:${s.port}/`), allowed), 'FORBIDDEN', 'not in the allowed hosts');
    await refused(t.send(req(`http://allowed.test:${s.port + 1 > 65535 ? 1 : s.port + 1}/`), allowed), 'FORBIDDEN');
    expect(lookup.calls['allowed.test.evil.test']).toBeUndefined();
    expect(lookup.calls['evil.test']).toBeUndefined();
    await settle();
    expect(s.accepted).toBe(0);
  });

  it("treats 'allowed.test.' as 'allowed.test': allowed when that host is allowed exactly, refused otherwise", async () => {
    const s = await server(echo);
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req(`http://allowed.test.:${s.port}/`), [`private:other.test:${s.port}`]), 'FORBIDDEN', `host 'allowed.test:${s.port}' is not in the allowed hosts`);
    await refused(t.send(req(`http://allowed.test.:${s.port}/`), [`*.test:${s.port}`]), 'FORBIDDEN', 'resolves to a loopback address');
    await settle();
    expect(s.accepted).toBe(0);
    const r = await t.send(req(`http://ALLOWED.test.:${s.port}/`), [`private:allowed.test:${s.port}`]);
    expect(r.status).toBe(200);
    expect(s.accepted).toBe(1);
  });

  it('refuses schemes other than http and https', async () => {
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req('file:///etc/passwd'), ['allowed.test']), 'FORBIDDEN', "the scheme 'file' is refused");
    await refused(t.send(req('ftp://allowed.test/x'), ['allowed.test']), 'FORBIDDEN', "the scheme 'ftp' is refused");
    await refused(t.send(req('not a url'), ['allowed.test']), 'VALIDATION_FAILED', 'not a valid absolute URL');
  });

  it('reaches IPv6 loopback only when [::1]:port is allowed', async (ctx) => {
    let s: TestServer;
    try {
      s = await startHttpServer(ok, '::1');
    } catch {
      ctx.skip();
      return;
    }
    servers.push(s);
    const t = new HttpTransport();
    await refused(t.send(req(`http://[::1]:${s.port}/`), [`localhost:${s.port}`, `127.0.0.1:${s.port}`]), 'FORBIDDEN', `host '[::1]:${s.port}'`);
    await settle();
    expect(s.accepted).toBe(0);
    expect((await t.send(req(`http://[0:0::1]:${s.port}/`), [`[::1]:${s.port}`])).status).toBe(200);
  });
});

describe('HttpTransport: redirects', () => {
  it('refuses a redirect to a loopback address that is not allowed, with zero connections to it', async () => {
    const b = await server(ok);
    const a = await server(redirectTo(`http://127.0.0.1:${b.port}/`));
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req(`http://a.test:${a.port}/`), [`private:a.test:${a.port}`, `*.test:${b.port}`]), 'FORBIDDEN', `host '127.0.0.1:${b.port}' is not in the allowed hosts`);
    await refused(t.send(req(`http://a.test:${a.port}/`), [`private:a.test:${a.port}`, `localhost:${b.port}`]), 'FORBIDDEN');
    await settle();
    expect(a.accepted).toBeGreaterThan(0);
    expect(b.accepted).toBe(0);
  });

  it('refuses a redirect to a wildcard-allowed name that resolves to loopback', async () => {
    const b = await server(ok);
    const a = await server(redirectTo(`http://b.test:${b.port}/`));
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req(`http://a.test:${a.port}/`), [`private:a.test:${a.port}`, `*.test:${b.port}`]), 'FORBIDDEN', "'b.test' resolves to a loopback address");
    await settle();
    expect(b.accepted).toBe(0);
  });

  it('refuses a redirect to a host not allowed, and to file:', async () => {
    const b = await server(ok);
    const a = await server((req, res) => {
      res.writeHead(302, { location: req.url === '/file' ? 'file:///etc/passwd' : `http://evil.test:${b.port}/` });
      res.end();
    });
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req(`http://a.test:${a.port}/`), [`private:a.test:${a.port}`]), 'FORBIDDEN', `host 'evil.test:${b.port}' is not in the allowed hosts`);
    await refused(t.send(req(`http://a.test:${a.port}/file`), [`private:a.test:${a.port}`, '*.test']), 'FORBIDDEN', "the scheme 'file' is refused");
    await settle();
    expect(b.accepted).toBe(0);
  });

  it('follows a redirect to another allowed host, dropping Authorization, Cookie and credential headers', async () => {
    const b = await server(echo);
    const a = await server(redirectTo(`http://b.test:${b.port}/landing?x=1`));
    const t = new HttpTransport({ lookup: lookupTable() });
    const headers = { Authorization: 'Bearer SECRET', Cookie: 'sid=1', 'X-Api-Key': 'k', 'X-Auth-Token': 't', 'X-Custom': 'kept', Host: 'evil.example' };
    const r = await t.send(req(`http://a.test:${a.port}/start`, { headers }), [`private:a.test:${a.port}`, `private:b.test:${b.port}`]);
    expect(r.status).toBe(200);
    expect(r.finalUrl).toBe(`http://b.test:${b.port}/landing?x=1`);
    expect(r.redirects).toEqual([`http://b.test:${b.port}/landing?x=1`]);
    expect(a.requests[0]!.headers).toMatchObject({ authorization: 'Bearer SECRET', cookie: 'sid=1', host: `a.test:${a.port}` });
    const seen = b.requests[0]!.headers;
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
    expect(seen['x-api-key']).toBeUndefined();
    expect(seen['x-auth-token']).toBeUndefined();
    expect(seen['x-custom']).toBe('kept');
    expect(seen.host).toBe(`b.test:${b.port}`);
  });

  it('keeps Authorization on a same-origin redirect (relative Location)', async () => {
    const s = await server((req, res, body) => (req.url === '/start' ? redirectTo('/end')(req, res, body) : echo(req, res, body)));
    const t = new HttpTransport({ lookup: lookupTable() });
    const r = await t.send(req(`http://a.test:${s.port}/start`, { headers: { authorization: 'Bearer SECRET' } }), [`private:a.test:${s.port}`]);
    expect(JSON.parse(text(r.body)).headers.authorization).toBe('Bearer SECRET');
    expect(r.redirects).toEqual([`http://a.test:${s.port}/end`]);
  });

  it('turns 303 (and 301/302 after POST) into GET without a body; 307 and 308 keep both', async () => {
    const s = await server((req, res, body) => (req.url!.startsWith('/r') ? redirectTo('/echo', Number(req.url!.slice(2)))(req, res, body) : echo(req, res, body)));
    const t = new HttpTransport({ lookup: lookupTable() });
    const post = (status: number, method = 'POST') =>
      t.send(req(`http://a.test:${s.port}/r${status}`, { method, body: Buffer.from('payload'), headers: { 'content-type': 'text/plain' } }), [`private:a.test:${s.port}`]).then((r) => JSON.parse(text(r.body)));
    for (const status of [301, 302, 303]) {
      const seen = await post(status);
      expect(seen, String(status)).toMatchObject({ method: 'GET', body: '' });
      expect(seen.headers['content-type']).toBeUndefined();
    }
    for (const status of [307, 308]) expect(await post(status), String(status)).toMatchObject({ method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } });
    expect(await post(302, 'PUT')).toMatchObject({ method: 'PUT', body: 'payload' });
    expect(await post(303, 'PUT')).toMatchObject({ method: 'GET', body: '' });
  });

  it('stops an endless redirect loop after maxRedirects hops (capped at 10): 11 requests, then a clear error', async () => {
    const s = await server((req, res) => {
      const n = Number(req.url!.split('/')[2] ?? 0);
      res.writeHead(302, { location: `/loop/${n + 1}` });
      res.end();
    });
    const t = new HttpTransport({ lookup: lookupTable() });
    const e = await refused(t.send(req(`http://a.test:${s.port}/loop/0`, { maxRedirects: 10 }), [`private:a.test:${s.port}`]), 'UNAVAILABLE', `'a.test:${s.port}' redirected more than 10 times`);
    expect(e.details).toMatchObject({ reason: 'too-many-redirects', limit: 10 });
    expect(s.requests).toHaveLength(11);
    s.requests.length = 0;
    await refused(t.send(req(`http://a.test:${s.port}/loop/0`, { maxRedirects: 1000 }), [`private:a.test:${s.port}`]), 'UNAVAILABLE', 'more than 10 times');
    expect(s.requests).toHaveLength(11);
    s.requests.length = 0;
    await refused(t.send(req(`http://a.test:${s.port}/loop/0`, { maxRedirects: 0 }), [`private:a.test:${s.port}`]), 'UNAVAILABLE', 'more than 0 times');
    expect(s.requests).toHaveLength(1);
  });

  it('reads no body for HEAD, whatever Content-Length says', async () => {
    const s = await server((_req, res) => res.writeHead(200, { 'content-length': String(1024 * MiB) }).end());
    const r = await new HttpTransport({ lookup: lookupTable() }).send(req(`http://a.test:${s.port}/`, { method: 'HEAD', maxResponseBytes: 10 }), [`private:a.test:${s.port}`]);
    expect(r.status).toBe(200);
    expect(r.body.byteLength).toBe(0);
    expect(r.headers['content-length']).toBe(String(1024 * MiB));
  });

  it('returns a 3xx without Location as it is', async () => {
    const s = await server((_req, res) => {
      res.statusCode = 304;
      res.end();
    });
    const r = await new HttpTransport({ lookup: lookupTable() }).send(req(`http://a.test:${s.port}/`), [`private:a.test:${s.port}`]);
    expect(r.status).toBe(304);
  });
});

describe('HttpTransport: bytes', () => {
  it('stops a 1 GB chunked body at maxResponseBytes without reading it all', async () => {
    const { state, handler } = zeros(1024 * MiB, false);
    const s = await server(handler);
    const t = new HttpTransport({ lookup: lookupTable() });
    const e = await refused(t.send(req(`http://a.test:${s.port}/`, { maxResponseBytes: MiB }), [`private:a.test:${s.port}`]), 'PAYLOAD_TOO_LARGE', `over this tool's limit of ${MiB} bytes (limits.maxResponseBytes); reading stopped there`);
    expect(e.details).toMatchObject({ limit: MiB, stage: 'plain' });
    await state.closed;
    expect(state.sent).toBeLessThan(64 * MiB);
  });

  it('refuses a 1 GB body announced by Content-Length before reading it', async () => {
    const { state, handler } = zeros(1024 * MiB, true);
    const s = await server(handler);
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req(`http://a.test:${s.port}/`, { maxResponseBytes: MiB }), [`private:a.test:${s.port}`]), 'PAYLOAD_TOO_LARGE', `is ${1024 * MiB} bytes (Content-Length), over this tool's limit`);
    await state.closed;
    expect(state.sent).toBeLessThan(64 * MiB);
  });

  it('takes a body of exactly maxResponseBytes, refuses one byte more', async () => {
    const s = await server((req, res) => res.end(Buffer.alloc(Number(req.url!.slice(1)), 0x61)));
    const t = new HttpTransport({ lookup: lookupTable() });
    expect((await t.send(req(`http://a.test:${s.port}/1000`, { maxResponseBytes: 1000 }), [`private:a.test:${s.port}`])).body.byteLength).toBe(1000);
    await refused(t.send(req(`http://a.test:${s.port}/1001`, { maxResponseBytes: 1000 }), [`private:a.test:${s.port}`]), 'PAYLOAD_TOO_LARGE');
  });

  describe('compressed bodies', () => {
    let gzipBomb: Buffer;
    let deflateBomb: Buffer;
    let brBomb: Buffer;
    beforeAll(async () => {
      gzipBomb = await bomb(() => zlib.createGzip({ level: 9 }), 128 * MiB);
      deflateBomb = await bomb(() => zlib.createDeflate({ level: 9 }), 128 * MiB);
      brBomb = await bomb(() => zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }), 128 * MiB);
    }, 60_000);

    it.each(['gzip', 'deflate', 'br'] as const)('counts decompressed bytes of a %s bomb and stops at the limit', async (enc) => {
      const payload = enc === 'gzip' ? gzipBomb : enc === 'deflate' ? deflateBomb : brBomb;
      expect(payload.length).toBeLessThan(MiB);
      let sent = 0;
      const s = await server((_req, res) => {
        res.writeHead(200, { 'content-encoding': enc, 'content-length': String(payload.length) });
        sent = payload.length;
        res.end(payload);
      });
      const budget = new ResponseBudget(64 * MiB);
      const t = new HttpTransport({ lookup: lookupTable(), responseBudget: budget });
      const allowed = [`private:a.test:${s.port}`];
      const e = await refused(t.send(req(`http://a.test:${s.port}/`, { maxResponseBytes: MiB }), allowed), 'PAYLOAD_TOO_LARGE', 'once decompressed');
      expect(e.details).toMatchObject({ stage: 'decompressed' });
      expect(sent).toBeLessThan(MiB);
      expect(budget.inUse).toBe(0);
      // Streamed, the decoded bytes handed over stop at the limit.
      let delivered = 0;
      await refused(t.stream(req(`http://a.test:${s.port}/`, { maxResponseBytes: MiB }), allowed, (c) => (delivered += c.byteLength)), 'PAYLOAD_TOO_LARGE', 'once decompressed');
      expect(delivered).toBeLessThanOrEqual(MiB);
    });

    it('stops decoding at once when the call is cut: no decoded chunk is handed over after the abort', async () => {
      const s = await server((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(gzipBomb.length) });
        res.end(gzipBomb);
      });
      const t = new HttpTransport({ lookup: lookupTable() });
      const ctl = new AbortController();
      let afterAbort = 0;
      let before = 0;
      await refused(
        t.stream(req(`http://a.test:${s.port}/`, { maxResponseBytes: 512 * MiB, signal: ctl.signal }), [`private:a.test:${s.port}`], (c) => {
          if (ctl.signal.aborted) afterAbort += c.byteLength;
          else if ((before += c.byteLength) >= MiB) ctl.abort();
        }),
        'CANCELLED',
      );
      expect(before).toBeGreaterThanOrEqual(MiB);
      expect(afterAbort).toBe(0);
    });

    it('decodes gzip, zlib deflate, raw deflate, br and two stacked encodings', async () => {
      const body = Buffer.from('{"hello":"world"}'.repeat(100));
      const variants: Record<string, [string, Buffer]> = {
        gzip: ['gzip', zlib.gzipSync(body)],
        xgzip: ['x-gzip', zlib.gzipSync(body)],
        deflate: ['deflate', zlib.deflateSync(body)],
        raw: ['deflate', zlib.deflateRawSync(body)],
        br: ['br', zlib.brotliCompressSync(body)],
        stacked: ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(body))],
        identity: ['identity', body],
      };
      const s = await server((req, res) => {
        const [enc, data] = variants[req.url!.slice(1)]!;
        res.writeHead(200, { 'content-encoding': enc, 'content-length': String(data.length) });
        res.end(data);
      });
      const t = new HttpTransport({ lookup: lookupTable() });
      for (const name of Object.keys(variants)) {
        const r = await t.send(req(`http://a.test:${s.port}/${name}`), [`private:a.test:${s.port}`]);
        expect(text(r.body), name).toBe(body.toString());
        if (name !== 'identity') expect(r.headers['content-encoding'], name).toBeUndefined();
      }
      expect(s.requests[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
    });

    it('reports a corrupt body, refuses three stacked encodings, passes unknown encodings through raw', async () => {
      const s = await server((req, res) => {
        if (req.url === '/corrupt') res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('definitely not gzip data'));
        else if (req.url === '/triple') res.writeHead(200, { 'content-encoding': 'gzip, gzip, gzip' }).end(zlib.gzipSync(zlib.gzipSync(zlib.gzipSync('x'))));
        else res.writeHead(200, { 'content-encoding': 'zstd' }).end('raw-bytes');
      });
      const t = new HttpTransport({ lookup: lookupTable() });
      const allowed = [`private:a.test:${s.port}`];
      await refused(t.send(req(`http://a.test:${s.port}/corrupt`), allowed), 'UNAVAILABLE', 'could not be decompressed (gzip)');
      await refused(t.send(req(`http://a.test:${s.port}/triple`), allowed), 'UNAVAILABLE', 'encoded 3 times');
      const r = await t.send(req(`http://a.test:${s.port}/zstd`), allowed);
      expect(text(r.body)).toBe('raw-bytes');
      expect(r.headers['content-encoding']).toBe('zstd');
    });
  });

  it('refuses a request body over 64 MiB before connecting', async () => {
    const s = await server(ok);
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req(`http://a.test:${s.port}/`, { method: 'POST', body: new Uint8Array(MAX_REQUEST_BODY_BYTES + 1) }), [`private:a.test:${s.port}`]), 'PAYLOAD_TOO_LARGE', 'at most 67108864 bytes (64 MiB)');
    await settle();
    expect(s.accepted).toBe(0);
  });

  it('sends a request body and the caller’s headers, minus the ones the transport owns', async () => {
    const s = await server(echo);
    const t = new HttpTransport({ lookup: lookupTable(), userAgent: 'Toolsmith-test' });
    const r = await t.send(
      req(`http://a.test:${s.port}/p?q=1`, { method: 'post', body: Buffer.from('{"a":1}'), headers: { 'Content-Type': 'application/json', 'Content-Length': '999', Connection: 'close', Host: 'evil.example' } }),
      [`private:a.test:${s.port}`],
    );
    const seen = JSON.parse(text(r.body));
    expect(seen).toMatchObject({ method: 'POST', url: '/p?q=1', body: '{"a":1}' });
    expect(seen.headers).toMatchObject({ 'content-type': 'application/json', 'content-length': '7', host: `a.test:${s.port}`, 'user-agent': 'Toolsmith-test' });
  });

  it('returns a 503 as a response: retrying is the caller’s job', async () => {
    const s = await server((_req, res) => res.writeHead(503, { 'retry-after': '1' }).end('busy'));
    const r = await new HttpTransport({ lookup: lookupTable() }).send(req(`http://a.test:${s.port}/`), [`private:a.test:${s.port}`]);
    expect(r.status).toBe(503);
    expect(text(r.body)).toBe('busy');
    expect(s.requests).toHaveLength(1);
  });
});

describe('HttpTransport: time, cancellation and network errors', () => {
  it('gives up on a server that never answers after timeoutMs', async () => {
    const sockets: net.Socket[] = [];
    const s = await startRawServer((sock) => sockets.push(sock));
    servers.push(s);
    const t = new HttpTransport({ lookup: lookupTable() });
    const e = await refused(t.send(req(`http://a.test:${s.port}/`, { timeoutMs: 300 }), [`private:a.test:${s.port}`]), 'TIMEOUT', `no complete response from 'a.test:${s.port}' within 300 ms`);
    expect(e.details).toMatchObject({ timeoutMs: 300 });
    expect(s.accepted).toBe(1);
    // The transport closed its side: the server sees the connection end.
    await new Promise((r) => sockets[0]!.once('close', r).resume());
  });

  it('gives up on a body that trickles forever', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200);
      const iv = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(iv));
    });
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.send(req(`http://a.test:${s.port}/`, { timeoutMs: 300 }), [`private:a.test:${s.port}`]), 'TIMEOUT');
  });

  it('cancels: before starting (no connection) and mid-request (the connection is closed)', async () => {
    const sockets: net.Socket[] = [];
    const s = await startRawServer((sock) => sockets.push(sock));
    servers.push(s);
    const t = new HttpTransport({ lookup: lookupTable() });
    const pre = new AbortController();
    pre.abort();
    await refused(t.send(req(`http://a.test:${s.port}/`, { signal: pre.signal }), [`private:a.test:${s.port}`]), 'CANCELLED', 'the request was cancelled');
    await settle();
    expect(s.accepted).toBe(0);
    const mid = new AbortController();
    const sending = t.send(req(`http://a.test:${s.port}/`, { signal: mid.signal, timeoutMs: 10_000 }), [`private:a.test:${s.port}`]);
    while (sockets.length === 0) await settle();
    mid.abort();
    await refused(sending, 'CANCELLED');
    expect(s.accepted).toBe(1);
    await new Promise((r) => sockets[0]!.once('close', r).resume());
  });

  it('reports a refused connection and a name that does not resolve as UNAVAILABLE with the cause', async () => {
    const port = await freePort();
    const t = new HttpTransport({ lookup: lookupTable() });
    const e = await refused(t.send(req(`http://127.0.0.1:${port}/`), [`127.0.0.1:${port}`]), 'UNAVAILABLE', `could not connect to '127.0.0.1:${port}' (connection refused)`);
    expect(e.details).toMatchObject({ cause: 'ECONNREFUSED' });
    const d = await refused(t.send(req('http://nowhere.test/'), ['nowhere.test']), 'UNAVAILABLE', "could not resolve 'nowhere.test' (ENOTFOUND)");
    expect(d.details).toMatchObject({ cause: 'ENOTFOUND' });
  });
});

describe('HttpTransport: calls sharing a pool', () => {
  it("one call's failure never touches another's: concurrent calls on the same pool, to the same and other hosts, finish", async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const slow = await server(async (_req, res) => {
      res.writeHead(200);
      res.write('first half, ');
      await released;
      res.end('second half');
    });
    const bad = await server((req, res) => {
      if (req.url === '/big') res.end(Buffer.alloc(2 * MiB));
      else if (req.url === '/corrupt') res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all');
      else res.writeHead(200).write('never ends');
    });
    const t = new HttpTransport({ lookup: lookupTable() });
    const allowed = [`private:a.test:${slow.port}`, `private:b.test:${bad.port}`];
    const chunks: string[] = [];
    const streaming = t.stream(req(`http://a.test:${slow.port}/stream`), allowed, (c) => chunks.push(text(c)));
    const sending = t.send(req(`http://a.test:${slow.port}/send`), allowed);
    while (slow.requests.length < 2) await settle();
    // Meanwhile, on the same pool (same allowlist and timeout): too large, corrupt, cancelled.
    await refused(t.send(req(`http://b.test:${bad.port}/big`), allowed), 'PAYLOAD_TOO_LARGE');
    await refused(t.send(req(`http://b.test:${bad.port}/corrupt`), allowed), 'UNAVAILABLE', 'could not be decompressed');
    const ac = new AbortController();
    const cancelled = t.send(req(`http://b.test:${bad.port}/hang`, { signal: ac.signal }), allowed);
    while (bad.requests.length < 3) await settle();
    ac.abort();
    await refused(cancelled, 'CANCELLED');
    release();
    expect(text((await sending).body)).toBe('first half, second half');
    await streaming;
    expect(chunks.join('')).toBe('first half, second half');
    // And the pool still serves new calls.
    expect((await t.send(req(`http://b.test:${bad.port}/big`, { maxResponseBytes: 4 * MiB }), allowed)).body.byteLength).toBe(2 * MiB);
  });
});

describe('HttpTransport: the shared response budget', () => {
  it('stops a call that would take the bodies held by all calls past the budget, and gives bytes back when calls end', async () => {
    const budget = new ResponseBudget(MiB);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const s = await server(async (req, res) => {
      res.writeHead(200);
      if (req.url === '/held') {
        res.write(Buffer.alloc(600 * 1024, 0x61));
        await released;
        res.end(Buffer.alloc(100 * 1024, 0x61));
      } else res.end(Buffer.alloc(700 * 1024, 0x62));
    });
    const t = new HttpTransport({ lookup: lookupTable(), responseBudget: budget });
    const allowed = [`private:a.test:${s.port}`];
    const held = t.send(req(`http://a.test:${s.port}/held`), allowed);
    while (budget.inUse < 600 * 1024) await settle();
    const e = await refused(t.send(req(`http://a.test:${s.port}/other`), allowed), 'PAYLOAD_TOO_LARGE', 'responses being read at the same time already hold');
    expect(e.details).toMatchObject({ stage: 'budget', budget: MiB });
    expect((e.details as { readBytes: number }).readBytes).toBeLessThanOrEqual(MiB - 600 * 1024);
    expect(budget.inUse).toBe(600 * 1024);
    release();
    expect((await held).body.byteLength).toBe(700 * 1024);
    expect(budget.inUse).toBe(0);
    // With the budget free again, the same call is read whole; a failed call gives its bytes back too.
    expect((await t.send(req(`http://a.test:${s.port}/other`), allowed)).body.byteLength).toBe(700 * 1024);
    await refused(t.send(req(`http://a.test:${s.port}/other`, { maxResponseBytes: 1000 }), allowed), 'PAYLOAD_TOO_LARGE', "over this tool's limit");
    expect(budget.inUse).toBe(0);
  });
});

describe('HttpTransport.stream', () => {
  const sse: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let n = 0;
    const iv = setInterval(() => {
      res.write(`data: ${n}\n\n`);
      if (++n === 8) {
        clearInterval(iv);
        res.end();
      }
    }, 100);
    res.on('close', () => clearInterval(iv));
  };

  it('delivers chunks as they come; timeoutMs bounds each wait, not the whole stream', async () => {
    const s = await server(sse);
    const t = new HttpTransport({ lookup: lookupTable() });
    const chunks: string[] = [];
    // The server takes 8 × 100 ms to send it all, longer than timeoutMs: each gap is shorter.
    const head = await t.stream(req(`http://a.test:${s.port}/`, { timeoutMs: 500 }), [`private:a.test:${s.port}`], (c) => chunks.push(text(c)));
    expect(head).toMatchObject({ status: 200, finalUrl: `http://a.test:${s.port}/`, redirects: [] });
    expect(head.headers['content-type']).toBe('text/event-stream');
    expect(chunks.join('')).toBe(Array.from({ length: 8 }, (_, i) => `data: ${i}\n\n`).join(''));
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('times out when the stream goes quiet, and stops at maxResponseBytes', async () => {
    const quiet = await server((_req, res) => {
      res.writeHead(200);
      res.write('data: 1\n\n');
    });
    const t = new HttpTransport({ lookup: lookupTable() });
    const got: string[] = [];
    await refused(t.stream(req(`http://a.test:${quiet.port}/`, { timeoutMs: 300 }), [`private:a.test:${quiet.port}`], (c) => got.push(text(c))), 'TIMEOUT', 'no data');
    expect(got).toEqual(['data: 1\n\n']);
    const { handler, state } = zeros(1024 * MiB, false);
    const big = await server(handler);
    let n = 0;
    await refused(t.stream(req(`http://a.test:${big.port}/`, { maxResponseBytes: MiB }), [`private:a.test:${big.port}`], (c) => (n += c.byteLength)), 'PAYLOAD_TOO_LARGE');
    expect(n).toBeLessThanOrEqual(MiB);
    await state.closed;
    expect(state.sent).toBeLessThan(64 * MiB);
  });

  it('follows the same host rules', async () => {
    const s = await server(sse);
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(t.stream(req(`http://loop.test:${s.port}/`), [`*.test:${s.port}`], () => undefined), 'FORBIDDEN');
    await settle();
    expect(s.accepted).toBe(0);
  });

  it('passes any error thrown by onChunk through untouched', async () => {
    const s = await server(sse);
    const t = new HttpTransport({ lookup: lookupTable() });
    const boom = new TypeError('parser broke');
    await expect(
      t.stream(req(`http://a.test:${s.port}/`), [`private:a.test:${s.port}`], () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  it('passes an AppError thrown by onChunk through and closes the connection', async () => {
    const s = await server(sse);
    const t = new HttpTransport({ lookup: lookupTable() });
    await refused(
      t.stream(req(`http://a.test:${s.port}/`), [`private:a.test:${s.port}`], () => {
        throw new AppError('CANCELLED', 'enough');
      }),
      'CANCELLED',
      'enough',
    );
  });
});

describe('HttpTransport over https', () => {
  async function tlsServer(handler: Handler): Promise<TestServer> {
    const s = await startHttpsServer(handler);
    servers.push(s);
    return s;
  }

  it('verifies the certificate against the name, with the same host rules', async () => {
    const s = await tlsServer(echo);
    const t = new HttpTransport({ lookup: lookupTable(), extraCa: TEST_CERT });
    const r = await t.send(req(`https://a.test:${s.port}/secure`), [`private:a.test:${s.port}`]);
    expect(r.status).toBe(200);
    expect(JSON.parse(text(r.body)).url).toBe('/secure');
    await refused(t.send(req(`https://loop.test:${s.port}/`), [`*.test:${s.port}`]), 'FORBIDDEN', 'resolves to a loopback address');
    expect(s.accepted).toBe(1);
    // The certificate does not name loop.test: allowed exactly, it is reached and refused by TLS.
    await refused(t.send(req(`https://loop.test:${s.port}/`), [`private:loop.test:${s.port}`]), 'UNAVAILABLE', `the secure connection to 'loop.test:${s.port}' failed (ERR_TLS_CERT_ALTNAME_INVALID)`);
  });

  it('refuses an untrusted certificate', async () => {
    const s = await tlsServer(ok);
    const e = await refused(new HttpTransport({ lookup: lookupTable() }).send(req(`https://a.test:${s.port}/`), [`private:a.test:${s.port}`]), 'UNAVAILABLE', 'the secure connection');
    expect(e.details).toMatchObject({ cause: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY/) });
  });

  it('drops Authorization when a redirect leaves https for http on the same host', async () => {
    const plain = await server(echo);
    const s = await tlsServer(redirectTo(`http://a.test:${plain.port}/down`));
    const t = new HttpTransport({ lookup: lookupTable(), extraCa: [TEST_CERT] });
    const r = await t.send(req(`https://a.test:${s.port}/`, { headers: { authorization: 'Bearer SECRET' } }), [`private:a.test:${s.port}`, `private:a.test:${plain.port}`]);
    expect(r.finalUrl).toBe(`http://a.test:${plain.port}/down`);
    expect(s.requests[0]!.headers.authorization).toBe('Bearer SECRET');
    expect(plain.requests[0]!.headers.authorization).toBeUndefined();
  });
});
