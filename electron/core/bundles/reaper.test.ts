import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { REAP_AFTER_MS, startReaper } from './reaper';
import { ManualTimers } from './testing/manual-timers';
import { bundleBody, filesUnder, localToolBody, newId, openStore, rejection, storeWithBundle, TestClock } from './testing/fixtures';

const tempDir = useTempDirs();
const withBundle = async (opts: Parameters<typeof openStore>[1] = {}) => storeWithBundle(await tempDir(), opts);

describe('reaper', () => {
  it('removes soft-deleted bundles after two days once their tools folder is empty', async () => {
    const clock = new TestClock();
    const { store, dataDir, bundleId } = await withBundle({ now: clock.now });
    const full = newId();
    await store.putBundle(full, bundleBody({ slug: 'full' }));
    await store.putTool(full, 'echo', '1', localToolBody());
    const alive = newId();
    await store.putBundle(alive, bundleBody({ slug: 'alive' }));
    await store.deleteBundle(bundleId);
    await store.deleteBundle(full);

    clock.advance(REAP_AFTER_MS - 1);
    expect(await store.reap()).toEqual([]);
    clock.advance(1);
    expect(await store.reap()).toEqual([bundleId]);
    expect(await filesUnder(path.join(dataDir, 'bundles', bundleId))).toEqual([]);
    await expect(fs.stat(path.join(dataDir, 'bundles', bundleId))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await rejection(() => store.getBundle(bundleId))).toMatchObject({ code: 'NOT_FOUND' });
    expect(store.getBundle(full).softDeletedAt).toBeDefined();

    await store.deleteTool(full, 'echo', '1');
    expect(await store.reap()).toEqual([full]);
    expect(store.listBundles({ includeDeleted: true, includeDisabled: true }).items.map((b) => b.id)).toEqual([alive]);
  });

  it('does not reap a bundle that was restored on disk by another process', async () => {
    const clock = new TestClock();
    const { store, dataDir, bundleId } = await withBundle({ now: clock.now });
    await store.deleteBundle(bundleId);
    const other = await openStore(dataDir, { now: clock.now });
    await other.store.putBundle(bundleId, bundleBody());
    await other.store.close();
    clock.advance(REAP_AFTER_MS);
    expect(await store.reap()).toEqual([]);
    expect((await fs.stat(path.join(dataDir, 'bundles', bundleId, 'bundle.json'))).isFile()).toBe(true);
  });
});

describe('reaper schedule', () => {
  it('reaps at start, then every interval, never two runs at once, and stops', async () => {
    const timers = new ManualTimers();
    let runs = 0;
    let finish!: () => void;
    const reap = () => {
      runs++;
      return new Promise<void>((r) => (finish = r));
    };
    const stop = startReaper(reap, 3_600_000, undefined, timers);
    expect(runs).toBe(1);
    timers.advance(3_600_000);
    // The first run has not ended: the second is skipped, not stacked.
    expect(runs).toBe(1);
    finish();
    await Promise.resolve();
    await Promise.resolve();
    timers.advance(3_600_000);
    expect(runs).toBe(2);
    finish();
    stop();
    timers.advance(10 * 3_600_000);
    expect(runs).toBe(2);
    expect(timers.pending).toBe(0);
  });

  it('a failed run is reported and the next one still happens', async () => {
    const timers = new ManualTimers();
    const errors: unknown[] = [];
    let runs = 0;
    const stop = startReaper(async () => {
      runs++;
      throw new Error('disk gone');
    }, 1000, (e) => errors.push(e), timers);
    await new Promise((r) => setImmediate(r));
    timers.advance(1000);
    await new Promise((r) => setImmediate(r));
    expect(runs).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(['disk gone', 'disk gone']);
    stop();
  });
});
