/**
 * Settings → Limits → Tools per bundle: a new tool version past the limit is refused with
 * CONFLICT 'bundle-tool-limit' and writes nothing; changes to what is there are not new tools.
 * The count is the bundle's folder under its lock, so it holds across stores and processes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RegistryChange } from '../../../shared/model/tool';
import { useTempDirs } from '../testing/temp-dir';
import { bundleBody, filesUnder, localToolBody, newId, openStore, rejection, storeWithBundle } from './testing/fixtures';
import { startWorker } from './testing/spawn-worker';
import { raceSlug } from './testing/worker-plan';
import { BUNDLE_TOOL_LIMIT_RULE } from './tool-limit';

const tempDir = useTempDirs();

describe('Settings → Limits → Tools per bundle', () => {
  it('the N-th new tool is written; the N+1-th is refused with CONFLICT bundle-tool-limit and nothing is written', async () => {
    const { store, dataDir, bundleId } = await storeWithBundle(await tempDir(), { maxToolsPerBundle: () => 3 });
    for (const slug of ['a', 'b']) await store.putTool(bundleId, slug, '1', localToolBody());
    // The N-th (third) is allowed.
    await store.putTool(bundleId, 'c', '1', localToolBody());
    const before = await filesUnder(dataDir);
    const changes: RegistryChange[] = [];
    store.onChange((c) => changes.push(c));

    const refused = await rejection(() => store.putTool(bundleId, 'd', '1', localToolBody()));
    expect(refused.code).toBe('CONFLICT');
    expect(refused.details).toEqual({ bundleId, held: 3, limit: 3, rule: BUNDLE_TOOL_LIMIT_RULE });
    expect(refused.message).toBe(
      "bundle 'demo' holds 3 tools, the most Settings → Limits → Tools per bundle allows (3); delete some of its tools, put the new one in another bundle, or raise the limit",
    );
    // A new version of a tool it has is a new tool version too.
    expect((await rejection(() => store.putTool(bundleId, 'a', '2', localToolBody()))).details).toMatchObject({ rule: BUNDLE_TOOL_LIMIT_RULE });
    expect(await filesUnder(dataDir)).toEqual(before);
    expect(store.toolsOf(bundleId).map((t) => t.slug).sort()).toEqual(['a', 'b', 'c']);
    expect(changes).toEqual([]);

    // Each bundle has its own count.
    const other = newId();
    await store.putBundle(other, bundleBody({ slug: 'other' }));
    await store.putTool(other, 'd', '1', localToolBody());
  });

  it('changes to what a full bundle holds are not new tools: PATCH, the bundle’s PUT, an existing version’s PUT keep their answers', async () => {
    const { store, bundleId } = await storeWithBundle(await tempDir(), { maxToolsPerBundle: () => 2 });
    await store.putTool(bundleId, 'a', '1', localToolBody());
    await store.putTool(bundleId, 'b', '1', localToolBody());
    expect((await store.patchTool(bundleId, 'a', '1', { isEnabled: false })).isEnabled).toBe(false);
    expect((await store.putBundle(bundleId, bundleBody({ displayName: 'Renamed' }))).displayName).toBe('Renamed');
    expect((await store.patchBundle(bundleId, { isEnabled: true })).isEnabled).toBe(true);
    // The <slug, version> exists: that is what the caller is told, not that the bundle is full.
    expect((await rejection(() => store.putTool(bundleId, 'a', '1', localToolBody()))).details).toMatchObject({ rule: 'exists' });
    // Deleting one makes room for one.
    await store.deleteTool(bundleId, 'b', '1');
    await store.putTool(bundleId, 'c', '1', localToolBody());
    expect((await rejection(() => store.putTool(bundleId, 'd', '1', localToolBody()))).details).toMatchObject({ rule: BUNDLE_TOOL_LIMIT_RULE, held: 2 });
  });

  it('the limit is read at each new tool: lowered under what a bundle holds, its tools stay and new ones are refused', async () => {
    let limit = 10;
    const { store, bundleId } = await storeWithBundle(await tempDir(), { maxToolsPerBundle: () => limit });
    for (const slug of ['a', 'b', 'c']) await store.putTool(bundleId, slug, '1', localToolBody());
    limit = 2;
    const refused = await rejection(() => store.putTool(bundleId, 'd', '1', localToolBody()));
    expect(refused.details).toMatchObject({ held: 3, limit: 2, rule: BUNDLE_TOOL_LIMIT_RULE });
    expect(refused.message).toMatch(/^bundle 'demo' holds 3 tools, the most .* allows \(2\)/);
    expect(store.toolsOf(bundleId)).toHaveLength(3);
    limit = 4;
    await store.putTool(bundleId, 'd', '1', localToolBody());
    expect(store.toolsOf(bundleId)).toHaveLength(4);
  });

  it('counts the bundle’s folder on disk, not the catalog: a store that has not reloaded another’s writes still stops at the limit', async () => {
    const parent = await tempDir();
    const { store: first, dataDir, bundleId } = await storeWithBundle(parent, { maxToolsPerBundle: () => 3 });
    const { store: second } = await openStore(dataDir, { maxToolsPerBundle: () => 3 });
    await first.putTool(bundleId, 'a', '1', localToolBody());
    await first.putTool(bundleId, 'b', '1', localToolBody());
    // The second store's catalog has none of them; the folder has two.
    expect(second.toolsOf(bundleId)).toHaveLength(0);
    await second.putTool(bundleId, 'c', '1', localToolBody());
    expect((await rejection(() => second.putTool(bundleId, 'd', '1', localToolBody()))).details).toMatchObject({ held: 3, rule: BUNDLE_TOOL_LIMIT_RULE });
    expect((await rejection(() => first.putTool(bundleId, 'e', '1', localToolBody()))).details).toMatchObject({ held: 3, rule: BUNDLE_TOOL_LIMIT_RULE });
    await first.close();
    await second.close();
  });

  it('holds across processes: four writers racing into one bundle leave exactly the limit on disk', { timeout: 120_000 }, async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const setup = await openStore(dataDir);
    const bundleId = newId();
    await setup.store.putBundle(bundleId, bundleBody());
    await setup.store.close();
    const LIMIT = 20;
    const WORKERS = 4;
    const STEPS = 30;
    const distinct = new Set(Array.from({ length: WORKERS * STEPS }, (_, k) => raceSlug(k % STEPS, Math.floor(k / STEPS))));
    // The race offers many more distinct tools than the limit lets in.
    expect(distinct.size).toBeGreaterThan(2 * LIMIT);

    const workers = Array.from({ length: WORKERS }, (_, worker) => startWorker({ mode: 'race', dataDir, bundleId, worker, steps: STEPS, maxToolsPerBundle: LIMIT }));
    await Promise.all(workers.map((w) => w.waitFor((l) => l.ready === true)));
    for (const w of workers) w.child.stdin!.write('go\n');
    const results = await Promise.all(workers.map((w) => w.waitFor((l) => l.done === true, 100_000)));
    await Promise.all(workers.map((w) => w.closed));

    let created = 0;
    let limited = 0;
    let conflicts = 0;
    for (const r of results) {
      expect(r.errors).toEqual([]);
      created += (r.ok as unknown[]).length;
      limited += r.limited as number;
      conflicts += r.conflicts as number;
    }
    const names = await fs.readdir(path.join(dataDir, 'bundles', bundleId, 'tools'));
    expect(names).toHaveLength(LIMIT);
    expect(created).toBe(LIMIT);
    expect(limited).toBeGreaterThan(0);
    expect(created + limited + conflicts).toBe(WORKERS * STEPS);
  });
});
