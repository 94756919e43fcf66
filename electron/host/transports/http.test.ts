import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createCore, type Core } from '../../core/app';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { startHttpHost, type HttpHost } from './http';

const tempDir = useTempDirs();
const hosts: HttpHost[] = [];
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  // A host does not close the core it serves: its owner does.
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

async function start(): Promise<{ host: HttpHost; core: Core; token: string; staticDir: string }> {
  const dataDir = await tempDir();
  const staticDir = path.join(dataDir, 'static');
  await fs.mkdir(path.join(staticDir, 'assets'), { recursive: true });
  await fs.writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>app</title>');
  await fs.writeFile(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  await fs.writeFile(path.join(dataDir, 'secret.txt'), 'do not serve');
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
  cores.push(core);
  const host = await startHttpHost({ core, staticDir });
  hosts.push(host);
  const token = (await fs.readFile(host.tokenFile, 'utf8')).trim();
  return { host, core, token, staticDir };
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request, so tests can send any Host or Origin header. */
function request(port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: { Host: `127.0.0.1:${port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const json = { 'Content-Type': 'application/json' };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('the headless host', () => {
  it('listens on 127.0.0.1 only and writes a 256-bit token readable by the owner alone', async () => {
    const { host, token } = await start();
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect((await fs.stat(host.tokenFile)).mode & 0o777).toBe(0o600);
  });

  it('answers a contract call over RPC with the token', async () => {
    const { host, token } = await start();
    const r = await request(host.port, { method: 'POST', path: '/rpc/app.ping', headers: { ...json, ...bearer(token) }, body: '{"echo":"hi"}' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ok: true, value: { echo: 'hi' } });
  });

  it('refuses requests without the token, with a wrong one, or with it in the query string, and does nothing', async () => {
    const { host, token, core } = await start();
    const body = '{"theme":"dark"}';
    const cases = [
      { path: '/rpc/settings.set', headers: json },
      { path: '/rpc/settings.set', headers: { ...json, Authorization: `Bearer ${'0'.repeat(64)}` } },
      { path: `/rpc/settings.set?token=${token}`, headers: json },
      { path: `/rpc/settings.set?access_token=${token}`, headers: { ...json, ...bearer(token) } },
    ];
    for (const c of cases) {
      const r = await request(host.port, { method: 'POST', ...c, body });
      expect(r.status, c.path).toBe(401);
      expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    }
    expect(core.settings.get().theme).toBe('system');
  });

  it('refuses a foreign Host (DNS rebinding) or Origin with 403, even with the token', async () => {
    const { host, token, core } = await start();
    const attempts: Record<string, string>[] = [
      { Host: `evil.example:${host.port}` },
      { Host: `127.0.0.1:${host.port + 1}` },
      { Origin: 'http://evil.example' },
      { Origin: `http://127.0.0.1:${host.port + 1}` },
      { Origin: 'null' },
    ];
    for (const h of attempts) {
      const r = await request(host.port, { method: 'POST', path: '/rpc/settings.set', headers: { ...json, ...bearer(token), ...h }, body: '{"theme":"dark"}' });
      expect(r.status, JSON.stringify(h)).toBe(403);
    }
    expect(core.settings.get().theme).toBe('system');
    const own = await request(host.port, { method: 'POST', path: '/rpc/app.ping', headers: { ...json, ...bearer(token), Origin: `http://127.0.0.1:${host.port}` }, body: '{}' });
    expect(own.status).toBe(200);
  });

  it('accepts JSON bodies only: text/plain and forms get 415 and change nothing', async () => {
    const { host, token, core } = await start();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await request(host.port, { method: 'POST', path: '/rpc/settings.set', headers: { 'Content-Type': type, ...bearer(token) }, body: '{"theme":"dark"}' });
      expect(r.status, type).toBe(415);
    }
    // Without the token, the same request is refused before its body is even looked at.
    const anon = await request(host.port, { method: 'POST', path: '/rpc/settings.set', headers: { 'Content-Type': 'text/plain' }, body: '{"theme":"dark"}' });
    expect(anon.status).toBe(401);
    expect(core.settings.get().theme).toBe('system');
  });

  it('answers malformed JSON, wrong types, unknown names and 10 MB bodies with clear errors and keeps running', async () => {
    const { host, token } = await start();
    const h = { ...json, ...bearer(token) };
    const bad = await request(host.port, { method: 'POST', path: '/rpc/app.ping', headers: h, body: '{"echo":' });
    expect([bad.status, JSON.parse(bad.body).error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const wrong = await request(host.port, { method: 'POST', path: '/rpc/app.ping', headers: h, body: '{"echo":1}' });
    expect([wrong.status, JSON.parse(wrong.body).error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const unknown = await request(host.port, { method: 'POST', path: '/rpc/no.such', headers: h, body: '{}' });
    expect([unknown.status, JSON.parse(unknown.body).error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const huge = await request(host.port, { method: 'POST', path: '/rpc/app.ping', headers: h, body: JSON.stringify({ echo: 'x'.repeat(10 * 1024 * 1024) }) });
    expect([huge.status, JSON.parse(huge.body).error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    // A conversation file to import is a whole file: it may be larger than a usual call (its files' bytes).
    const file = { format: 'toolsmith-conversation', version: 1, conversation: { title: 'Big' }, messages: [{ id: 'm', role: 'user', createdAt: '2026-01-01T00:00:00.000Z', text: 'y'.repeat(12 * 1024 * 1024) }] };
    const imported = await request(host.port, { method: 'POST', path: '/rpc/conversations.import', headers: h, body: JSON.stringify({ text: JSON.stringify(file) }) });
    expect([imported.status, JSON.parse(imported.body).value?.messages]).toEqual([200, 1]);
    const after = await request(host.port, { method: 'POST', path: '/rpc/app.ping', headers: h, body: '{}' });
    expect(after.status).toBe(200);
  });

  it('signs a browser in once with the printed link, then by its SameSite=Strict HttpOnly cookie', async () => {
    const { host } = await start();
    const link = new URL(host.loginUrl());
    const first = await request(host.port, { path: link.pathname + link.search });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const cookie = first.headers['set-cookie']![0]!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const session = cookie.split(';')[0]!;

    const again = await request(host.port, { path: link.pathname + link.search, headers: { Accept: 'text/html' } });
    expect(again.status).toBe(401);
    expect(again.body).toContain('Sign in to Toolsmith');
    expect(again.body).toContain('This sign-in link was already used or has expired');

    // The plain address without a session says how to sign in, not that a link expired.
    const plain = await request(host.port, { path: '/', headers: { Accept: 'text/html' } });
    expect(plain.status).toBe(401);
    expect(plain.body).toContain('open the sign-in link Toolsmith printed when it started');
    expect(plain.body).not.toContain('already used or has expired');

    const page = await request(host.port, { path: '/', headers: { Cookie: session } });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    const rpc = await request(host.port, { method: 'POST', path: '/rpc/app.ping', headers: { ...json, Cookie: session, Origin: `http://127.0.0.1:${host.port}` }, body: '{}' });
    expect(rpc.status).toBe(200);
    const forged = await request(host.port, { path: '/', headers: { Cookie: `toolsmith_session_${host.port}=forged` } });
    expect(forged.status).toBe(401);
  });

  it('signs a browser in with the pasted token and refuses a wrong one', async () => {
    const { host, token } = await start();
    const wrong = await request(host.port, { method: 'POST', path: '/login', headers: json, body: '{"token":"nope"}' });
    expect(wrong.status).toBe(401);
    const right = await request(host.port, { method: 'POST', path: '/login', headers: json, body: JSON.stringify({ token }) });
    expect(right.status).toBe(200);
    expect(right.headers['set-cookie']![0]).toMatch(new RegExp(`^toolsmith_session_${host.port}=`));
  });

  it('keeps two hosts on one machine signed in side by side: their session cookies have names of their own', async () => {
    const a = await start();
    const b = await start();
    // A browser keeps cookies per host name, not per port: one jar for 127.0.0.1.
    const jar = new Map<string, string>();
    const signIn = async (host: HttpHost) => {
      const link = new URL(host.loginUrl());
      const r = await request(host.port, { path: link.pathname + link.search });
      expect(r.status).toBe(303);
      const [pair] = r.headers['set-cookie']![0]!.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    };
    const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const ping = (host: HttpHost) => request(host.port, { method: 'POST', path: '/rpc/app.ping', headers: { ...json, Cookie: cookies() }, body: '{}' });
    await signIn(a.host);
    expect((await ping(a.host)).status).toBe(200);
    await signIn(b.host);
    expect((await ping(b.host)).status).toBe(200);
    expect((await ping(a.host)).status).toBe(200);
    expect(jar.size).toBe(2);
  });

  it('serves the renderer only to a signed-in browser and never outside its folder', async () => {
    const { host, token } = await start();
    expect((await request(host.port, { path: '/assets/app.js' })).status).toBe(401);
    const asset = await request(host.port, { path: '/assets/app.js', headers: bearer(token) });
    expect([asset.status, asset.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    const spa = await request(host.port, { path: '/some/screen', headers: bearer(token) });
    expect(spa.body).toContain('<title>app</title>');
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt']) {
      const r = await request(host.port, { path: p, headers: bearer(token) });
      expect(r.body, p).not.toContain('do not serve');
    }
  });

  it('runs the contract over the WebSocket and pushes events', async () => {
    const { host, token } = await start();
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { headers: bearer(token) });
    const frames: { id?: number; result?: { ok: boolean }; event?: string }[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(String(d))));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ id: 1, name: 'settings.set', input: { theme: 'dark' } }));
    ws.send('{"id":2,"name":"app.ping","input":{"echo":');
    ws.send(`{"id":3,"name":"app.ping","input":{"echo":"${'x'.repeat(9 * 1024 * 1024)}"}}`);
    await expect.poll(() => frames.filter((f) => f.id !== undefined).length, { timeout: 10_000 }).toBe(3);
    expect(frames.find((f) => f.id === 1)?.result).toMatchObject({ ok: true });
    expect(frames.find((f) => f.id === 2)?.result).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(frames.find((f) => f.id === 3)?.result).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(frames.some((f) => f.event === 'settings.changed')).toBe(true);
    ws.close();
  });

  it('refuses WebSocket upgrades without auth or from a foreign origin', async () => {
    const { host, token } = await start();
    const attempt = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
        ws.on('open', () => resolve(101));
        ws.on('error', () => undefined);
      });
    expect(await attempt({})).toBe(401);
    expect(await attempt({ ...bearer(token), Origin: 'http://evil.example' })).toBe(403);
    expect(await attempt({ ...bearer(token), Host: 'evil.example' })).toBe(403);
    expect(await attempt(bearer(token))).toBe(101);
  });

  it('keeps the token across restarts and repairs a loose file mode', async () => {
    const { host, core } = await start();
    const token = await fs.readFile(host.tokenFile, 'utf8');
    await host.close();
    hosts.length = 0;
    await fs.chmod(host.tokenFile, 0o644);
    const again = await startHttpHost({ core, staticDir: '/nonexistent' });
    hosts.push(again);
    expect(await fs.readFile(again.tokenFile, 'utf8')).toBe(token);
    expect((await fs.stat(again.tokenFile)).mode & 0o777).toBe(0o600);
  });
});

