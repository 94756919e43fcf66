/**
 * Registry workloads: a PUT through the store (lock, exclusive atomic commit, index update)
 * against a bare write-file-atomic of the same JSON; opening a data folder of 10k tools with
 * its index present (unchanged files are taken from the index's cached docs) against opening
 * it with a full rebuild (every file read and validated).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { v7 as uuidv7 } from 'uuid';
import writeFileAtomic from 'write-file-atomic';
import { EventBus } from '../electron/core/events';
import { ProblemLog } from '../electron/core/problems';
import { Registry } from '../electron/core/registry/registry';
import { toFileText } from '../electron/core/lib/durable-fs';
import { StoreLayout } from '../electron/core/bundles/layout';
import { SETTLE_MS } from '../electron/core/bundles/tool-files';
import { median, result, type BenchResult } from './harness';

const RESOURCES = path.resolve(import.meta.dirname, '..', 'resources');

function registry(dataDir: string): Registry {
  const events = new EventBus();
  return new Registry({ dataDir, resourcesDir: RESOURCES, events, problems: new ProblemLog(events, () => new Date()), watch: false });
}

function toolBody(i: number) {
  return {
    displayName: `Tool number ${i}`,
    description: `Fetches record ${i} from the inventory service and returns it as JSON`,
    tags: ['inventory', i % 2 ? 'read' : 'write'],
    type: 'http' as const,
    argSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    outputSchema: { type: 'object' },
    http: { method: 'GET' as const, urlTemplate: 'https://inventory.example.com/items/${id}' },
    isEnabled: true,
  };
}

async function putVsAtomicWrite(): Promise<BenchResult> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-bench-put-'));
  const reg = registry(dir);
  await reg.open();
  const bundleId = uuidv7();
  await reg.store.putBundle(bundleId, { slug: 'bench', displayName: 'Bench', description: '', isEnabled: true });
  const plain = path.join(dir, 'plain');
  await fs.mkdir(plain);
  const ours: number[] = [];
  const base: number[] = [];
  const N = 300;
  for (let i = 0; i < N; i++) {
    // Interleaved, so disk and machine load hit both alike.
    let t0 = performance.now();
    const stored = await reg.store.putTool(bundleId, `tool-${i}`, '1', toolBody(i));
    ours.push(performance.now() - t0);
    const text = toFileText({ ...stored, id: uuidv7() });
    t0 = performance.now();
    await writeFileAtomic(path.join(plain, `tool-${i}.json`), text, { fsync: true });
    base.push(performance.now() - t0);
  }
  await reg.close();
  await fs.rm(dir, { recursive: true, force: true });
  return result('PUT tool (lock + exclusive atomic commit + index) vs bare write-file-atomic', 'ms/op', median(ours), median(base), 3, `${N} PUTs each, interleaved`);
}

/** Writes a data folder of `n` tools straight in the store's layout (PUTs would take minutes). */
export async function makeFolder(n: number): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-bench-open-'));
  const layout = new StoreLayout(dir);
  const stamp = new Date().toISOString();
  const bundles = Array.from({ length: 20 }, () => uuidv7());
  for (const [k, id] of bundles.entries()) {
    await fs.mkdir(layout.toolsDir(id), { recursive: true });
    await fs.writeFile(layout.bundleFile(id), toFileText({ id, slug: `bundle-${k}`, displayName: `Bundle ${k}`, description: '', isEnabled: true, isBuiltIn: false, createdAt: stamp, modifiedAt: stamp }));
  }
  for (let i = 0; i < n; i++) {
    const bundleId = bundles[i % bundles.length]!;
    const slug = `tool-${i}`;
    const record = { id: uuidv7(), bundleId, slug, version: '1', ...toolBody(i), isBuiltIn: false, createdAt: stamp, modifiedAt: stamp };
    await fs.writeFile(layout.toolFile(bundleId, slug, '1'), toFileText(record));
  }
  return dir;
}

async function openWithIndexVsRebuild(): Promise<BenchResult> {
  const N = 10_000;
  const dir = await makeFolder(N);
  // A file's fingerprint is only trusted once its mtime is SETTLE_MS old (store/tool-files.ts):
  // let the folder age like a folder the app finds at start, so the priming open records them all.
  await sleep(SETTLE_MS + 100);
  const first = registry(dir);
  await first.open();
  await first.close();
  const warm: number[] = [];
  const cold: number[] = [];
  for (let round = 0; round < 3; round++) {
    let t0 = performance.now();
    const a = registry(dir);
    await a.open();
    warm.push(performance.now() - t0);
    await a.close();

    await fs.rm(path.join(dir, 'index'), { recursive: true, force: true });
    t0 = performance.now();
    const b = registry(dir);
    await b.open();
    cold.push(performance.now() - t0);
    await b.close();
  }
  await fs.rm(dir, { recursive: true, force: true });
  return result(`open a data folder of ${N / 1000}k tools: index present vs full rebuild`, 'ms', median(warm), median(cold), 0.2, 'median of 3; ours stats every tool file and reads none (index fingerprints + docs), the baseline reads and validates all');
}

export async function run(): Promise<BenchResult[]> {
  return [await putVsAtomicWrite(), await openWithIndexVsRebuild()];
}
