/**
 * fetch_url against real HTTP servers on 127.0.0.1, through the real HttpTransport
 * (electron/core/invoke/http/transport.ts) with '127.0.0.1:PORT' allowed. Two minimal
 * transports written here cover the other shapes the Transport interface allows: one that
 * caps a body at maxResponseBytes instead of refusing it, and one that refuses everything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { HttpTransport } from '../invoke/http/transport';
import { startHttpServer, type Handler, type TestServer } from '../invoke/http/testing/servers';
import type { Transport, TransportRequest } from '../invoke/types';
import { appError, call, testContext } from './test-context';
import { createWebFunctions, FETCH_HARD_MAX_BYTES } from './web';

const fetchUrl = createWebFunctions()['fetch-url'];
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(handler: Handler): Promise<TestServer> {
  const s = await startHttpServer(handler);
  servers.push(s);
  return s;
}

function ctxFor(allowed: string[], transport: Transport = new HttpTransport(), signal?: AbortSignal) {
  return testContext('/nonexistent-workspace', { transport, allowedHosts: () => allowed, ...(signal ? { signal } : {}) });
}

const routes: Handler = (req, res) => {
  const url = req.url ?? '/';
  if (url === '/hello') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('héllo wörld');
  } else if (url === '/json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  } else if (url === '/big') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('x'.repeat(5000));
  } else if (url === '/big-chunked') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    for (let i = 0; i < 50; i++) res.write('y'.repeat(100));
    res.end();
  } else if (url === '/accents') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('é'.repeat(100));
  } else if (url === '/latin1') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
    res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  } else if (url === '/png') {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  } else if (url === '/missing') {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<h1>Not found</h1>');
  } else if (url === '/redirect') {
    res.writeHead(302, { location: '/hello' });
    res.end();
  } else {
    res.writeHead(500);
    res.end();
  }
};

describe('web.fetch-url (through the real HttpTransport)', () => {
  it('fetches a page: status, content type, decoded text', async () => {
    const s = await server(routes);
    const ctx = ctxFor([`127.0.0.1:${s.port}`]);
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/hello` })).toEqual({
      url: `${s.origin}/hello`,
      finalUrl: `${s.origin}/hello`,
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      encoding: 'text',
      text: 'héllo wörld',
      bytes: 13,
      truncated: false,
    });
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/json`, accept: 'application/json' })).toMatchObject({ text: '{"ok":true}', contentType: 'application/json' });
    expect(s.requests.at(-1)!.headers.accept).toBe('application/json');
    expect(s.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('cuts the body at maxBytes and marks it truncated (declared length or chunked)', async () => {
    const s = await server(routes);
    const ctx = ctxFor([`127.0.0.1:${s.port}`]);
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/big`, maxBytes: 100 })).toMatchObject({ status: 200, text: 'x'.repeat(100), bytes: 100, truncated: true });
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/big-chunked`, maxBytes: 250 })).toMatchObject({ status: 200, text: 'y'.repeat(250), truncated: true });
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/big`, maxBytes: 5000 })).toMatchObject({ bytes: 5000, truncated: false });
    // A cut never splits a UTF-8 character.
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/accents`, maxBytes: 5 })).toMatchObject({ text: 'éé', bytes: 4, truncated: true });
  });

  it('decodes the named charset, and returns binary content as base64', async () => {
    const s = await server(routes);
    const ctx = ctxFor([`127.0.0.1:${s.port}`]);
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/latin1` })).toMatchObject({ text: 'café', encoding: 'text' });
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/png` })).toMatchObject({ text: 'iVBORw==', encoding: 'base64', bytes: 4 });
  });

  it('returns error statuses as results, and follows redirects to allowed hosts', async () => {
    const s = await server(routes);
    const ctx = ctxFor([`127.0.0.1:${s.port}`]);
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/missing` })).toMatchObject({ status: 404, text: '<h1>Not found</h1>' });
    expect(await call(fetchUrl, ctx, { url: `${s.origin}/redirect#frag` })).toMatchObject({ url: `${s.origin}/redirect`, finalUrl: `${s.origin}/hello`, status: 200, text: 'héllo wörld' });
  });

  it('refuses hosts that are not allowed, also after a redirect, without sending anything', async () => {
    const target = await server(routes);
    const hop = await server((_req, res) => {
      res.writeHead(302, { location: `${target.origin}/hello` });
      res.end();
    });
    const e = await appError(call(fetchUrl, ctxFor([]), { url: `${target.origin}/hello` }));
    expect(e.code).toBe('FORBIDDEN');
    expect(target.accepted).toBe(0);
    expect((await appError(call(fetchUrl, ctxFor([`127.0.0.1:${hop.port}`]), { url: `${hop.origin}/` }))).code).toBe('FORBIDDEN');
    expect(target.accepted).toBe(0);
    expect((await appError(call(fetchUrl, ctxFor(['example.com']), { url: 'http://169.254.169.254/latest/meta-data' }))).code).toBe('FORBIDDEN');
  });

  it('refuses URLs that are not http(s) or carry credentials', async () => {
    const ctx = ctxFor(['example.com']);
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x', 'example.com', 'http://user:pw@example.com/', 'javascript:alert(1)']) {
      expect((await appError(call(fetchUrl, ctx, { url }))).code, url).toBe('VALIDATION_FAILED');
    }
  });

  it('is cancelled by the signal', async () => {
    const s = await server(() => undefined); // never answers
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    expect((await appError(call(fetchUrl, ctxFor([`127.0.0.1:${s.port}`], new HttpTransport(), ac.signal), { url: `${s.origin}/` }))).code).toBe('CANCELLED');
  });

  it('times out on a server that never answers', async () => {
    const s = await server(() => undefined);
    expect((await appError(call(fetchUrl, ctxFor([`127.0.0.1:${s.port}`]), { url: `${s.origin}/`, timeoutMs: 200 }))).code).toBe('TIMEOUT');
  });
});

describe('web.fetch-url (other transport shapes)', () => {
  it('with a transport that caps the body at maxResponseBytes: one request, truncated', async () => {
    const seen: TransportRequest[] = [];
    const capping: Transport = {
      async send(req) {
        seen.push(req);
        return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: new TextEncoder().encode('z'.repeat(Math.min(req.maxResponseBytes, 1000))), finalUrl: req.url, redirects: [] };
      },
      stream: () => Promise.reject(new Error('not used')),
    };
    const r = await call(fetchUrl, ctxFor(['example.com'], capping), { url: 'https://example.com/page', maxBytes: 10, timeoutMs: 5000 });
    expect(r).toMatchObject({ text: 'z'.repeat(10), truncated: true, contentType: 'text/plain', status: 200 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', maxResponseBytes: 11, timeoutMs: 5000, maxRedirects: 5 });
  });

  it('a body over the hard ceiling is PAYLOAD_TOO_LARGE; transport errors pass through', async () => {
    const refusing: Transport = {
      send: () => Promise.reject(new AppError('PAYLOAD_TOO_LARGE', 'too big')),
      stream: (req) => Promise.reject(new AppError('PAYLOAD_TOO_LARGE', `over ${req.maxResponseBytes}`)),
    };
    const e = await appError(call(fetchUrl, ctxFor(['example.com'], refusing), { url: 'https://example.com/' }));
    expect(e).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: `the response is larger than ${FETCH_HARD_MAX_BYTES / 1024 / 1024} MiB: fetch_url reads at most that much` });
    const down: Transport = { send: () => Promise.reject(new AppError('UNAVAILABLE', 'connection refused')), stream: () => Promise.reject(new Error('not used')) };
    expect(await appError(call(fetchUrl, ctxFor(['example.com'], down), { url: 'https://example.com/' }))).toMatchObject({ code: 'UNAVAILABLE', message: 'connection refused' });
  });
});
