/**
 * OAuth 2.1 sign-in to a Streamable HTTP server, through the SDK's auth support, against an
 * authorization server of our own on 127.0.0.1 (discovery, dynamic client registration, PKCE).
 * The "browser" follows the sign-in page's redirect to the app's loopback listener.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { LoopbackCallback, oauthSecretNames } from './oauth';
import { useTempDirs } from '../testing/temp-dir';
import { startHttpTestServer, type HttpTestServer } from './testing/http-test-server';
import { oauthTestServer } from './testing/oauth-server';
import { addServer, call, openCore, serverView, slugs } from './testing/harness';

const tempDir = useTempDirs();
const cores: Core[] = [];
const servers: HttpTestServer[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** A browser that approves at once: opens the page and follows its redirect back to the app. */
const opened: string[] = [];
async function browser(url: string): Promise<void> {
  opened.push(url);
  const r = await fetch(url, { redirect: 'manual' });
  const back = r.headers.get('location');
  if (back) await fetch(back);
}

/** A GET with the headers given (Host included, which fetch cannot set): the status and the page. */
function get(url: URL, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every file under `dir`, as raw bytes (SQLite databases, their WAL and journal files included). */
async function allBytes(dir: string): Promise<{ file: string; bytes: Buffer }[]> {
  const out: { file: string; bytes: Buffer }[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    out.push({ file, bytes: await fs.readFile(file).catch(() => Buffer.alloc(0)) });
  }
  return out;
}

/** The files whose bytes hold `needle`. */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  return (await allBytes(dir)).filter((f) => f.bytes.includes(needle)).map((f) => path.relative(dir, f.file));
}

