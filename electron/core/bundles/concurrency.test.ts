/**
 * Several processes PUT into one bundle at once. The uniqueness of <slug, version> must
 * hold across processes: exactly one PUT wins per pair, every other is a CONFLICT, and
 * every file on disk parses and belongs to its winner.
 *
 * Four processes and 100 steps each make 10 pairs all four race for and 90 that two race for:
 * enough for the property. `npx tsx scripts/store-trials.ts race` runs this file with 8 x 1,000
 * (sizes given by STORE_TRIALS_RACE_WORKERS and STORE_TRIALS_RACE_STEPS).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { toolFileName } from './layout';
import { raceSlug } from './testing/worker-plan';
import { bundleWorker, startWorker } from './testing/spawn-worker';
import { bundleBody, newId, openStore } from './testing/fixtures';

const tempDir = useTempDirs();

const WORKERS = Number(process.env.STORE_TRIALS_RACE_WORKERS ?? 4);
const STEPS = Number(process.env.STORE_TRIALS_RACE_STEPS ?? 100);

describe('writers in several processes', () => {
  it(`${WORKERS} processes x ${STEPS} PUTs: one winner per <slug, version>, every file whole`, { timeout: 400_000 }, async () => {
    const parent = await tempDir();
    const dataDir = path.join(parent, 'data');
    // Bundled, each process starts in ~0.13 s instead of ~0.4 s under tsx.
    const worker = await bundleWorker(parent);
    const setup = await openStore(dataDir);
    const bundleId = newId();
    await setup.store.putBundle(bundleId, bundleBody());
    await setup.store.close();

    const workers = Array.from({ length: WORKERS }, (_, w) => startWorker({ mode: 'race', dataDir, bundleId, worker: w, steps: STEPS }, worker));
    await Promise.all(workers.map((w) => w.waitFor((l) => l.ready === true)));
    const started = performance.now();
    for (const w of workers) w.child.stdin!.write('go\n');
    const results = await Promise.all(workers.map((w) => w.waitFor((l) => l.done === true, 270_000)));
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(workers.map((w) => w.closed));
    console.log(`${WORKERS} x ${STEPS} PUTs across processes: ${seconds.toFixed(1)} s (${((WORKERS * STEPS) / seconds).toFixed(0)} PUT/s)`);

    const winners = new Map<string, string[]>();
    let conflicts = 0;
    for (const r of results) {
      expect(r.errors).toEqual([]);
      conflicts += r.conflicts as number;
      for (const [slug, id] of r.ok as [string, string][]) winners.set(slug, [...(winners.get(slug) ?? []), id]);
    }
    const pairs = new Set<string>();
    for (let w = 0; w < WORKERS; w++) for (let s = 0; s < STEPS; s++) pairs.add(raceSlug(s, w));
    // Exactly one winner per pair, and the counts add up.
    expect([...winners.values()].filter((ids) => ids.length !== 1)).toEqual([]);
    expect(winners.size).toBe(pairs.size);
    expect(winners.size + conflicts).toBe(WORKERS * STEPS);

    // Every file parses and holds its winner.
    const toolsDir = path.join(dataDir, 'bundles', bundleId, 'tools');
    const names = await fs.readdir(toolsDir);
    expect(names.filter((n) => !n.endsWith('.json'))).toEqual([]);
    expect(names).toHaveLength(pairs.size);
    for (const [slug, [id]] of winners) {
      const tool = JSON.parse(await fs.readFile(path.join(toolsDir, toolFileName(slug, '1')), 'utf8'));
      expect(tool).toMatchObject({ id, slug, version: '1', bundleId });
    }
    const check = await openStore(dataDir);
    expect(check.problems.list()).toEqual([]);
    expect(check.store.listTools({ pageSize: 100 }).items).toHaveLength(100);
    expect(check.store.allTools()).toHaveLength(pairs.size);
    await check.store.close();
  });
});
