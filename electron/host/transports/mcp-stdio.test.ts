/**
 * `toolsmith mcp`: the real entry, bundled as `npm run build` bundles it, started as a child
 * process over a temp data folder and driven by the MCP SDK's stdio client, and by the MCP
 * Inspector's CLI mode as a third-party client.
 */
import { Client as Client2026 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2026 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
// @ts-expect-error -- a plain .mjs build script without types
import { electronBundles } from '../../../scripts/electron-bundles.mjs';
// @ts-expect-error -- a plain .mjs build script without types
import { workerBundles } from '../../../scripts/worker-bundles.mjs';
import { ApprovalStore } from '../../core/agent/approvals';
import { createCore } from '../../core/app';
import { SECRET_VALUE, seedServedBundle, startEchoServer, type EchoServer } from '../../core/testing/mcp-serve-kit';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { startHttpHost } from './http';
import { SERVER_OFF_EXIT } from './mcp-stdio';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
// Inside the repo, so the bundle's bare imports resolve from its node_modules as the app's do.
const OUT = path.join(ROOT, 'node_modules', '.cache', `toolsmith-mcp-stdio-${process.pid}`);
const ENTRY = path.join(OUT, 'toolsmith.mjs');

type Bundles = (dir: string) => Record<string, Parameters<typeof build>[0]>;

beforeAll(async () => {
  await build((electronBundles as Bundles)(OUT).toolsmith!);
  await Promise.all(Object.values((workerBundles as Bundles)(OUT)).map((o) => build(o)));
}, 120_000);
afterAll(async () => {
  await fs.rm(OUT, { recursive: true, force: true });
});

const tempDir = useTempDirs();

/**
 * The Inspector's CLI mode (`mcp-inspector --cli` runs this same script in a child process;
 * its wrapper is skipped because it resolves the project's older `commander`).
 */
const INSPECTOR_CLI = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'index.js');

