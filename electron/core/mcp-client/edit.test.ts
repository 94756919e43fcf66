/**
 * Changing an MCP server after adding it (`mcpServers.update`): the server's file is rewritten
 * (the truth), its bundle renamed with it, and the server started again with the new settings;
 * literal values shown hidden and `${secret:NAME}` references are kept; an edit that is refused
 * changes nothing. With the real test server (testing/test-server.mjs), over stdio and HTTP.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_HIDDEN_VALUE, type McpServerEdit, type McpServerView } from '../../../shared/model/mcp-client';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { startHttpTestServer, type HttpTestServer } from './testing/http-test-server';
import { addServer, alive, call, openCore, serverView, slugs, stdioServer, TEST_SERVER } from './testing/harness';

const tempDir = useTempDirs();
const cores: Core[] = [];
const servers: HttpTestServer[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function core(): Promise<{ core: Core; dataDir: string }> {
  const dataDir = await tempDir();
  const c = await openCore(dataDir);
  cores.push(c);
  return { core: c, dataDir };
}

type Stdio = Extract<McpServerView['connection'], { transport: 'stdio' }>;
type Http = Extract<McpServerView['connection'], { transport: 'http' }>;

const fileOf = (dataDir: string, bundleId: string) => path.join(dataDir, 'mcp-servers', `${bundleId}.json`);

async function update(c: Core, bundleId: string, server: McpServerEdit): Promise<McpServerView> {
  const r = await c.call('mcpServers.update', { bundleId, server });
  if (!r.ok) throw new Error(`update failed: ${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** What the whoami tool of the running server says: its pid, its env value, its working folder. */
async function whoami(c: Core, bundleId: string): Promise<{ pid: number; env?: string; cwd: string }> {
  // The trust switch makes new versions: the one switched on runs.
  const version = c.registry.store.toolsOf(bundleId).find((t) => t.slug === 'whoami' && t.isEnabled)?.version ?? '1';
  const r = await call(c, bundleId, 'whoami', {}, version);
  if (!r.ok) throw new Error(r.error.message);
  return JSON.parse(r.value as string) as { pid: number; env?: string; cwd: string };
}

