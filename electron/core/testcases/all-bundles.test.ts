import { describe, expect, it } from 'vitest';
import { bundleBody, newId, openStore } from '../bundles/testing/fixtures';
import { useTempDirs } from '../testing/temp-dir';
import { allBundles, bundlesToRun } from './all-bundles';

const tempDir = useTempDirs();

describe('allBundles', () => {
  it('reads every page: more bundles than one page holds, switched off ones too, but not soft-deleted ones', async () => {
    const { store } = await openStore(await tempDir());
    try {
      const slugs: string[] = [];
      for (let i = 0; i < 130; i++) {
        const id = newId();
        const slug = `b-${String(i).padStart(3, '0')}`;
        await store.putBundle(id, bundleBody({ slug, displayName: `Bundle ${i}`, isEnabled: i % 3 !== 0 }));
        if (i === 7) await store.deleteBundle(id);
        else slugs.push(slug);
      }
      // One page is at most 100: the rest needs the next page.
      expect(store.listBundles({ includeDisabled: true, pageSize: 100 }).nextPageToken).toBeDefined();

      const all = allBundles(store);
      expect(all.map((b) => b.slug).sort()).toEqual(slugs);
      expect(new Set(all.map((b) => b.id)).size).toBe(129);
      expect(all.filter((b) => !b.isEnabled)).toHaveLength(44);
    } finally {
      await store.close();
    }
  });

  it('is empty for a store without bundles', async () => {
    const { store } = await openStore(await tempDir());
    try {
      expect(allBundles(store)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('bundlesToRun: those named, in order and each once (an unknown id NOT_FOUND); none named, every one switched on and not deleted', async () => {
    const { store } = await openStore(await tempDir());
    try {
      const [on, off, gone] = [newId(), newId(), newId()];
      await store.putBundle(on, bundleBody({ slug: 'on' }));
      await store.putBundle(off, bundleBody({ slug: 'off', isEnabled: false }));
      await store.putBundle(gone, bundleBody({ slug: 'gone' }));
      await store.deleteBundle(gone);
      expect(bundlesToRun(store, [off, on, off]).map((b) => b.slug)).toEqual(['off', 'on']);
      expect(() => bundlesToRun(store, [on, newId()])).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
      expect(bundlesToRun(store, undefined).map((b) => b.slug)).toEqual(['on']);
    } finally {
      await store.close();
    }
  });
});