/** One Inspector run against the stdio entry: its JSON answer. */
function inspector(dataDir: string, args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [INSPECTOR_CLI, process.execPath, ENTRY, 'mcp', '--data-dir', dataDir, ...args], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`the Inspector failed: ${err.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`the Inspector printed no JSON: ${stdout.slice(0, 500)}\n${stderr.slice(0, 500)}`));
      }
    });
  });
}

/** A data folder with the served bundle, written by a core that is closed again. */
async function dataFolder(echo: EchoServer, enabled = true): Promise<string> {
  const dir = await tempDir();
  const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  await seedServedBundle(core, echo.port);
  if (!enabled) await core.call('settings.set', { mcpServer: { enabled: false, bundleIds: [] } });
  await core.call('settings.set', { toolOutputs: { ...core.settings.get().toolOutputs, baseDir: await tempDir() } });
  await core.close();
  return dir;
}

/** The JSON-RPC messages a child writes on stdout, one per line, in order. */
function stdoutMessages(child: ChildProcess): () => Promise<Record<string, unknown>> {
  const got: Record<string, unknown>[] = [];
  const waiters: ((m: Record<string, unknown>) => void)[] = [];
  let rest = '';
  child.stdout!.on('data', (c: Buffer) => {
    rest += c.toString('utf8');
    for (let nl = rest.indexOf('\n'); nl !== -1; nl = rest.indexOf('\n')) {
      const m = JSON.parse(rest.slice(0, nl)) as Record<string, unknown>;
      rest = rest.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(m);
      else got.push(m);
    }
  });
  return () => (got.length ? Promise.resolve(got.shift()!) : new Promise((resolve) => waiters.push(resolve)));
}

const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe('toolsmith mcp (stdio)', () => {
  it('serves the chosen bundle to the SDK client: list, a local tool, an HTTP tool, an oversized result and tool_output', async () => {
    const echo = await startEchoServer();
    const dir = await dataFolder(echo);
    const transport = new StdioClientTransport({ command: process.execPath, args: [ENTRY, 'mcp', '--data-dir', dir], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_usage']);

      const count = (await client.callTool({ name: 'count', arguments: { text: 'one two three' } })) as CallToolResult;
      expect(count.structuredContent).toMatchObject({ words: 3 });

      const remote = (await client.callTool({ name: 'remote', arguments: { q: 'x' } })) as CallToolResult;
      expect(remote.structuredContent).toMatchObject({ path: '/search?q=x', key: '[redacted]' });
      expect(echo.seenKeys).toEqual([SECRET_VALUE]);

      const big = (await client.callTool({ name: 'big', arguments: {} })) as CallToolResult;
      const handle = /handle = "([0-9a-f-]+)"/.exec((big.content[0] as { text: string }).text)?.[1];
      expect(handle).toBeTruthy();
      const out = (await client.callTool({ name: 'tool_output', arguments: { handle, extract: 'the first line', mode: 'truncate' } })) as CallToolResult;
      expect((out.content[0] as { text: string }).text).toContain('line 00001');

      const guarded = (await client.callTool({ name: 'guarded', arguments: { text: 'a' } })) as CallToolResult;
      expect(guarded.isError).toBe(true);
      expect((guarded.content[0] as { text: string }).text).toContain('no Toolsmith window is open');

      // Logs went to stderr; stdout carried only protocol messages (the client parsed them all).
      expect(stderr).toContain('Toolsmith MCP server on stdio');
    } finally {
      await client.close();
      await echo.close();
    }
    // The call was logged in the data folder the app reads.
    const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    try {
      const log = await core.call('invocations.list', {});
      expect(log.ok && log.value.map((r) => r.source)).toContain('api');
    } finally {
      await core.close();
    }
  }, 60_000);

  it('speaks 2026-07-28 to a client that negotiates it (server/discover, no initialize): list, calls, a stored output and tool_output', async () => {
    const echo = await startEchoServer();
    const dir = await dataFolder(echo);
    const client = new Client2026({ name: 'stdio-2026', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(new Stdio2026({ command: process.execPath, args: [ENTRY, 'mcp', '--data-dir', dir], stderr: 'pipe' }));
      expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual(['modern', '2026-07-28']);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_usage']);
      expect((await client.callTool({ name: 'count', arguments: { text: 'one two three' } })).structuredContent).toMatchObject({ words: 3 });
      const big = await client.callTool({ name: 'big', arguments: {} });
      const handle = /handle = "([0-9a-f-]+)"/.exec(textOf(big))?.[1];
      expect(handle).toBeTruthy();
      expect(textOf(await client.callTool({ name: 'tool_output', arguments: { handle, extract: 'the first line', mode: 'truncate' } }))).toContain('line 00001');
    } finally {
      await client.close();
      await echo.close();
    }
  }, 60_000);

  it('offers progressive discovery: tool_search listed, a search that adds its tools and says the list changed, a found tool run', async () => {
    const echo = await startEchoServer();
    const dir = await dataFolder(echo);
    const setup = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    await setup.call('settings.set', { mcpServer: { ...setup.settings.get().mcpServer, toolSearch: { mode: 'always', maxTools: 50 } } });
    await setup.close();
    const transport = new StdioClientTransport({ command: process.execPath, args: [ENTRY, 'mcp', '--data-dir', dir], stderr: 'pipe' });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['tool_output', 'tool_search', 'tool_usage']);
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
      const found = (await client.callTool({ name: 'tool_search', arguments: { query: 'count the words of a text', limit: 1 } })) as CallToolResult;
      expect(found.structuredContent).toMatchObject({ tools: [{ name: 'count' }], added: ['count'] });
      await vi.waitFor(() => expect(changed).toBe(1));
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['count', 'tool_output', 'tool_search', 'tool_usage']);
      expect(((await client.callTool({ name: 'count', arguments: { text: 'one two' } })) as CallToolResult).structuredContent).toMatchObject({ words: 2 });
    } finally {
      await client.close();
      await echo.close();
    }
  }, 60_000);

  it('follows the app working on the same data folder: a bundle served in Settings, a tool added in Tools', async () => {
    const echo = await startEchoServer();
    const dir = await dataFolder(echo);
    const transport = new StdioClientTransport({ command: process.execPath, args: [ENTRY, 'mcp', '--data-dir', dir], stderr: 'pipe' });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    const app = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    try {
      await client.connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('hidden');
      const other = app.registry.store.listBundles({ pageSize: 100 }).items.find((b) => b.slug === 'other')!;
      const kit = app.registry.store.listBundles({ pageSize: 100 }).items.find((b) => b.slug === 'kit')!;
      await app.call('settings.set', { mcpServer: { enabled: true, bundleIds: [kit.id, other.id] } });
      await vi.waitFor(async () => expect((await client.listTools()).tools.map((t) => t.name)).toContain('hidden'), { timeout: 20_000, interval: 200 });
      await app.registry.store.putTool(kit.id, 'later', '1', { displayName: 'Later', description: 'Added while serving', tags: [], type: 'local', argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, outputSchema: {}, local: { functionId: 'text.count' }, isEnabled: true });
      await vi.waitFor(async () => expect((await client.listTools()).tools.map((t) => t.name)).toContain('later'), { timeout: 20_000, interval: 200 });
      expect(changes).toBeGreaterThanOrEqual(2);

      // "Always allow" remembered in the app lets the stdio server run the tool with no window to ask.
      const guarded = (await client.callTool({ name: 'guarded', arguments: { text: 'a' } })) as CallToolResult;
      expect(guarded.isError).toBe(true);
      const approvals = await ApprovalStore.open({ dataDir: dir, now: () => new Date() });
      const tool = app.registry.store.allTools().find((t) => t.slug === 'guarded')!;
      await approvals.add({ toolId: tool.id, toolName: 'kit/guarded', scope: 'always' });
      await vi.waitFor(async () => expect(((await client.callTool({ name: 'guarded', arguments: { text: 'a b' } })) as CallToolResult).structuredContent).toMatchObject({ words: 2 }), {
        timeout: 20_000,
        interval: 200,
      });
    } finally {
      await client.close();
      await app.close();
      await echo.close();
    }
  }, 90_000);

  it('exits with a message naming Settings → MCP server when serving is switched off', async () => {
    const echo = await startEchoServer();
    const dir = await dataFolder(echo, false);
    await echo.close();
    const r = spawnSync(process.execPath, [ENTRY, 'mcp', '--data-dir', dir], { encoding: 'utf8', input: '', timeout: 30_000 });
    expect(r.status).toBe(SERVER_OFF_EXIT);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Settings → MCP server');
  }, 60_000);

  it('answers the MCP Inspector’s CLI: tools/list, and tools/call of a local tool, an HTTP tool, an oversized result and tool_output', async () => {
    const echo = await startEchoServer();
    try {
      const dir = await dataFolder(echo);
      const list = (await inspector(dir, ['--method', 'tools/list'])) as { tools: { name: string; inputSchema: unknown }[] };
      expect(list.tools.map((t) => t.name).sort()).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_usage']);
      expect(list.tools.find((t) => t.name === 'count')!.inputSchema).toMatchObject({ type: 'object', required: ['text'] });

      const count = (await inspector(dir, ['--method', 'tools/call', '--tool-name', 'count', '--tool-arg', 'text=one two'])) as CallToolResult;
      expect(count.structuredContent).toMatchObject({ words: 2 });

      const remote = (await inspector(dir, ['--method', 'tools/call', '--tool-name', 'remote', '--tool-arg', 'q=z'])) as CallToolResult;
      expect(remote.structuredContent).toMatchObject({ path: '/search?q=z', key: '[redacted]' });
      expect(echo.seenKeys).toEqual([SECRET_VALUE]);

      const big = (await inspector(dir, ['--method', 'tools/call', '--tool-name', 'big'])) as CallToolResult;
      const handle = /handle = "([0-9a-f-]+)"/.exec((big.content[0] as { text: string }).text)?.[1];
      expect(handle).toBeTruthy();
      // Each Inspector run is a session of its own: the handle ended with the one that made it.
      const out = (await inspector(dir, ['--method', 'tools/call', '--tool-name', 'tool_output', '--tool-arg', `handle=${handle}`, 'extract=the first line'])) as CallToolResult;
      expect(out.isError).toBe(true);
      expect((out.content[0] as { text: string }).text).toMatch(/^TOOL_OUTPUT FAILED FOR unknown WITH HANDLE .*\n\nno stored tool output has the handle/s);
    } finally {
      await echo.close();
    }
  }, 120_000);

  it('is one command among others: mcp --help says what it serves, an unknown command is bad usage', () => {
    const help = spawnSync(process.execPath, [ENTRY, 'mcp', '--help'], { encoding: 'utf8', timeout: 120_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: toolsmith mcp [options]');
    expect(help.stdout).toContain('--data-dir <dir>');
    const r = spawnSync(process.execPath, [ENTRY, 'mpc'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown command 'mpc'");
  }, 300_000);

  it('answers a line over 10 MB with a JSON-RPC error and reads on, and exits when stdin closes', async () => {
    const echo = await startEchoServer();
    const dir = await dataFolder(echo);
    await echo.close();
    const child = spawn(process.execPath, [ENTRY, 'mcp', '--data-dir', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const next = stdoutMessages(child);
    const write = (m: unknown) => child.stdin!.write(JSON.stringify(m) + '\n');
    try {
      write({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(11 * 1024 * 1024) } });
      const tooLong = await next();
      expect(tooLong).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect((tooLong.error as { message: string }).message).toContain(`at most ${10 * 1024 * 1024} bytes`);

      child.stdin!.write('{"jsonrpc": "2.0", "id": 2, "method": \n');
      expect(await next()).toMatchObject({ id: null, error: { code: -32700 } });

      write({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      expect(await next()).toMatchObject({ id: 3, result: { serverInfo: { name: 'toolsmith' } } });
      write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      write({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
      const list = (await next()) as { id: number; result: { tools: { name: string }[] } };
      expect(list.id).toBe(4);
      expect(list.result.tools.map((t) => t.name)).toContain('count');

      child.stdin!.end();
      expect(await exited).toBe(0);
      expect(stderr).toContain('a longer one was dropped unread');
    } finally {
      child.kill();
    }
  }, 120_000);

  it('asks the window of the app running on the same data folder to approve a tool: allow runs it, deny refuses it, no window refuses it', async () => {
    const echo = await startEchoServer();
    const dir = await dataFolder(echo);
    // The app: the headless host on this data folder, and a window connected to it.
    const app = await createCore({ dataDir: dir, resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    const host = await startHttpHost({ core: app, staticDir: path.join(dir, 'no-static') });
    const token = (await fs.readFile(host.tokenFile, 'utf8')).trim();
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { headers: { Authorization: `Bearer ${token}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const transport = new StdioClientTransport({ command: process.execPath, args: [ENTRY, 'mcp', '--data-dir', dir], stderr: 'pipe' });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    const waitingInApp = async () => {
      let id = '';
      await vi.waitFor(
        async () => {
          const p = await app.call('mcpServer.approvals', {});
          expect(p.ok && p.value.map((r) => [r.toolName, r.client])).toEqual([['kit/guarded', 'stdio-test 1.0.0']]);
          id = p.ok ? p.value[0]!.id : '';
        },
        { timeout: 20_000, interval: 100 },
      );
      return id;
    };
    try {
      await client.connect(transport);
      const allowed = client.callTool({ name: 'guarded', arguments: { text: 'a b c' } });
      expect((await app.call('mcpServer.respond', { id: await waitingInApp(), decision: 'allow-once' })).ok).toBe(true);
      expect(((await allowed) as CallToolResult).structuredContent).toMatchObject({ words: 3 });

      const denied = client.callTool({ name: 'guarded', arguments: { text: 'a' } });
      await app.call('mcpServer.respond', { id: await waitingInApp(), decision: 'deny' });
      const refused = (await denied) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('the user denied');

      // The window closes: the app is still there, but has nobody to ask.
      ws.close();
      await vi.waitFor(() => expect(app.mcpServer.queue.windowOpen()).toBe(false));
      const noWindow = (await client.callTool({ name: 'guarded', arguments: { text: 'a' } })) as CallToolResult;
      expect(noWindow.isError).toBe(true);
      expect(textOf(noWindow)).toContain('no Toolsmith window is open');

      // A window again: "Always allow" is remembered where both processes read it.
      const again = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { headers: { Authorization: `Bearer ${token}` } });
      await new Promise((resolve, reject) => again.once('open', resolve).once('error', reject));
      const always = client.callTool({ name: 'guarded', arguments: { text: 'x y' } });
      await app.call('mcpServer.respond', { id: await waitingInApp(), decision: 'allow-always' });
      expect(((await always) as CallToolResult).structuredContent).toMatchObject({ words: 2 });
      again.close();
      await vi.waitFor(
        async () => {
          const rules = await app.call('approvals.list', {});
          expect(rules.ok && rules.value.map((r) => [r.toolName, r.scope])).toEqual([['kit/guarded', 'always']]);
        },
        { timeout: 20_000, interval: 100 },
      );
      const remembered = (await client.callTool({ name: 'guarded', arguments: { text: 'z' } })) as CallToolResult;
      expect(remembered.structuredContent).toMatchObject({ words: 1 });
    } finally {
      await client.close();
      ws.close();
      await host.close();
      await app.close();
      await echo.close();
    }
  }, 90_000);
});
