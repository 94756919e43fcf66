/**
 * `toolsmith mcp`: the real entry, bundled as `npm run build` bundles it, started as a child
 * process over a temp data folder and driven by the MCP SDK's stdio client, and by the MCP
 * Inspector's CLI mode as a third-party client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without types
import { electronBundles } from '../../scripts/electron-bundles.mjs';
// @ts-expect-error -- a plain .mjs build script without types
import { workerBundles } from '../../scripts/worker-bundles.mjs';
import { ApprovalStore } from '../core/agent/approvals';
import { createCore } from '../core/app';
import { SECRET_VALUE, seedServedBundle, startEchoServer, type EchoServer } from '../core/testing/mcp-serve-kit';
import { RESOURCES_DIR, useTempDirs } from '../core/testing/temp-dir';
import { SERVER_OFF_EXIT } from './mcp-stdio';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
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
      expect(tools.map((t) => t.name).sort()).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output']);

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
      expect(list.tools.map((t) => t.name).sort()).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output']);
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
});
