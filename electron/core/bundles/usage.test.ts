import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { toolFileName } from './layout';
import { localToolBody, openStore, rejection, storeWithBundle, TestClock } from './testing/fixtures';

const tempDir = useTempDirs();
const withBundle = async (opts: Parameters<typeof openStore>[1] = {}) => storeWithBundle(await tempDir(), opts);

describe('usage', () => {
  it('records calls apart from the tool files, debounced, without touching modifiedAt', async () => {
    const clock = new TestClock();
    const { store, dataDir, bundleId } = await withBundle({ now: clock.now, usageFlushMs: 60_000 });
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    const file = path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('echo', '1'));
    const before = await fs.readFile(file, 'utf8');
    for (let k = 0; k < 1000; k++) store.recordUsage(t.id);
    // Recording only counts in memory: nothing is written until the flush.
    await expect(fs.stat(path.join(dataDir, 'usage.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(store.usage(t.id)).toEqual({ callCount: 1000, lastCalledAt: '2026-03-01T10:00:00.000Z' });
    await store.flushUsage();
    expect(JSON.parse(await fs.readFile(path.join(dataDir, 'usage.json'), 'utf8'))).toEqual({
      version: 1,
      tools: { [t.id]: { callCount: 1000, lastCalledAt: '2026-03-01T10:00:00.000Z' } },
    });
    expect(await fs.readFile(file, 'utf8')).toBe(before);
    expect(store.getTool(bundleId, 'echo', '1').modifiedAt).toBe(t.modifiedAt);
    expect(await rejection(() => store.recordUsage('nope'))).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('adds up counts from several processes and survives a restart', async () => {
    const { store, dataDir, bundleId } = await withBundle();
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    const other = await openStore(dataDir);
    store.recordUsage(t.id);
    store.recordUsage(t.id);
    other.store.recordUsage(t.id);
    await Promise.all([store.close(), other.store.close()]);
    const again = await openStore(dataDir);
    expect(again.store.usage(t.id).callCount).toBe(3);
  });

  it('writes usage after the debounce delay on its own', async () => {
    const { store, dataDir, bundleId } = await withBundle();
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    store.recordUsage(t.id);
    await expect.poll(async () => fs.readFile(path.join(dataDir, 'usage.json'), 'utf8').catch(() => ''), { timeout: 2000 }).toContain('"callCount": 1');
  });

  it('counts never read as going backwards while the usage file is written, or while a reload reads it', async () => {
    // The real fs, with the rename that commits usage.json held until the test lets it go.
    const gate: { open?: () => void; renames: number } = { renames: 0 };
    const fs2: StoreFs = {
      ...nodeFs,
      rename: (async (from: string, to: string) => {
        if (to.endsWith('usage.json')) {
          gate.renames++;
          await new Promise<void>((resolve) => (gate.open = resolve));
        }
        return nodeFs.rename(from, to);
      }) as StoreFs['rename'],
    };
    const { store, bundleId } = await withBundle({ fs: fs2, usageFlushMs: 60_000 });
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    for (let k = 0; k < 5; k++) store.recordUsage(t.id);
    const flushing = store.flushUsage();
    await expect.poll(() => gate.renames).toBe(1);
    // The batch is being written: still counted.
    expect(store.usage(t.id).callCount).toBe(5);
    store.recordUsage(t.id);
    expect(store.usage(t.id).callCount).toBe(6);
    const reloading = store.reload();
    expect(store.usage(t.id).callCount).toBe(6);
    gate.open!();
    await flushing;
    await reloading;
    expect(store.usage(t.id).callCount).toBe(6);
  });

  it('a usage.json that cannot be read (a folder in the way) is reported; the store opens and counts in memory', async () => {
    const parent = await tempDir();
    await fs.mkdir(path.join(parent, 'data', 'usage.json'), { recursive: true });
    const { store, problems, bundleId } = await storeWithBundle(parent, { usageFlushMs: 60_000 });
    expect(problems.list().map((p) => [p.kind, path.basename(p.path)])).toEqual([['io-error', 'usage.json']]);
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    store.recordUsage(t.id);
    await store.flushUsage();
    expect(store.usage(t.id).callCount).toBe(1);
    expect((await fs.stat(path.join(parent, 'data', 'usage.json'))).isDirectory()).toBe(true);
    expect(problems.list()).toHaveLength(1);
  });
});