describe('OAuth sign-in to an MCP server', () => {
  it('registers a client, signs in with PKCE, keeps the tokens in the secret store, and uses them after a restart', async () => {
    const oauth = oauthTestServer();
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const dataDir = await tempDir();
    const core = await openCore(dataDir, { backoffMs: 5, openUrl: browser });
    cores.push(core);
    opened.length = 0;
    const v = await addServer(core, { name: 'Signed', connection: { transport: 'http', url: server.url } });
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(oauth.registered).toHaveLength(1);
    // A native app's registration (SEP-837): its redirect is a loopback URL.
    expect(oauth.registrations[0]).toMatchObject({ application_type: 'native', redirect_uris: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/)] });
    expect(oauth.tokensIssued).toBe(1);
    expect(opened).toHaveLength(1);
    expect(new URL(opened[0]!).searchParams.get('code_challenge_method')).toBe('S256');
    expect(await call(core, v.bundleId, 'echo', { text: 'signed in' })).toMatchObject({ ok: true, value: 'signed in' });
    // The client and the tokens are secrets bound to the server's host; their values never show.
    const names = core.secrets.list().map((s) => s.name);
    expect(names.filter((n) => n.startsWith('mcp-oauth.'))).toHaveLength(2);
    expect(core.secrets.list().find((s) => s.name.endsWith('.tokens'))!.hosts).toContain('127.0.0.1');
    const log = await core.call('mcpServers.log', { bundleId: v.bundleId });
    expect(JSON.stringify(log)).not.toMatch(/at-[0-9a-f-]{36}/);
    await core.close();
    cores.splice(0);

    // After a restart the saved tokens are used: no new sign-in, no new registration.
    const again = await openCore(dataDir, { backoffMs: 5, openUrl: browser });
    cores.push(again);
    expect(await call(again, v.bundleId, 'echo', { text: 'still signed in' })).toMatchObject({ ok: true, value: 'still signed in' });
    expect(opened).toHaveLength(1);
    expect(oauth.registered).toHaveLength(1);
    // The saved access token went with the first request: not even a refresh.
    expect(oauth.tokensIssued).toBe(1);
  });

  it('a refused sign-in fails the server with the reason; a restart signs in again', async () => {
    const oauth = oauthTestServer();
    oauth.denyNext = true;
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const core = await openCore(await tempDir(), { backoffMs: 5, openUrl: browser });
    cores.push(core);
    const v = await addServer(core, { name: 'Denied', connection: { transport: 'http', url: server.url } });
    expect(v.status).toMatchObject({ state: 'failed', reason: 'the sign-in was refused: access_denied' });
    expect(oauth.tokensIssued).toBe(0);
    const r = await core.call('mcpServers.restart', { bundleId: v.bundleId });
    expect(r).toMatchObject({ ok: true, value: { status: { state: 'connected' } } });
    expect((await serverView(core, v.bundleId)).status.state).toBe('connected');
    expect(oauth.tokensIssued).toBe(1);
    // Removing the server removes its sign-in.
    await core.call('mcpServers.remove', { bundleId: v.bundleId });
    expect(core.secrets.list().filter((s) => s.name.startsWith('mcp-oauth.'))).toEqual([]);
  });

  it('the tokens a server echoes back are redacted: in the answer, in the invocation log, and in no file of the data folder (WAL included)', async () => {
    const oauth = oauthTestServer();
    const server = await startHttpTestServer({ oauth, mode: 'headers' });
    servers.push(server);
    const dataDir = await tempDir();
    const core = await openCore(dataDir, { backoffMs: 5, openUrl: browser });
    cores.push(core);
    const v = await addServer(core, { name: 'Echoing', connection: { transport: 'http', url: server.url } });
    expect(v.status.state, v.status.reason).toBe('connected');
    const saved = JSON.parse(core.secrets.resolve(oauthSecretNames(v.bundleId).tokens, '127.0.0.1')) as { access_token: string; refresh_token: string };
    const tokens = [saved.access_token, saved.refresh_token];
    expect(tokens.every((t) => /^[ar]t-[0-9a-f-]{36}$/.test(t))).toBe(true);

    // The server says back the Authorization header it got; a refresh token goes through a call's arguments and result.
    const echoed = await core.call('tools.invoke', { bundleId: v.bundleId, slug: 'request-headers', version: '1', args: {} });
    const viaArgs = await core.call('tools.invoke', { bundleId: v.bundleId, slug: 'echo', version: '1', args: { text: `refresh with ${saved.refresh_token}` } });
    expect(echoed).toMatchObject({ ok: true, value: { value: JSON.stringify({ authorization: 'Bearer [redacted]', token: '[redacted]' }) } });
    expect(viaArgs).toMatchObject({ ok: true, value: { value: 'refresh with [redacted]' } });
    const answers = JSON.stringify([echoed, viaArgs]);
    for (const t of tokens) expect(answers).not.toContain(t);

    const records = [];
    for (const r of [echoed, viaArgs]) records.push(await core.call('invocations.get', { invocationId: r.ok ? r.value.invocationId : '' }));
    expect(records).toMatchObject([{ ok: true, value: { ok: true } }, { ok: true, value: { args: { text: 'refresh with [redacted]' } } }]);
    for (const t of tokens) expect(JSON.stringify(records)).not.toContain(t);

    // The log is written (invocations.get flushed it): the SQLite files and their WAL, as bytes, hold neither token.
    const files = (await allBytes(dataDir)).map((f) => path.relative(dataDir, f.file));
    expect(files).toEqual(expect.arrayContaining(['invocations.sqlite', 'invocations.sqlite-wal']));
    // The records are in those bytes (so their not holding a token means something).
    expect((await filesHolding(dataDir, 'refresh with [redacted]')).filter((f) => f.startsWith('invocations.sqlite'))).not.toEqual([]);
    for (const t of tokens) expect(await filesHolding(dataDir, t)).toEqual([]);
    await core.close();
    cores.splice(0);
    for (const t of tokens) expect(await filesHolding(dataDir, t)).toEqual([]);
  });

  it('takes only the answer to its own sign-in: another state, no state, another Host or Origin, a replay are refused and their codes never exchanged', async () => {
    const oauth = oauthTestServer();
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const answers: Record<string, { status: number; body: string }> = {};
    let state = '';
    // A browser that, around the real answer, is sent forged ones (another code, as a page elsewhere would send).
    const wary = async (url: string) => {
      state = new URL(url).searchParams.get('state') ?? '';
      const r = await fetch(url, { redirect: 'manual' });
      const back = new URL(r.headers.get('location')!);
      const forged = (change: Record<string, string | null>) => {
        const u = new URL(back);
        u.searchParams.set('code', 'forged-code');
        for (const [k, v] of Object.entries(change)) if (v === null) u.searchParams.delete(k);
        else u.searchParams.set(k, v);
        return u;
      };
      // Our state, but sent through another host name that resolves to 127.0.0.1 (DNS rebinding), or from another site.
      answers.host = await get(forged({}), { host: `rebind.example:${back.port}` });
      answers.origin = await get(forged({}), { origin: 'http://evil.example' });
      answers.real = await get(back);
      // After the real answer (kept until the app reads it): a state not ours, none, and the real answer again.
      answers.state = await get(forged({ state: 'not-the-state-we-sent' }));
      answers.noState = await get(forged({ state: null }));
      answers.replay = await get(back);
    };
    const core = await openCore(await tempDir(), { backoffMs: 5, openUrl: wary });
    cores.push(core);
    const v = await addServer(core, { name: 'Wary', connection: { transport: 'http', url: server.url } });
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Object.fromEntries(Object.entries(answers).map(([k, a]) => [k, a.status]))).toEqual({ host: 421, origin: 403, real: 200, state: 400, noState: 400, replay: 400 });
    expect(answers.state!.body).toMatch(/Refused: .*does not belong to the sign-in Toolsmith started.*sign in again/);
    expect(answers.host!.body).toMatch(/Refused: .*another address/);
    expect(answers.origin!.body).toMatch(/Refused: .*another web site/);
    // Only the real code was exchanged: a forged one taken would have failed the sign-in (invalid_grant).
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(oauth.tokensIssued).toBe(1);
    expect(await call(core, v.bundleId, 'echo', { text: 'hi' })).toMatchObject({ ok: true, value: 'hi' });
  });

  it('the loopback listener keeps waiting through a refused answer and resolves with the one that carries its state', async () => {
    const cb = await LoopbackCallback.start(0);
    try {
      const state = cb.newState();
      let settled = false;
      const code = cb.nextCode(600_000).finally(() => (settled = true));
      const url = new URL(cb.url);
      url.searchParams.set('code', 'theirs');
      url.searchParams.set('state', 'theirs');
      expect((await get(url)).status).toBe(400);
      url.searchParams.set('state', state);
      expect((await get(url, { host: `localhost:${url.port}` })).status).toBe(421);
      // The listener answers after it has handed over a code it takes: nothing was taken.
      await Promise.resolve();
      expect(settled).toBe(false);
      url.searchParams.set('code', 'ours');
      expect((await get(url)).status).toBe(200);
      expect(await code).toEqual({ code: 'ours' });
      // A new sign-in's state replaces the old one.
      const next = cb.newState();
      expect(next).not.toBe(state);
      const later = cb.nextCode(600_000);
      expect((await get(url)).status).toBe(400);
      url.searchParams.set('state', next);
      url.searchParams.set('code', 'second');
      expect((await get(url)).status).toBe(200);
      expect(await later).toEqual({ code: 'second' });
    } finally {
      cb.close();
    }
  });

  it('a server that lets initialize through and answers tools/list with 401: signs in with the scope it names, then lists; a 403 for more scope signs in again with both', async () => {
    const oauth = oauthTestServer();
    const server = await startHttpTestServer({ oauth, scopes: { list: 'mcp:basic', call: 'mcp:write' } });
    servers.push(server);
    const core = await openCore(await tempDir(), { backoffMs: 5, openUrl: browser });
    cores.push(core);
    opened.length = 0;
    const v = await addServer(core, { name: 'Step-up', connection: { transport: 'http', url: server.url } });
    // Signed in at tools/list (initialize needed no token), with the scope of its WWW-Authenticate; the tools are there.
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(oauth.authorizations).toEqual(['mcp:basic']);
    expect(opened).toHaveLength(1);
    expect(slugs(core, v.bundleId)).toContain('echo');
    expect(server.rpc.filter((m) => m === 'initialize')).toHaveLength(1);

    // tools/call wants mcp:write (403 insufficient_scope): a new sign-in (not a refresh, which cannot add a scope), asking for what was granted too.
    expect(await call(core, v.bundleId, 'echo', { text: 'written' })).toMatchObject({ ok: true, value: 'written' });
    expect(oauth.authorizations).toEqual(['mcp:basic', 'mcp:basic mcp:write']);
    expect(opened).toHaveLength(2);
    expect(oauth.tokensIssued).toBe(2);
    // Both scopes held now: tools/call, and tools/list after a restart, need no more sign-in.
    expect(await call(core, v.bundleId, 'echo', { text: 'again' })).toMatchObject({ ok: true, value: 'again' });
    expect(await core.call('mcpServers.restart', { bundleId: v.bundleId })).toMatchObject({ ok: true, value: { status: { state: 'connected' } } });
    expect(oauth.authorizations).toHaveLength(2);
    expect(slugs(core, v.bundleId)).toContain('echo');
  });

  it('a server that keeps refusing (403 insufficient_scope after each sign-in) fails the server after two sign-ins, never connected with no tools', async () => {
    // The authorization server never grants the scope the MCP server wants.
    const oauth = oauthTestServer({ grant: () => [] });
    const server = await startHttpTestServer({ oauth, scopes: { list: 'mcp:admin', call: 'mcp:admin' } });
    servers.push(server);
    const core = await openCore(await tempDir(), { backoffMs: 5, openUrl: browser });
    cores.push(core);
    const v = await addServer(core, { name: 'Never enough', connection: { transport: 'http', url: server.url } });
    expect(v.status.state).toBe('failed');
    expect(v.status.reason).toMatch(/^tools\/list failed: .*refused tools\/list with HTTP 403 \(insufficient_scope, scope "mcp:admin"\) after 2 sign-ins/);
    expect(oauth.authorizations).toEqual(['mcp:admin', 'mcp:admin']);
    expect(slugs(core, v.bundleId)).toEqual([]);
  });

  it.each([
    ['advertised and right', { issSupported: true, iss: 'correct' }, null],
    ['neither advertised nor sent', { iss: 'omit' }, null],
    ['advertised but missing', { issSupported: true, iss: 'omit' }, /carries no 'iss' .*'http:\/\/127\.0\.0\.1:\d+' says it sends one/],
    ['advertised and another issuer', { issSupported: true, iss: 'wrong' }, /names the issuer 'https:\/\/evil\.example\.com' \(its iss\), not 'http:\/\/127\.0\.0\.1:\d+'/],
    ['not advertised, sent and another issuer', { iss: 'wrong' }, /names the issuer 'https:\/\/evil\.example\.com' \(its iss\), not 'http:\/\/127\.0\.0\.1:\d+'/],
    ['the issuer with a trailing slash (no normalizing)', { issSupported: true, iss: 'trailing-slash' }, /names the issuer 'http:\/\/127\.0\.0\.1:\d+\/' \(its iss\), not 'http:\/\/127\.0\.0\.1:\d+'/],
  ] as const)('the iss of the authorization response (RFC 9207), %s', async (_, opts, refused) => {
    const oauth = oauthTestServer(opts);
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const core = await openCore(await tempDir(), { backoffMs: 5, openUrl: browser });
    cores.push(core);
    const v = await addServer(core, { name: 'Issuer', connection: { transport: 'http', url: server.url } });
    if (!refused) {
      expect(v.status.state, v.status.reason).toBe('connected');
      expect(oauth.tokensIssued).toBe(1);
      return;
    }
    expect(v.status.state).toBe('failed');
    expect(v.status.reason).toMatch(refused);
    expect(v.status.reason).toMatch(/its code was not used/);
    // The code never went to the token endpoint; nothing of the sign-in is kept.
    expect(oauth.tokensIssued).toBe(0);
    expect(core.secrets.list().filter((s) => s.name.startsWith('mcp-oauth.'))).toEqual([]);
  });

  it('authorization-server metadata whose issuer is not the URL it was fetched for (RFC 8414 §3.3) is not used: the sign-in fails naming both, nothing registered or kept', async () => {
    const oauth = oauthTestServer({ metadataIssuer: () => 'https://attacker.example.com' });
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const core = await openCore(await tempDir(), { backoffMs: 5, openUrl: browser });
    cores.push(core);
    opened.length = 0;
    const v = await addServer(core, { name: 'Poisoned', connection: { transport: 'http', url: server.url } });
    expect(v.status.state).toBe('failed');
    expect(v.status.reason).toMatch(/metadata names the issuer 'https:\/\/attacker\.example\.com', but it was fetched for 'http:\/\/127\.0\.0\.1:\d+'/);
    expect(oauth.registrations).toEqual([]);
    expect(oauth.authorizations).toEqual([]);
    expect(opened).toEqual([]);
    expect(core.secrets.list().filter((s) => s.name.startsWith('mcp-oauth.'))).toEqual([]);
  });

  it('a server without protected-resource metadata (MCP 2025-03-26: its origin stands in for the authorization server) is signed in to, whatever issuer its metadata names', async () => {
    const oauth = oauthTestServer({ noResourceMetadata: true, metadataIssuer: (base) => `${base}/oauth` });
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const core = await openCore(await tempDir(), { backoffMs: 5, openUrl: browser });
    cores.push(core);
    const v = await addServer(core, { name: 'Legacy', connection: { transport: 'http', url: server.url } });
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(oauth.tokensIssued).toBe(1);
  });
});

