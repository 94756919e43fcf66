/**
 * The bundle's switch as its file says it: read again only when the file changed (the
 * invocation path stats it on every call), and what the file cannot tell is left to the catalog.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { BundleSwitches } from './bundle-switch';
import { StoreLayout } from './layout';
import { bundleBody, newId, openStore } from './testing/fixtures';

const tempDir = useTempDirs();

describe('BundleSwitches', () => {
  it('reads bundle.json only when its stat changed, and follows another writer at once', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir);
    const bundleId = newId();
    await store.putBundle(bundleId, bundleBody());
    const switches = new BundleSwitches(new StoreLayout(dataDir), () => new Map());

    expect(switches.read(bundleId)).toEqual({ isEnabled: true, deleted: false });
    for (let i = 0; i < 100; i++) switches.read(bundleId);
    expect(switches.reads).toBe(1);

    await store.patchBundle(bundleId, { isEnabled: false });
    expect(switches.read(bundleId)).toEqual({ isEnabled: false, deleted: false });
    expect(switches.reads).toBe(2);
    await store.patchBundle(bundleId, { isEnabled: true });
    await store.deleteBundle(bundleId);
    expect(switches.read(bundleId)).toEqual({ isEnabled: true, deleted: true });
    await store.close();
  });

  it('a file that cannot tell leaves it to the catalog; a missing bundle.json is a removed bundle', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const layout = new StoreLayout(dataDir);
    const switches = new BundleSwitches(layout, () => new Map());
    const bundleId = newId();
    expect(switches.read(bundleId)).toEqual({ isEnabled: false, deleted: true });
    await fs.mkdir(layout.bundleDir(bundleId), { recursive: true });
    await fs.writeFile(layout.bundleFile(bundleId), '{"isEnabled": tr');
    expect(switches.read(bundleId)).toBeUndefined();
    await fs.writeFile(layout.bundleFile(bundleId), '{"isEnabled": "yes"}');
    expect(switches.read(bundleId)).toBeUndefined();
  });
});