describe("the headless host's frame listener (MCP Apps' pages)", () => {
  it("serves a page once on its own port, for its own Host only, and the renderer's page may frame that origin alone", async () => {
    const { host, core, token } = await start();
    const id = core.mcpApps.frames.register('<p>app</p>', "default-src 'none'; frame-ancestors http://127.0.0.1:1");
    // The origin the core hands to cards: another port than the app's.
    const opened = core.mcpApps.frameHostNow()!;
    const framePort = Number(new URL(opened.origin).port);
    expect(framePort).not.toBe(host.port);
    expect(opened.ancestors).toEqual([`http://127.0.0.1:${host.port}`, `http://localhost:${host.port}`]);

    const page = await request(host.port, { path: '/', headers: { ...bearer(token), Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain(`frame-src ${opened.origin}`);

    const rebound = await request(framePort, { path: `/${id}`, headers: { Host: 'evil.example:80', 'Sec-Fetch-Dest': 'iframe' } });
    expect(rebound.status).toBe(403);
    const onTop = await request(framePort, { path: `/${id}`, headers: { 'Sec-Fetch-Dest': 'document' } });
    expect(onTop.status).toBe(403);
    const first = await request(framePort, { path: `/${id}`, headers: { 'Sec-Fetch-Dest': 'iframe', Cookie: 'toolsmith_session=x' } });
    expect(first.status).toBe(200);
    expect(first.body).toBe('<p>app</p>');
    expect(first.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors http://127.0.0.1:1");
    expect(first.headers['set-cookie']).toBeUndefined();
    const again = await request(framePort, { path: `/${id}`, headers: { 'Sec-Fetch-Dest': 'iframe' } });
    expect(again.status).toBe(404);
    // The app's API is not on the frame port.
    const api = await request(framePort, { method: 'POST', path: '/rpc/app.info', headers: { ...bearer(token), ...json }, body: '{}' });
    expect(api.status).toBe(405);

    await host.close();
    hosts.splice(hosts.indexOf(host), 1);
    expect(core.mcpApps.frameHostNow()).toBeUndefined();

    // A pinned frame port (serve --frame-port) is the one used.
    const pinned = await startHttpHost({ core, staticDir: path.join(core.dataDir, 'static'), framePort });
    hosts.push(pinned);
    expect(core.mcpApps.frameHostNow()?.origin).toBe(`http://127.0.0.1:${framePort}`);
  });
});