describe('a client registered beforehand', () => {
  it('signs in with its id and its secret from the secret store, at its redirect port, without dynamic registration', async () => {
    // A free port for the redirect URL registered with the client.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const secret = 'cs-pre-registered-0123456789';
    const oauth = oauthTestServer({ preRegistered: { clientId: 'toolsmith-app', clientSecret: secret, redirectUri: `http://127.0.0.1:${port}/oauth/callback` } });
    const server = await startHttpTestServer({ oauth });
    servers.push(server);
    const dataDir = await tempDir();
    const core = await openCore(dataDir, { backoffMs: 5, openUrl: browser });
    cores.push(core);
    const set = await core.call('secrets.set', { name: 'APP_CLIENT_SECRET', value: secret, hosts: ['127.0.0.1'] });
    expect(set.ok).toBe(true);
    opened.length = 0;
    const v = await addServer(core, {
      name: 'Pre-registered',
      connection: { transport: 'http', url: server.url, oauthClient: { clientId: 'toolsmith-app', clientSecret: '${secret:APP_CLIENT_SECRET}', redirectPort: port } },
    });
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(oauth.registrations).toEqual([]);
    expect(oauth.tokensIssued).toBe(1);
    expect(new URL(opened[0]!).searchParams.get('client_id')).toBe('toolsmith-app');
    expect(await call(core, v.bundleId, 'echo', { text: 'hi' })).toMatchObject({ ok: true, value: 'hi' });
    // The secret's value is only in the secret store: not in the server's file, the log or a saved client.
    expect((await filesHolding(path.join(dataDir, 'mcp-servers'), secret))).toEqual([]);
    expect(JSON.stringify(await core.call('mcpServers.log', { bundleId: v.bundleId }))).not.toContain(secret);
    expect(core.secrets.list().map((s) => s.name).filter((n) => n.endsWith('.client'))).toEqual([]);
  });

  it('a client secret written as a value is refused: only ${secret:NAME} is kept in the file', async () => {
    const core = await openCore(await tempDir(), { backoffMs: 5 });
    cores.push(core);
    const r = await core.call('mcpServers.add', { server: { name: 'Bad', connection: { transport: 'http', url: 'https://example.com/mcp', oauthClient: { clientId: 'app', clientSecret: 'plain-secret' } } } });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.message).toMatch(/clientSecret.*\$\{secret:NAME\}/);
  });
});
