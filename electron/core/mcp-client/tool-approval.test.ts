/**
 * Which tools of an MCP server ask before a model runs them: per MCP a tool is possibly
 * destructive unless it says otherwise, so a tool without hints asks; the server's trust switch
 * lets such tools run without asking, and a tool marked destructive always asks. Checked with the
 * real test server (testing/test-server.mjs) over stdio.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, openCore, serverView, stdioServer } from './testing/harness';
import { mcpToolAsks } from './tool-sync';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

async function open(dataDir: string): Promise<Core> {
  const c = await openCore(dataDir);
  cores.push(c);
  return c;
}

/** The newest version of each tool of the bundle, by slug. */
function latest(c: Core, bundleId: string) {
  const out = new Map<string, ReturnType<Core['registry']['store']['toolsOf']>[number]>();
  for (const t of c.registry.store.toolsOf(bundleId)) {
    const cur = out.get(t.slug);
    if (!cur || Number(t.version) > Number(cur.version)) out.set(t.slug, t);
  }
  return out;
}

/** Slugs of the newest versions that ask, sorted. */
function asking(c: Core, bundleId: string): string[] {
  return [...latest(c, bundleId).values()]
    .filter((t) => t.requiresApproval)
    .map((t) => t.slug)
    .sort();
}

const UNANNOTATED = ['add-numbers', 'add-tool', 'big', 'die', 'fail', 'picture', 'read-resource', 'slow', 'whoami'];

describe('approval of an MCP server’s tools', () => {
  it('asks for every tool without hints and for a destructive one, not for a read-only one', async () => {
    const c = await open(await tempDir());
    const v = await addServer(c, stdioServer());
    expect(v.trustUnannotatedTools).toBe(false);
    expect(asking(c, v.bundleId)).toEqual([...UNANNOTATED, 'delete-everything'].sort());
    expect(latest(c, v.bundleId).get('echo')!.requiresApproval).toBeUndefined();
    const approval = await c.call('tools.approval', { bundleId: v.bundleId, slug: 'add-numbers', version: '1' });
    expect(approval).toEqual({ ok: true, value: { reason: { kind: 'tool' }, mcpHints: {} } });
  });

  it('the trust switch lets tools without hints run at once (a new version each), saved with the server; destructive ones still ask', async () => {
    const dataDir = await tempDir();
    const c = await open(dataDir);
    const v = await addServer(c, stdioServer());
    const r = await c.call('mcpServers.setTrust', { bundleId: v.bundleId, trustUnannotatedTools: true });
    expect(r).toMatchObject({ ok: true, value: { trustUnannotatedTools: true } });
    expect(asking(c, v.bundleId)).toEqual(['delete-everything']);
    const now = latest(c, v.bundleId).get('add-numbers')!;
    expect(now.version).toBe('2');
    expect(c.registry.store.getTool(v.bundleId, 'add-numbers', '1').isEnabled).toBe(false);
    const file = JSON.parse(await fs.readFile(path.join(dataDir, 'mcp-servers', `${v.bundleId}.json`), 'utf8'));
    expect(file.server.trustUnannotatedTools).toBe(true);
    // Listing again keeps the setting: nothing changes.
    await c.call('mcpServers.restart', { bundleId: v.bundleId });
    expect(latest(c, v.bundleId).get('add-numbers')!.version).toBe('2');
    // And off again: they ask again.
    await c.call('mcpServers.setTrust', { bundleId: v.bundleId, trustUnannotatedTools: false });
    expect(asking(c, v.bundleId)).toEqual([...UNANNOTATED, 'delete-everything'].sort());
    expect((await serverView(c, v.bundleId)).trustUnannotatedTools).toBe(false);
  });

  it('brings tools stored without approval along when the app opens, before their server starts (a data folder from before the rule)', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    // Stored as an earlier version stored them: tools without hints do not ask.
    const v = await addServer(first, stdioServer('normal', { trustUnannotatedTools: true }));
    expect(asking(first, v.bundleId)).toEqual(['delete-everything']);
    await first.close();
    cores.splice(cores.indexOf(first), 1);
    const configFile = path.join(dataDir, 'mcp-servers', `${v.bundleId}.json`);
    const config = JSON.parse(await fs.readFile(configFile, 'utf8'));
    delete config.server.trustUnannotatedTools;
    await fs.writeFile(configFile, JSON.stringify(config));

    const again = await open(dataDir);
    expect((await serverView(again, v.bundleId)).trustUnannotatedTools).toBe(false);
    // Before any call starts the server: the first call of an unannotated tool already asks.
    expect(asking(again, v.bundleId)).toEqual([...UNANNOTATED, 'delete-everything'].sort());
    await again.call('mcpServers.restart', { bundleId: v.bundleId });
    expect(asking(again, v.bundleId)).toEqual([...UNANNOTATED, 'delete-everything'].sort());
  });

  it('refuses the switch for a server that does not exist', async () => {
    const c = await open(await tempDir());
    const r = await c.call('mcpServers.setTrust', { bundleId: '01900000-0000-7000-8000-000000000000', trustUnannotatedTools: true });
    expect(r).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});

describe('mcpToolAsks', () => {
  it('follows the MCP defaults (readOnlyHint false, destructiveHint true)', () => {
    expect(mcpToolAsks(undefined)).toBe(true);
    expect(mcpToolAsks({})).toBe(true);
    expect(mcpToolAsks({ idempotentHint: true, openWorldHint: false })).toBe(true);
    expect(mcpToolAsks({ readOnlyHint: false })).toBe(true);
    expect(mcpToolAsks({ readOnlyHint: true })).toBe(false);
    expect(mcpToolAsks({ readOnlyHint: true, destructiveHint: true })).toBe(false);
    expect(mcpToolAsks({ destructiveHint: false })).toBe(false);
    expect(mcpToolAsks({ destructiveHint: true })).toBe(true);
    // Trusted: no hints no longer asks; a hint that leaves it destructive still does.
    expect(mcpToolAsks(undefined, { trustUnannotatedTools: true })).toBe(false);
    expect(mcpToolAsks({ idempotentHint: true }, { trustUnannotatedTools: true })).toBe(false);
    expect(mcpToolAsks({ destructiveHint: true }, { trustUnannotatedTools: true })).toBe(true);
    expect(mcpToolAsks({ readOnlyHint: false }, { trustUnannotatedTools: true })).toBe(true);
  });
});
