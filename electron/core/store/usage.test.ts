import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../test-helpers/temp-dir';
import { toolFileName } from './layout';
import { localToolBody, openStore, rejection, storeWithBundle, TestClock } from './test-helpers/fixtures';

const tempDir = useTempDirs();
const withBundle = async (opts: Parameters<typeof openStore>[1] = {}) => storeWithBundle(await tempDir(), opts);

describe('usage', () => {
  it('records calls apart from the tool files, debounced, without touching modifiedAt', async () => {
    const clock = new TestClock();
    const { store, dataDir, bundleId } = await withBundle({ now: clock.now });
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    const file = path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('echo', '1'));
    const before = await fs.readFile(file, 'utf8');
    const started = performance.now();
    for (let k = 0; k < 1000; k++) store.recordUsage(t.id);
    expect(performance.now() - started).toBeLessThan(200);
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
});
