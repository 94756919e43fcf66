/**
 * `/mcp` on the running headless host, driven by the MCP SDK's Streamable HTTP client: the
 * same gate as every request (bearer token, Host, Origin), the served tools, and approvals
 * asked in a connected window.
 */
import { Client as Client2026, StreamableHTTPClientTransport as Http2026, type CallToolResult as CallToolResult2026 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createCore, type Core } from '../../core/app';
import { rotateTokenFile } from '../../core/lib/token-file';
import { serverOff } from '../../core/mcp-server/service';
import { SECRET_VALUE, seedServedBundle, startEchoServer, type EchoServer } from '../../core/testing/mcp-serve-kit';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { startHttpHost, type HttpHost } from './http';
import { MAX_MCP_SESSIONS, type McpHttpOptions } from './mcp-http';
import { restRoutes } from './rest';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

interface Started {
  host: HttpHost;
  core: Core;
  token: string;
  echo: EchoServer;
  url: URL;
  bundleId: string;
}

async function start(mcp?: McpHttpOptions): Promise<Started> {
  const dataDir = await tempDir();
  const staticDir = path.join(dataDir, 'static');
  await fs.mkdir(staticDir, { recursive: true });
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
  closers.push(() => core.close());
  const echo = await startEchoServer();
  closers.push(() => echo.close());
  const { bundleId } = await seedServedBundle(core, echo.port);
  await core.call('settings.set', { toolOutputs: { ...core.settings.get().toolOutputs, baseDir: await tempDir() } });
  const host = await startHttpHost({ core, staticDir, routes: restRoutes(core), ...(mcp ? { mcp } : {}) });
  closers.push(() => host.close());
  const token = (await fs.readFile(host.tokenFile, 'utf8')).trim();
  return { host, core, token, echo, url: new URL('mcp', host.url), bundleId };
}

async function mcpTokenOf(s: Started): Promise<string> {
  const r = await s.core.call('mcpServer.token', {});
  if (!r.ok) throw new Error(r.error.message);
  return r.value.token;
}

/** A WebSocket upgrade's status: 101 when it opened. */
function upgrade(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('error', () => undefined);
  });
}

async function connect(s: Started, headers: Record<string, string> = { Authorization: `Bearer ${s.token}` }) {
  const transport = new StreamableHTTPClientTransport(s.url, { requestInit: { headers } });
  const client = new Client({ name: 'http-test', version: '2.0.0' });
  await client.connect(transport);
  closers.push(() => client.close());
  return { client, transport };
}