describe('changing an MCP server after adding it', () => {
  it('rewrites its file, renames its bundle and starts it again with the new settings; hidden values, timeouts and trust are kept', async () => {
    const { core: c, dataDir } = await core();
    const added = await addServer(c, stdioServer('normal', { timeouts: { startMs: 20_000, callMs: 45_000 }, maxRestarts: 5 }, { MCP_TEST_VALUE: 'literal-token' }));
    expect((await c.call('mcpServers.setTrust', { bundleId: added.bundleId, trustUnannotatedTools: true })).ok).toBe(true);
    const before = await whoami(c, added.bundleId);
    expect(before.env).toBe('literal-token');
    // The window sees the literal value hidden, and gives it back as it saw it.
    expect(added.connection).toMatchObject({ env: { MCP_TEST_VALUE: MCP_HIDDEN_VALUE } });
    const slug = c.registry.store.bundleById(added.bundleId)!.slug;
    const tools = slugs(c, added.bundleId);
    const cwd = await tempDir();

    const v = await update(c, added.bundleId, { name: 'Renamed server', connection: { ...(added.connection as Stdio), cwd } });
    expect(v).toMatchObject({ bundleId: added.bundleId, name: 'Renamed server', timeouts: { startMs: 20_000, callMs: 45_000 }, maxRestarts: 5, trustUnannotatedTools: true });
    expect(v.status.state).toBe('connected');
    expect(v.status.noTools).toBeUndefined();
    expect(v.connection).toMatchObject({ transport: 'stdio', cwd, env: { MCP_TEST_VALUE: MCP_HIDDEN_VALUE } });
    // A new process: the old one ended, the new one runs with the kept value in the new folder.
    expect(alive(before.pid)).toBe(false);
    const after = await whoami(c, added.bundleId);
    expect(after.pid).not.toBe(before.pid);
    expect(after).toMatchObject({ env: 'literal-token', cwd });
    // Files are the truth: the server's file says so (private still), and its bundle is renamed, its slug kept.
    const file = JSON.parse(await fs.readFile(fileOf(dataDir, added.bundleId), 'utf8'));
    expect(file).toMatchObject({ version: 1, bundleId: added.bundleId, createdAt: expect.any(String), server: { name: 'Renamed server', connection: { env: { MCP_TEST_VALUE: 'literal-token' }, cwd }, maxRestarts: 5, trustUnannotatedTools: true } });
    expect((await fs.stat(fileOf(dataDir, added.bundleId))).mode & 0o777).toBe(0o600);
    expect(c.registry.store.bundleById(added.bundleId)).toMatchObject({ slug, displayName: 'Renamed server' });
    // The same tools: nothing was added or versioned because the server was started again.
    expect(slugs(c, added.bundleId)).toEqual(tools);
    // A new value replaces the saved one; a new variable is added.
    await update(c, added.bundleId, { name: 'Renamed server', connection: { transport: 'stdio', command: process.execPath, args: [TEST_SERVER, 'normal'], env: { MCP_TEST_VALUE: 'changed' } } });
    expect((await whoami(c, added.bundleId)).env).toBe('changed');
    const log = await c.call('mcpServers.log', { bundleId: added.bundleId });
    expect(log.ok && log.value.some((l) => l.text === 'its settings were changed')).toBe(true);
    // A reopened app reads the edited file.
    await c.close();
    const again = await openCore(dataDir);
    cores.push(again);
    expect(await serverView(again, added.bundleId)).toMatchObject({ name: 'Renamed server', connection: { env: { MCP_TEST_VALUE: MCP_HIDDEN_VALUE } }, trustUnannotatedTools: true });
  });

  it('refuses bad input with a clear message and loses nothing: the file, the bundle and the running server are as they were', async () => {
    const { core: c, dataDir } = await core();
    const added = await addServer(c, stdioServer('normal', {}, { MCP_TEST_VALUE: 'kept' }));
    const pid = (await whoami(c, added.bundleId)).pid;
    const fileBefore = await fs.readFile(fileOf(dataDir, added.bundleId), 'utf8');
    const bundleBefore = c.registry.store.bundleById(added.bundleId);
    const conn = added.connection as Stdio;

    const refused: [unknown, RegExp][] = [
      [{ name: 'x', connection: { ...conn, command: '  ' } }, /connection\.command: a command is required/],
      [{ name: 'x', connection: { transport: 'http', url: 'ftp://example.com/mcp' } }, /connection\.url: must be an http:\/\/ or https:\/\/ URL/],
      [{ name: 'x', connection: { ...conn, env: { 'BAD=NAME': 'v' } } }, /connection\.env\.BAD=NAME: /],
      [{ name: '', connection: conn }, /name/],
      [{ name: 'x', connection: conn, maxRestarts: 99 }, /maxRestarts/],
      [{ name: 'x', connection: conn, surprise: true }, /surprise|unrecognized/i],
      // A hidden value under a name the server has no value for: said, not saved as the dots.
      [{ name: 'x', connection: { ...conn, env: { OTHER_NAME: MCP_HIDDEN_VALUE } } }, /connection\.env\.OTHER_NAME: '••••••' stands for a saved value that is kept hidden, and this server has no variable 'OTHER_NAME' saved: type its value/],
      // Switched to HTTP, a header shown hidden has no saved header to keep.
      [{ name: 'x', connection: { transport: 'http', url: 'https://example.com/mcp', headers: { Authorization: MCP_HIDDEN_VALUE } } }, /connection\.headers\.Authorization: .* no header 'Authorization' saved/],
    ];
    for (const [server, message] of refused) {
      const r = await c.call('mcpServers.update', { bundleId: added.bundleId, server: server as McpServerEdit });
      expect(r.ok, JSON.stringify(server)).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe('VALIDATION_FAILED');
      expect(r.error.message, JSON.stringify(server)).toMatch(message);
      expect(r.error.details).toMatchObject({ issues: [expect.objectContaining({ path: expect.any(String), message: expect.any(String) })] });
    }
    expect(await fs.readFile(fileOf(dataDir, added.bundleId), 'utf8')).toBe(fileBefore);
    expect(c.registry.store.bundleById(added.bundleId)).toEqual(bundleBefore);
    const v = await serverView(c, added.bundleId);
    expect(v).toMatchObject({ name: added.name, status: { state: 'connected', pid } });
    expect(await whoami(c, added.bundleId)).toMatchObject({ pid, env: 'kept' });
  });

  it('an unknown server is NOT_FOUND, and nothing is written', async () => {
    const { core: c, dataDir } = await core();
    const unknown = '01900000-0000-7000-8000-000000000000';
    const r = await c.call('mcpServers.update', { bundleId: unknown, server: stdioServer() });
    expect(r).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: `no MCP server for bundle ${unknown}` } });
    await expect(fs.readdir(path.join(dataDir, 'mcp-servers'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await c.call('mcpServers.update', { bundleId: 'not-an-id', server: stdioServer() })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });

  it('an edit that changes nothing does not restart the server', async () => {
    const { core: c } = await core();
    const added = await addServer(c, stdioServer());
    const pid = (await whoami(c, added.bundleId)).pid;
    const v = await update(c, added.bundleId, { name: added.name, connection: added.connection });
    expect(v.status).toMatchObject({ state: 'connected', pid });
  });

  it('a switched-off server is changed but not started', async () => {
    const { core: c, dataDir } = await core();
    const added = await addServer(c, stdioServer(), false);
    const v = await update(c, added.bundleId, { name: 'Still off', connection: added.connection });
    expect(v).toMatchObject({ name: 'Still off', status: { state: 'stopped' } });
    expect(v.status.pid).toBeUndefined();
    expect(JSON.parse(await fs.readFile(fileOf(dataDir, added.bundleId), 'utf8')).server.name).toBe('Still off');
  });

  it('over HTTP: moved to another URL, its ${secret:NAME} header stays a reference (sent only where bound) and a hidden header keeps its value', async () => {
    const token = (req: { headers: { authorization?: string } }) => req.headers.authorization === 'Bearer s3cret-token';
    const first = await startHttpTestServer({ authorize: token });
    const second = await startHttpTestServer({ authorize: token });
    servers.push(first, second);
    const { core: c, dataDir } = await core();
    await c.secrets.set('MCP_TOKEN', 's3cret-token', ['127.0.0.1']);
    const added = await addServer(c, { name: 'Remote', connection: { transport: 'http', url: first.url, headers: { Authorization: 'Bearer ${secret:MCP_TOKEN}', 'X-Team': 'blue' } } });
    expect(added.status.state).toBe('connected');
    expect(added.connection).toMatchObject({ headers: { Authorization: 'Bearer ${secret:MCP_TOKEN}', 'X-Team': MCP_HIDDEN_VALUE } });

    const v = await update(c, added.bundleId, { name: 'Remote', connection: { ...(added.connection as Http), url: second.url } });
    expect(v.status.state).toBe('connected');
    expect(await call(c, added.bundleId, 'echo', { text: 'on the second' })).toMatchObject({ ok: true, value: 'on the second' });
    expect(second.calls).toEqual(['echo']);
    expect(first.calls).toEqual([]);
    expect(second.requests.every((r) => r.headers['x-team'] === 'blue')).toBe(true);
    // The file holds the reference, never the secret's value.
    const text = await fs.readFile(fileOf(dataDir, added.bundleId), 'utf8');
    expect(JSON.parse(text).server.connection).toEqual({ transport: 'http', url: second.url, headers: { Authorization: 'Bearer ${secret:MCP_TOKEN}', 'X-Team': 'blue' } });
    expect(text).not.toContain('s3cret-token');
  });
});
