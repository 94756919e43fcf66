/**
 * Servers of either revision of MCP, as bundles: a 2026-07-28 server (the v2 SDK's) over stdio
 * and over HTTP is spoken to without initialize; a 2025 server, including one that ends its
 * process at the 2026 probe, with initialize.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
// @ts-expect-error -- a plain .mjs test server without types
import { cancelled, makeModernServer } from './testing/era-server.mjs';
import { startHttpTestServer } from './testing/http-test-server';
import { addServer, call, openCore, until } from './testing/harness';

const ERA_SERVER = path.join(import.meta.dirname, 'testing', 'era-server.mjs');
const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function core(): Promise<Core> {
  const c = await openCore(await tempDir());
  closers.push(() => c.close());
  return c;
}

async function logOf(c: Core, bundleId: string): Promise<string> {
  const r = await c.call('mcpServers.log', { bundleId });
  return r.ok ? r.value.map((l) => l.text).join('\n') : '';
}

/** The v2 SDK's server for both revisions over HTTP, stateless for 2025 clients too. */
async function modernHttp(): Promise<string> {
  const handler = createMcpHandler(({ era }) => makeModernServer(era));
  const node = toNodeHandler(handler);
  const server = http.createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    await handler.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** Starts `slow`, cancels it once it runs, and answers whether the call ended cancelled. */
async function cancelSlow(c: Core, bundleId: string): Promise<void> {
  const invocationId = `slow-${Date.now()}`;
  const running = c.dispatcher.invoke({ bundleId, slug: 'slow', version: '1', args: {}, source: 'api', invocationId });
  await until(() => c.dispatcher.runningIds().includes(invocationId), 'the call running');
  // Past the moment the call starts watching for its cancel.
  await new Promise((r) => setTimeout(r, 50));
  expect(c.dispatcher.cancel(invocationId)).toBe(true);
  expect(await running).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
}

describe('MCP servers of either revision', () => {
  it('speaks 2026-07-28 to a server that offers it, over stdio: no initialize, the tool runs', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Modern stdio', connection: { transport: 'stdio', command: process.execPath, args: [ERA_SERVER, 'modern'] } });
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(await logOf(c, v.bundleId)).toContain('MCP 2026-07-28 (stateless)');
    expect(await call(c, v.bundleId, 'echo', { text: 'hi' })).toMatchObject({ ok: true, value: 'hi (modern)' });
  });

  it('cancels a running call of a 2026 server over stdio: the server is told', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Modern stdio', connection: { transport: 'stdio', command: process.execPath, args: [ERA_SERVER, 'modern'] } });
    await cancelSlow(c, v.bundleId);
    await until(async () => (await logOf(c, v.bundleId)).includes('slow cancelled'), 'the server told of the cancel');
  });

  it('cancels a running call of a 2026 server over HTTP: the server is told', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Modern http', connection: { transport: 'http', url: await modernHttp() } });
    const before = (cancelled as { count: number }).count;
    await cancelSlow(c, v.bundleId);
    await until(() => (cancelled as { count: number }).count > before, 'the server told of the cancel');
  });

  it('speaks 2026-07-28 to a server that offers it, over HTTP', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Modern http', connection: { transport: 'http', url: await modernHttp() } });
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(await logOf(c, v.bundleId)).toContain('MCP 2026-07-28 (stateless)');
    expect(await call(c, v.bundleId, 'echo', { text: 'hi' })).toMatchObject({ ok: true, value: 'hi (modern)' });
  });

  it('falls back to initialize for a 2025 server over HTTP', async () => {
    const server = await startHttpTestServer({});
    closers.push(() => server.stop());
    const c = await core();
    const v = await addServer(c, { name: 'Legacy http', connection: { transport: 'http', url: server.url } });
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(await logOf(c, v.bundleId)).toContain('MCP 2025-11-25 (with initialize)');
    expect(server.rpc.slice(0, 2)).toEqual(['server/discover', 'initialize']);
  });

  it('a malformed answer fails that call only: the server stays connected and its other tools run', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Strict', connection: { transport: 'stdio', command: process.execPath, args: [ERA_SERVER, 'strict-legacy'] } });
    expect(await call(c, v.bundleId, 'bad')).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', message: expect.stringContaining('not a valid MCP result') } });
    const after = await c.call('mcpServers.list', {});
    expect(after.ok && after.value.find((s) => s.bundleId === v.bundleId)!.status).toMatchObject({ state: 'connected', restarts: 0 });
    expect(await call(c, v.bundleId, 'echo', { text: 'still' })).toMatchObject({ ok: true, value: 'still (legacy)' });
  });

  it('a server that fails at start is started once per attempt, and fails with its own words', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Broken', connection: { transport: 'stdio', command: process.execPath, args: ['-e', "console.error('Error: Cannot find module x'); process.exit(1)"] } });
    expect(v.status).toMatchObject({ state: 'failed', reason: expect.stringContaining('Cannot find module x') });
    // It ended during the 2026 probe, as a 2025 server that refuses the probe does: it is tried once more the 2025 way, no more.
    const log = await logOf(c, v.bundleId);
    expect(log.match(/process \d+ started/g)!.length).toBeLessThanOrEqual(2);
    // Edited to a command that works, it starts, in the revision the server speaks.
    const fixed = await c.call('mcpServers.update', { bundleId: v.bundleId, server: { name: 'Broken', connection: { transport: 'stdio', command: process.execPath, args: [ERA_SERVER, 'modern'] } } });
    expect(fixed).toMatchObject({ ok: true, value: { status: { state: 'connected' } } });
    expect(await logOf(c, v.bundleId)).toContain('MCP 2026-07-28 (stateless)');
  });

  it('a question a 2025 server never withdraws ends when its call is cancelled', async () => {
    const c = await core();
    const detach = c.attachWindow();
    closers.push(async () => detach());
    const v = await addServer(c, { name: 'Strict', connection: { transport: 'stdio', command: process.execPath, args: [ERA_SERVER, 'strict-legacy'] } });
    const invocationId = `ask-${Date.now()}`;
    const running = c.dispatcher.invoke({ bundleId: v.bundleId, slug: 'ask', version: '1', args: {}, source: 'api', invocationId });
    await until(async () => {
      const r = await c.call('mcpElicitations.list', {});
      return r.ok && r.value.length === 1;
    }, 'the question waiting');
    expect(c.dispatcher.cancel(invocationId)).toBe(true);
    expect(await running).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    await until(async () => {
      const r = await c.call('mcpElicitations.list', {});
      return r.ok && r.value.length === 0;
    }, 'the question gone with its call');
  });

  it('starts a 2025 server that ends at the 2026 probe again with initialize, and keeps doing so after a restart', async () => {
    const c = await core();
    const v = await addServer(c, { name: 'Strict', connection: { transport: 'stdio', command: process.execPath, args: [ERA_SERVER, 'strict-legacy'] } });
    expect(v.status.state, v.status.reason).toBe('connected');
    const log = await logOf(c, v.bundleId);
    expect(log).toContain('the server closed during server/discover');
    expect(log).toContain('MCP 2025-11-25 (with initialize)');
    expect(await call(c, v.bundleId, 'echo', { text: 'hi' })).toMatchObject({ ok: true, value: 'hi (legacy)' });
    expect(await c.call('mcpServers.restart', { bundleId: v.bundleId })).toMatchObject({ ok: true, value: { status: { state: 'connected' } } });
    const again = await logOf(c, v.bundleId);
    expect(again.match(/the server closed during server\/discover/g)).toHaveLength(1);
    expect(again.match(/strict-legacy: 'server\/discover' before initialize/g)).toHaveLength(1);
  });
});