function raw(port: number, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path ?? '/mcp', headers: { Host: `127.0.0.1:${port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** `raw`, with the answer's headers. */
function rawWithHeaders(port: number, opts: { headers: Record<string, string>; body: string }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { Host: `127.0.0.1:${port}`, ...opts.headers } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const mcpHeaders = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe('/mcp on the headless host', () => {
  it('serves the chosen tools to the SDK client: a local tool, an HTTP tool, an oversized result and tool_output', async () => {
    const s = await start();
    const { client } = await connect(s);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_usage']);

    expect(((await client.callTool({ name: 'count', arguments: { text: 'a b' } })) as CallToolResult).structuredContent).toMatchObject({ words: 2 });

    const remote = (await client.callTool({ name: 'remote', arguments: { q: 'y' } })) as CallToolResult;
    expect(remote.structuredContent).toMatchObject({ path: '/search?q=y', key: '[redacted]' });
    expect(s.echo.seenKeys).toEqual([SECRET_VALUE]);

    const big = (await client.callTool({ name: 'big', arguments: {} })) as CallToolResult;
    const handle = /handle = "([0-9a-f-]+)"/.exec(text(big))?.[1];
    expect(handle, text(big).slice(0, 200)).toBeTruthy();
    const out = (await client.callTool({ name: 'tool_output', arguments: { handle, extract: 'the first line', mode: 'truncate' } })) as CallToolResult;
    expect(text(out)).toContain('line 00001');

    const bad = (await client.callTool({ name: 'count', arguments: {} })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^VALIDATION_FAILED: .*text/);
    const unknown = await client.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => e);
    expect((unknown as McpError).code).toBe(ErrorCode.InvalidParams);
  });

  it('with progressive discovery, lists tool_search; a search adds its tools to that session’s list and says so on the call’s own stream', async () => {
    const s = await start();
    await s.core.call('settings.set', { mcpServer: { ...s.core.settings.get().mcpServer, toolSearch: { mode: 'always', maxTools: 50 } } });
    const { client } = await connect(s);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['tool_output', 'tool_search', 'tool_usage']);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const found = (await client.callTool({ name: 'tool_search', arguments: { query: 'count the words of a text', limit: 1 } })) as CallToolResult;
    expect(found.structuredContent).toMatchObject({ tools: [{ name: 'count', inputSchema: { required: ['text'] } }], added: ['count'] });
    await vi.waitFor(() => expect(changed).toBe(1));
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['count', 'tool_output', 'tool_search', 'tool_usage']);
    expect(((await client.callTool({ name: 'count', arguments: { text: 'a b' } })) as CallToolResult).structuredContent).toMatchObject({ words: 2 });

    // Without the optional GET stream: the notice comes on the POST's own event stream, before the answer.
    const auth = { ...mcpHeaders, Authorization: `Bearer ${s.token}` };
    const opened = await rawWithHeaders(s.host.port, { headers: auth, body: initialize });
    const session = { ...auth, 'Mcp-Session-Id': opened.headers['mcp-session-id'] as string };
    await raw(s.host.port, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tool_search', arguments: { query: 'count the words of a text', limit: 1 } } });
    const r = await raw(s.host.port, { headers: session, body: call });
    expect(r.status).toBe(200);
    const notice = r.body.indexOf('"method":"notifications/tools/list_changed"');
    expect(notice).toBeGreaterThan(-1);
    expect(r.body.indexOf('"id":2')).toBeGreaterThan(notice);
  });

  it('refuses a tool that requires approval while no window is connected, and asks once one is', async () => {
    const s = await start();
    const { client } = await connect(s);
    const refused = (await client.callTool({ name: 'guarded', arguments: { text: 'a' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('no Toolsmith window is open');

    // A window: the renderer's WebSocket.
    const ws = new WebSocket(`ws://127.0.0.1:${s.host.port}/ws`, { headers: { Authorization: `Bearer ${s.token}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    closers.push(async () => ws.close());
    const pushed: string[] = [];
    ws.on('message', (d) => pushed.push(String(d)));

    const call = client.callTool({ name: 'guarded', arguments: { text: 'a b c' } });
    let id = '';
    await vi.waitFor(async () => {
      const p = await s.core.call('mcpServer.approvals', {});
      expect(p.ok && p.value.length).toBe(1);
      id = p.ok ? p.value[0]!.id : '';
    });
    expect(pushed.some((f) => f.includes('"mcpServer.approvalsChanged"'))).toBe(true);
    await s.core.call('mcpServer.respond', { id, decision: 'allow-once' });
    expect(((await call) as CallToolResult).structuredContent).toMatchObject({ words: 3 });
  });

  it('keeps the host’s gate: no token, a foreign Host or Origin, a token in the URL', async () => {
    const s = await start();
    const port = s.host.port;
    // Refused with 403, never 401 (which MCP clients take for an OAuth challenge: see the next test).
    expect((await raw(port, { headers: mcpHeaders, body: initialize })).status).toBe(403);
    expect((await raw(port, { headers: { ...mcpHeaders, Authorization: 'Bearer wrong' }, body: initialize })).status).toBe(403);
    expect((await raw(port, { headers: { ...mcpHeaders, Authorization: `Bearer ${s.token}`, Host: 'evil.test' }, body: initialize })).status).toBe(403);
    expect((await raw(port, { headers: { ...mcpHeaders, Authorization: `Bearer ${s.token}`, Origin: 'http://evil.test' }, body: initialize })).status).toBe(403);
    const inUrl = await raw(port, { path: `/mcp?token=${s.token}`, headers: mcpHeaders, body: initialize });
    expect([inUrl.status, JSON.parse(inUrl.body).error.message]).toEqual([403, expect.stringContaining('never put the token in the URL')]);
    const ok = await raw(port, { headers: { ...mcpHeaders, Authorization: `Bearer ${s.token}` }, body: initialize });
    expect(ok.status).toBe(200);
    // The SDK client gets the same refusal.
    await expect(connect(s, {})).rejects.toThrow();
  });

  it('refuses a client without the MCP token with a message that names the token file, and no OAuth: the SDK client (with an OAuth provider, as Claude Code, Cursor and VS Code have) asks for no /.well-known/ document', async () => {
    const s = await start();
    const asked: string[] = [];
    const recording: FetchLike = (url, init) => {
      asked.push(new URL(String(url)).pathname);
      return fetch(url, init);
    };
    let redirected = false;
    const oauth: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'], client_name: 'oauth-client' },
      clientInformation: () => undefined,
      saveClientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: () => {
        redirected = true;
      },
      saveCodeVerifier: () => undefined,
      codeVerifier: () => '',
    };
    const cases: [string, Record<string, string>][] = [
      ['sent no token', {}],
      ['is not the MCP token', { Authorization: 'Bearer wrong' }],
    ];
    for (const [why, headers] of cases) {
      for (const authProvider of [oauth, undefined]) {
        const transport = new StreamableHTTPClientTransport(s.url, { fetch: recording, requestInit: { headers }, ...(authProvider ? { authProvider } : {}) });
        const client = new Client({ name: 'no-token', version: '1.0.0' });
        const failed = await client.connect(transport).then(
          () => null,
          (e: unknown) => e as Error,
        );
        await client.close();
        expect(failed?.message).toContain(why);
        // The file by name, never the data folder's path (whoever asks without a token need not learn it).
        expect(failed?.message).toContain("the file mcp-token of Toolsmith's data folder");
        expect(failed?.message).not.toContain(path.dirname(s.host.mcpTokenFile));
        expect(failed?.message).toContain('Settings → MCP server');
      }
    }
    expect(asked.filter((p) => p.startsWith('/.well-known/'))).toEqual([]);
    expect(asked.every((p) => p === '/mcp')).toBe(true);
    expect(redirected).toBe(false);
    // And the host has no OAuth metadata to find, with or without a token (not the app's page either).
    for (const doc of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
      for (const headers of [{}, { Authorization: `Bearer ${s.token}` }] as Record<string, string>[]) {
        const r = await raw(s.host.port, { method: 'GET', path: doc, headers });
        expect([r.status, JSON.parse(r.body).error.code], doc).toEqual([404, 'NOT_FOUND']);
      }
    }
  });

  it('answers requests outside a session, unknown sessions and other methods with errors a client can act on', async () => {
    const s = await start();
    const auth = { ...mcpHeaders, Authorization: `Bearer ${s.token}` };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const noSession = await raw(s.host.port, { headers: auth, body: list });
    expect(noSession.status).toBe(400);
    expect(noSession.body).toContain('send initialize first');
    const gone = await raw(s.host.port, { headers: { ...auth, 'Mcp-Session-Id': 'no-such-session' }, body: list });
    expect(gone.status).toBe(404);
    const notJson = await raw(s.host.port, { headers: auth, body: '{' });
    expect(notJson.status).toBe(400);
    expect((await raw(s.host.port, { method: 'PUT', headers: auth, body: '{}' })).status).toBe(405);
  });

  it('refuses every request while serving is switched off, saying where to switch it on', async () => {
    const s = await start();
    await s.core.call('settings.set', { mcpServer: { enabled: false, bundleIds: [] } });
    const r = await raw(s.host.port, { headers: { ...mcpHeaders, Authorization: `Bearer ${s.token}` }, body: initialize });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error.message).toBe(serverOff);
  });

  it('ends a session on DELETE: its stored outputs are removed', async () => {
    const s = await start();
    const { client, transport } = await connect(s);
    await client.callTool({ name: 'big', arguments: {} });
    const stored = await s.core.call('toolOutputs.list', {});
    expect(stored.ok && stored.value.length).toBe(1);
    await transport.terminateSession();
    await vi.waitFor(async () => {
      const after = await s.core.call('toolOutputs.list', {});
      expect(after.ok && after.value).toEqual([]);
    });
  });

  it('says its URL and token file in mcpServer.info while it runs', async () => {
    const s = await start();
    const info = await s.core.call('mcpServer.info', {});
    expect(info.ok && info.value).toMatchObject({ httpUrl: s.url.href, tokenFile: s.host.mcpTokenFile });
  });

  it('opens /mcp with the MCP token, and nothing else with it: not the contract, the WebSocket, REST, sign-in or the app', async () => {
    const s = await start();
    const mcpToken = await mcpTokenOf(s);
    expect(mcpToken).toMatch(/^[0-9a-f]{64}$/);
    expect(mcpToken).not.toBe(s.token);
    expect((await fs.stat(s.host.mcpTokenFile)).mode & 0o777).toBe(0o600);
    expect((await fs.readFile(s.host.mcpTokenFile, 'utf8')).trim()).toBe(mcpToken);

    const { client } = await connect(s, { Authorization: `Bearer ${mcpToken}` });
    expect(((await client.callTool({ name: 'count', arguments: { text: 'a b' } })) as CallToolResult).structuredContent).toMatchObject({ words: 2 });

    const port = s.host.port;
    const withMcp = { 'Content-Type': 'application/json', Authorization: `Bearer ${mcpToken}` };
    const count = `/tools/bundles/${s.bundleId}/tools/count/version/1`;
    const refused = [
      await raw(port, { path: '/rpc/app.ping', headers: withMcp, body: '{}' }),
      await raw(port, { path: '/rpc/mcpServer.approvals', headers: withMcp, body: '{}' }),
      await raw(port, { path: '/rpc/mcpServer.respond', headers: withMcp, body: JSON.stringify({ id: 'x', decision: 'allow-once' }) }),
      await raw(port, { path: '/rpc/mcpServer.rotateToken', headers: withMcp, body: '{}' }),
      await raw(port, { path: `${count}/invoke`, headers: withMcp, body: JSON.stringify({ args: { text: 'a' } }) }),
      await raw(port, { method: 'GET', path: '/tools/tools', headers: withMcp }),
      await raw(port, { path: '/auth/login-link', headers: withMcp, body: '{}' }),
      await raw(port, { method: 'GET', path: '/', headers: withMcp }),
    ];
    expect(refused.map((r) => r.status)).toEqual(refused.map(() => 401));
    // It never becomes a browser session either.
    const login = await raw(port, { path: '/login', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: mcpToken }) });
    expect(login.status).toBe(401);
    expect(await upgrade(port, { Authorization: `Bearer ${mcpToken}` })).toBe(401);
    // The same requests with the API token pass (so the refusals above are the token's).
    expect((await raw(port, { path: `${count}/invoke`, headers: { ...withMcp, Authorization: `Bearer ${s.token}` }, body: JSON.stringify({ args: { text: 'a' } }) })).status).toBe(200);
    expect(await upgrade(port, { Authorization: `Bearer ${s.token}` })).toBe(101);
    // Configs written before the MCP token existed hold the API token: /mcp still takes it.
    expect((await raw(port, { headers: { ...mcpHeaders, Authorization: `Bearer ${s.token}` }, body: initialize })).status).toBe(200);
  });

  it('stops taking a rotated MCP token at once, whether rotated here or by another process', async () => {
    const s = await start();
    const port = s.host.port;
    const init = (token: string) => raw(port, { headers: { ...mcpHeaders, Authorization: `Bearer ${token}` }, body: initialize });
    const first = await mcpTokenOf(s);
    expect((await init(first)).status).toBe(200);

    const rotated = await raw(port, { path: '/rpc/mcpServer.rotateToken', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.token}` }, body: '{}' });
    expect(rotated.status).toBe(200);
    const second = (JSON.parse(rotated.body) as { value: { token: string; file: string } }).value;
    expect(second.token).not.toBe(first);
    expect(second.file).toBe(s.host.mcpTokenFile);
    expect((await fs.stat(second.file)).mode & 0o777).toBe(0o600);
    expect((await init(first)).status).toBe(403);
    expect((await init(second.token)).status).toBe(200);

    // Another process (the command line, another app on this data folder) replaces the file.
    const third = await rotateTokenFile(s.host.mcpTokenFile);
    expect((await init(second.token)).status).toBe(403);
    expect((await init(third)).status).toBe(200);
    expect(await mcpTokenOf(s)).toBe(third);
  });

  it('makes room for a new client when every session is taken by clients that left without DELETE: the idle one unused longest ends, and its id answers 404', async () => {
    const s = await start();
    const auth = { ...mcpHeaders, Authorization: `Bearer ${s.token}` };
    const ids: string[] = [];
    for (let i = 0; i < MAX_MCP_SESSIONS + 3; i++) {
      const r = await rawWithHeaders(s.host.port, { headers: auth, body: initialize });
      expect(r.status).toBe(200);
      ids.push(r.headers['mcp-session-id'] as string);
    }
    // The SDK client still connects and works.
    const { client } = await connect(s);
    expect(((await client.callTool({ name: 'count', arguments: { text: 'a b c' } })) as CallToolResult).structuredContent).toMatchObject({ words: 3 });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const asked = await Promise.all(ids.map((id) => raw(s.host.port, { headers: { ...auth, 'Mcp-Session-Id': id }, body: list })));
    // The first four were evicted by the three that followed and the client; the others live on.
    expect(asked.map((r) => r.status)).toEqual(ids.map((_, i) => (i < 4 ? 404 : 200)));
    expect(JSON.parse(asked[0]!.body).error.message).toContain('initialize a new one');
  });

  it('never evicts a session with a request running, and refuses a new one with 503 while all are busy', async () => {
    const s = await start({ maxSessions: 2 });
    const detach = s.core.mcpServer.queue.attachWindow();
    closers.push(async () => detach());
    const a = await connect(s);
    const b = await connect(s);
    // Both wait for an approval: a request running in each session.
    const calls = [a, b].map((c) => c.client.callTool({ name: 'guarded', arguments: { text: 'x y' } }));
    let waiting: string[] = [];
    await vi.waitFor(async () => {
      const p = await s.core.call('mcpServer.approvals', {});
      waiting = p.ok ? p.value.map((r) => r.id) : [];
      expect(waiting).toHaveLength(2);
    });
    const full = await raw(s.host.port, { headers: { ...mcpHeaders, Authorization: `Bearer ${s.token}` }, body: initialize });
    expect(full.status).toBe(503);
    expect(JSON.parse(full.body).error.message).toContain('too many MCP sessions are busy');
    for (const id of waiting) await s.core.call('mcpServer.respond', { id, decision: 'allow-once' });
    for (const call of calls) expect(((await call) as CallToolResult).structuredContent).toMatchObject({ words: 2 });
  });

  it('ends a session left idle past the idle time, with no stream open: its id answers 404', async () => {
    let clock = 1_000_000;
    const s = await start({ idleMs: 60_000, now: () => clock });
    const auth = { ...mcpHeaders, Authorization: `Bearer ${s.token}` };
    const opened = await rawWithHeaders(s.host.port, { headers: auth, body: initialize });
    const id = opened.headers['mcp-session-id'] as string;
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    clock += 59_000;
    expect((await raw(s.host.port, { headers: { ...auth, 'Mcp-Session-Id': id }, body: list })).status).toBe(200);
    clock += 61_000;
    expect((await raw(s.host.port, { headers: { ...auth, 'Mcp-Session-Id': id }, body: list })).status).toBe(404);
  });
});

/** A client of the v2 SDK that negotiates: 2026-07-28 against a server that offers it. */
async function connect2026(s: Started, listChanged?: () => void) {
  const client = new Client2026(
    { name: 'modern-test', version: '3.1.0' },
    { versionNegotiation: { mode: 'auto' }, ...(listChanged ? { listChanged: { tools: { onChanged: () => listChanged() } } } : {}) },
  );
  const transport = new Http2026(s.url, { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } });
  await client.connect(transport);
  closers.push(() => client.close());
  return Object.assign(client, { sessionId: () => transport.sessionId });
}

const text2026 = (r: unknown) => ((r as CallToolResult2026).content[0] as { text: string }).text;

describe('/mcp for 2026-07-28 clients (stateless: no initialize, no session)', () => {
  it('negotiates 2026-07-28 with the v2 client and serves it without a session, while a 2025 client keeps its session', async () => {
    const s = await start();
    const modern = await connect2026(s);
    expect([modern.getProtocolEra(), modern.getNegotiatedProtocolVersion()]).toEqual(['modern', '2026-07-28']);
    expect((await modern.listTools()).tools.map((t) => t.name).sort()).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_usage']);
    expect((await modern.callTool({ name: 'count', arguments: { text: 'a b c' } })).structuredContent).toMatchObject({ words: 3 });
    const remote = await modern.callTool({ name: 'remote', arguments: { q: 'z' } });
    expect(remote.structuredContent).toMatchObject({ path: '/search?q=z', key: '[redacted]' });

    // A stored output's handle works in a later request: the 2026 clients' one session keeps it.
    const big = await modern.callTool({ name: 'big', arguments: {} });
    const handle = /handle = "([0-9a-f-]+)"/.exec(text2026(big))?.[1];
    expect(handle, text2026(big).slice(0, 200)).toBeTruthy();
    const out = await modern.callTool({ name: 'tool_output', arguments: { handle, extract: 'the first line', mode: 'truncate' } });
    expect(text2026(out)).toContain('line 00001');

    const bad = await modern.callTool({ name: 'count', arguments: {} });
    expect([bad.isError, text2026(bad)]).toEqual([true, expect.stringMatching(/^VALIDATION_FAILED: .*text/)]);
    const unknown = await modern.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => e as { code?: number; message: string });
    expect(unknown).toMatchObject({ code: -32602, message: expect.stringContaining("unknown tool 'nope'") });

    // No session was opened for it; a 2025 client beside it opens one, as before.
    expect(modern.sessionId()).toBeUndefined();
    const { client: legacy, transport } = await connect(s);
    expect(((await legacy.callTool({ name: 'count', arguments: { text: 'x' } })) as CallToolResult).structuredContent).toMatchObject({ words: 1 });
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a bare 2026 request (the _meta envelope, no initialize) and keeps the gate in front of it', async () => {
    const s = await start();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: meta } });
    const headers = { ...mcpHeaders, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' };
    const ok = await rawWithHeaders(s.host.port, { headers: { ...headers, Authorization: `Bearer ${s.token}` }, body: list });
    expect(ok.status).toBe(200);
    expect(ok.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(ok.body)).toMatchObject({ id: 7, result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'count' })]) } });
    const discover = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'server/discover', params: { _meta: meta } });
    const found = await rawWithHeaders(s.host.port, { headers: { ...headers, 'Mcp-Method': 'server/discover', Authorization: `Bearer ${s.token}` }, body: discover });
    expect(JSON.parse(found.body)).toMatchObject({ id: 8, result: { supportedVersions: expect.arrayContaining(['2026-07-28']), capabilities: { tools: { listChanged: true } } } });

    // No token, a foreign Origin: refused before the request is read, as for every client.
    expect((await raw(s.host.port, { headers, body: list })).status).toBe(403);
    expect((await raw(s.host.port, { headers: { ...headers, Authorization: `Bearer ${s.token}`, Origin: 'http://evil.test' }, body: list })).status).toBe(403);
    // Headers that disagree with the body: the SDK's own check answers.
    const mismatch = await raw(s.host.port, { headers: { ...headers, 'Mcp-Method': 'tools/call', Authorization: `Bearer ${s.token}` }, body: list });
    expect(mismatch.status).toBe(400);
    // A body that is not JSON by its Content-Type.
    expect((await raw(s.host.port, { headers: { ...headers, 'Content-Type': 'text/plain', Authorization: `Bearer ${s.token}` }, body: list })).status).toBe(415);
  });

  it('asks approval naming the client from its request envelope; "allow for this session" holds for later 2026 requests', async () => {
    const s = await start();
    const ws = new WebSocket(`ws://127.0.0.1:${s.host.port}/ws`, { headers: { Authorization: `Bearer ${s.token}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    closers.push(async () => ws.close());
    const modern = await connect2026(s);
    const call = modern.callTool({ name: 'guarded', arguments: { text: 'a b' } });
    let id = '';
    await vi.waitFor(async () => {
      const p = await s.core.call('mcpServer.approvals', {});
      expect(p.ok && p.value.map((a) => a.client)).toEqual(['modern-test 3.1.0']);
      id = p.ok ? p.value[0]!.id : '';
    });
    await s.core.call('mcpServer.respond', { id, decision: 'allow-session' });
    expect((await call).structuredContent).toMatchObject({ words: 2 });
    expect((await modern.callTool({ name: 'guarded', arguments: { text: 'a b c' } })).structuredContent).toMatchObject({ words: 3 });
    const pending = await s.core.call('mcpServer.approvals', {});
    expect(pending.ok && pending.value).toEqual([]);
  });

  it('ends the shared 2026 session when left idle past the idle time, and when the host closes: its stored outputs are removed', async () => {
    let clock = 1_000_000;
    const s = await start({ idleMs: 60_000, now: () => clock });
    const modern = await connect2026(s);
    const stored = async () => {
      const r = await s.core.call('toolOutputs.list', {});
      return r.ok ? r.value.length : -1;
    };
    const big = await modern.callTool({ name: 'big', arguments: {} });
    const handle = /handle = "([0-9a-f-]+)"/.exec(text2026(big))?.[1];
    expect(await stored()).toBe(1);
    clock += 59_000;
    await modern.listTools();
    expect(await stored()).toBe(1);
    clock += 61_000;
    await modern.listTools();
    expect(await stored()).toBe(0);
    // Its handle is gone with it.
    const gone = await modern.callTool({ name: 'tool_output', arguments: { handle, extract: 'the first line', mode: 'truncate' } });
    expect(gone.isError).toBe(true);

    await modern.callTool({ name: 'big', arguments: {} });
    expect(await stored()).toBe(1);
    await s.host.close();
    expect(await stored()).toBe(0);
  });

  it('with progressive discovery, a 2026 client searches: the found tool joins the list, listeners are told, and it runs', async () => {
    const s = await start();
    await s.core.call('settings.set', { mcpServer: { ...s.core.settings.get().mcpServer, toolSearch: { mode: 'always', maxTools: 50 } } });
    let changes = 0;
    const modern = await connect2026(s, () => void changes++);
    expect((await modern.listTools()).tools.map((t) => t.name).sort()).toEqual(['tool_output', 'tool_search', 'tool_usage']);
    const sub = await modern.listen({ toolsListChanged: true });
    closers.push(() => sub.close());
    const found = await modern.callTool({ name: 'tool_search', arguments: { query: 'count the words of a text', limit: 1 } });
    expect(found.structuredContent).toMatchObject({ tools: [{ name: 'count', inputSchema: { required: ['text'] } }], added: ['count'] });
    await vi.waitFor(() => expect(changes).toBeGreaterThan(0));
    expect((await modern.listTools()).tools.map((t) => t.name).sort()).toEqual(['count', 'tool_output', 'tool_search', 'tool_usage']);
    expect((await modern.callTool({ name: 'count', arguments: { text: 'a b' } })).structuredContent).toMatchObject({ words: 2 });
  });

  it('tells a listening 2026 client when the served list changes (subscriptions/listen)', async () => {
    const s = await start();
    let changes = 0;
    const modern = await connect2026(s, () => void changes++);
    const sub = await modern.listen({ toolsListChanged: true });
    closers.push(() => sub.close());
    await s.core.registry.store.putTool(s.bundleId, 'added', '1', { displayName: 'added', description: 'The added tool', tags: [], isEnabled: true, type: 'local', argSchema: { type: 'object', properties: {} }, outputSchema: {}, local: { functionId: 'text.count' } });
    s.core.mcpServer.changed();
    await vi.waitFor(() => expect(changes).toBeGreaterThan(0));
    expect((await modern.listTools()).tools.map((t) => t.name)).toContain('added');
  });
});
