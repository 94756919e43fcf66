/** A core on a temp folder with the test MCP server at hand, for the MCP client's tests. */
import path from 'node:path';
import { expect } from 'vitest';
import { createCore, type Core } from '../../app';
import { RESOURCES_DIR } from '../../testing/temp-dir';
import type { McpServerInput, McpServerView } from '../../../../shared/model/mcp-client';
import type { Result } from '../../../../shared/errors';
import type { InvokeOutcome } from '../../invoke/dispatcher';

export const TEST_SERVER = path.join(import.meta.dirname, 'test-server.mjs');

export function stdioServer(mode = 'normal', more: Partial<McpServerInput> = {}, env: Record<string, string> = {}): McpServerInput {
  return { name: `Test ${mode}`, connection: { transport: 'stdio', command: process.execPath, args: [TEST_SERVER, mode], env }, ...more };
}

export async function openCore(dataDir: string, mcpClient: { backoffMs?: number; maxMessageBytes?: number; openUrl?: (url: string) => Promise<void>; cancelWatchAfterMs?: number } = { backoffMs: 5 }): Promise<Core> {
  return createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless', mcpClient });
}

export async function addServer(core: Core, server: McpServerInput, enabled?: boolean): Promise<McpServerView> {
  const r = await core.call('mcpServers.add', { server, ...(enabled === undefined ? {} : { enabled }) });
  if (!r.ok) throw new Error(`add failed: ${r.error.message}`);
  return r.value;
}

export async function serverView(core: Core, bundleId: string): Promise<McpServerView> {
  const r = await core.call('mcpServers.list', {});
  if (!r.ok) throw new Error(r.error.message);
  const v = r.value.find((s) => s.bundleId === bundleId);
  if (!v) throw new Error(`no server ${bundleId}`);
  return v;
}

export function call(core: Core, bundleId: string, slug: string, args: unknown = {}, version = '1'): Promise<InvokeOutcome> {
  return core.dispatcher.invoke({ bundleId, slug, version, args, source: 'api' });
}

export function slugs(core: Core, bundleId: string): string[] {
  return core.registry.store
    .toolsOf(bundleId)
    .map((t) => t.slug)
    .sort();
}

/** Waits until `check` holds (the work is asserted, not the time it took). */
export async function until(check: () => boolean | Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) expect.fail(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A contract call's value, or the test fails with its error. */
export async function value<T>(r: Promise<Result<T>>): Promise<T> {
  const got = await r;
  if (!got.ok) throw new Error(got.error.message);
  return got.value;
}
