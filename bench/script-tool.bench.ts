/**
 * Script tools: a trivial script (`{ sum: a + b }`) through the dispatcher vs
 * - the same function as a built-in local tool, warm (the same core, calls alternating) and cold
 *   (the first call in a fresh core: for the script that includes starting its worker,
 *   instantiating QuickJS and loading the script);
 * - an MCP server over stdio doing the same (the test server's add_numbers, brought in as a bundle,
 *   through the same dispatcher): what a user would otherwise write.
 * Goal: warm ≤ 10× the built-in, and below the MCP server.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { createCore, type Core } from '../electron/core/app';
import { median, result, type BenchResult } from './harness';

const ROOT = process.cwd();
const RESOURCES = path.join(ROOT, 'resources');
const SERVER = path.join(ROOT, 'electron', 'core', 'mcp-client', 'testing', 'test-server.mjs');
const WARM_CALLS = 3_000;
const COLD_ROUNDS = 7;

const argSchema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
const SOURCE = 'function run(args) { return { sum: args.a + args.b }; }';

interface Setup {
  core: Core;
  dir: string;
  builtin: () => Promise<unknown>;
  script: () => Promise<unknown>;
}

async function setup(): Promise<Setup> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-bench-script-'));
  const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES, host: 'headless', watch: false });
  core.functions.register('bench.add', async (_ctx, args) => ({ sum: (args.a as number) + (args.b as number) }));
  const bundleId = uuidv7();
  await core.registry.store.putBundle(bundleId, { slug: 'bench', displayName: 'Bench', description: '', isEnabled: true });
  const common = { description: '', tags: [], argSchema, outputSchema, isEnabled: true };
  await core.registry.store.putTool(bundleId, 'add-local', '1', { ...common, displayName: 'add', type: 'local', local: { functionId: 'bench.add' } });
  const saved = await core.call('tools.put', { bundleId, slug: 'add-script', version: '1', body: { ...common, displayName: 'add', type: 'script', script: { source: SOURCE } } });
  if (!saved.ok) throw new Error(saved.error.message);
  const call = (slug: string) => async () => {
    const o = await core.dispatcher.invoke({ bundleId, slug, version: '1', args: { a: 2, b: 3 }, source: 'api' });
    if (!o.ok) throw new Error(`${slug}: ${o.error.message}`);
    if ((o.value as { sum: number }).sum !== 5) throw new Error(`${slug}: a wrong sum`);
  };
  return { core, dir, builtin: call('add-local'), script: call('add-script') };
}

async function close(s: Setup): Promise<void> {
  await s.core.close();
  await fs.rm(s.dir, { recursive: true, force: true });
}

async function time(op: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await op();
  return performance.now() - t0;
}

/** The first call of each in a fresh core, COLD_ROUNDS times (the built-in first, so it pays the core's own first-call costs). */
async function cold(): Promise<{ builtin: number[]; script: number[] }> {
  const builtin: number[] = [];
  const script: number[] = [];
  for (let i = 0; i < COLD_ROUNDS; i++) {
    const s = await setup();
    try {
      builtin.push(await time(s.builtin));
      script.push(await time(s.script));
    } finally {
      await close(s);
    }
  }
  return { builtin, script };
}

export async function run(): Promise<BenchResult[]> {
  const c = await cold();
  const s = await setup();
  try {
    const r = await s.core.call('mcpServers.add', { server: { name: 'Bench stdio', connection: { transport: 'stdio', command: process.execPath, args: [SERVER] } } });
    if (!r.ok || r.value.status.state !== 'connected') throw new Error(`the MCP server did not start: ${r.ok ? r.value.status.reason : r.error.message}`);
    const mcpTool = s.core.registry.store.toolsOf(r.value.bundleId).find((t) => t.mcp?.serverTool === 'add_numbers');
    if (!mcpTool) throw new Error('the MCP server has no add_numbers');
    const mcp = async () => {
      const o = await s.core.dispatcher.invoke({ bundleId: mcpTool.bundleId, slug: mcpTool.slug, version: mcpTool.version, args: { a: 2, b: 3 }, source: 'api' });
      if (!o.ok) throw new Error(o.error.message);
    };
    for (let i = 0; i < 300; i++) {
      await s.builtin();
      await s.script();
      await mcp();
    }
    const b: number[] = [];
    const sc: number[] = [];
    const m: number[] = [];
    // Alternating call by call, so every side sees the same machine load.
    for (let i = 0; i < WARM_CALLS; i++) {
      b.push(await time(s.builtin));
      sc.push(await time(s.script));
      m.push(await time(mcp));
    }
    const us = (ms: number) => `${(ms * 1000).toFixed(0)} us`;
    const p99 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * 0.99)]!;
    return [
      result('script tool vs the same function as a built-in local tool, warm (through the dispatcher)', 'ms/call (median)', median(sc), median(b), 10,
        `${WARM_CALLS} calls each, alternating; script p50 ${us(median(sc))}, p99 ${us(p99(sc))}; built-in p50 ${us(median(b))}, p99 ${us(p99(b))}`),
      result('script tool vs an MCP stdio server doing the same (its add_numbers as a bundle), warm', 'ms/call (median)', median(sc), median(m), 1,
        `${WARM_CALLS} calls each, alternating; MCP p50 ${us(median(m))}, p99 ${us(p99(m))}`),
      // No target: what a script's first call costs (worker start, QuickJS instantiated, script loaded) beside a built-in's first call.
      result('script tool vs built-in local tool, cold (the first call in a fresh core)', 'ms/call (median)', median(c.script), median(c.builtin), undefined,
        `${COLD_ROUNDS} fresh cores; script first calls ${c.script.map((x) => x.toFixed(1)).join(', ')} ms; built-in ${c.builtin.map((x) => x.toFixed(2)).join(', ')} ms`),
    ];
  } finally {
    await close(s);
  }
}
