import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { StoreLayout, toolFileName } from './layout';
import { slots } from './scan-folder';
import { bundleBody, filesUnder, localToolBody, newId, openStore, REPO_RESOURCES } from './testing/fixtures';

const tempDir = useTempDirs();

const TEXT_BUNDLE = '01941f29-7c05-75d4-b8b8-8211af0864fb';

describe('bad files in the data folder', () => {
  it('are reported, moved to quarantine/, and the rest loads', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir, { resourcesDir: REPO_RESOURCES });
    const bundleId = newId();
    await store.putBundle(bundleId, bundleBody());
    const slugs = ['truncated', 'empty', 'garbage', 'wrongschema', 'badslug', 'good'];
    for (const s of slugs) await store.putTool(bundleId, s, '1', localToolBody());
    const brokenBundle = newId();
    await store.putBundle(brokenBundle, bundleBody({ slug: 'broken' }));
    await store.putTool(brokenBundle, 'inside', '1', localToolBody());
    const fine = newId();
    await store.putBundle(fine, bundleBody({ slug: 'fine' }));
    await store.patchTool(TEXT_BUNDLE, 'count', '1', { isEnabled: false });
    const good = store.getTool(bundleId, 'good', '1');
    store.recordUsage(good.id);
    await store.close();

    const tools = path.join(dataDir, 'bundles', bundleId, 'tools');
    const file = (slug: string) => path.join(tools, toolFileName(slug, '1'));
    const original = await fs.readFile(file('truncated'), 'utf8');
    await fs.writeFile(file('truncated'), original.slice(0, original.length / 2));
    await fs.writeFile(file('empty'), '');
    await fs.writeFile(file('garbage'), 'not json {');
    await fs.writeFile(file('wrongschema'), JSON.stringify({ hello: 'world' }));
    const badSlug = JSON.parse(await fs.readFile(file('badslug'), 'utf8'));
    await fs.writeFile(file('badslug'), JSON.stringify({ ...badSlug, slug: 'bad_slug' }));
    // A copy under a name that does not match its slug and version (and with a repeated id).
    await fs.copyFile(file('good'), path.join(tools, 'copy-of-good.json'));
    await fs.writeFile(path.join(tools, 'README.txt'), 'not a tool file, ignored');
    await fs.writeFile(path.join(dataDir, 'bundles', brokenBundle, 'bundle.json'), '{"id": "');
    await fs.writeFile(path.join(dataDir, 'overrides', `${TEXT_BUNDLE}.json`), '[]');
    await fs.writeFile(path.join(dataDir, 'usage.json'), '{"version": 2}');
    await fs.mkdir(path.join(dataDir, 'bundles', 'notes'));

    const again = await openStore(dataDir, { resourcesDir: REPO_RESOURCES });
    const reported = again.problems.list().map((p) => ({ kind: p.kind, path: path.relative(dataDir, p.path), message: p.message, movedTo: p.movedTo }));
    const rel = (slug: string) => path.relative(dataDir, file(slug));
    expect(reported.map((p) => [p.kind, p.path])).toEqual(
      expect.arrayContaining([
        ['corrupt-file', rel('truncated')],
        ['corrupt-file', rel('empty')],
        ['corrupt-file', rel('garbage')],
        ['corrupt-file', rel('wrongschema')],
        ['corrupt-file', rel('badslug')],
        ['corrupt-file', path.join('bundles', bundleId, 'tools', 'copy-of-good.json')],
        ['corrupt-file', path.join('bundles', brokenBundle, 'bundle.json')],
        ['corrupt-file', path.join('overrides', `${TEXT_BUNDLE}.json`)],
        ['corrupt-file', 'usage.json'],
        ['invalid-config', path.join('bundles', 'notes')],
      ]),
    );
    expect(reported).toHaveLength(10);
    const byPath = new Map(reported.map((p) => [p.path, p]));
    expect(byPath.get(rel('empty'))!.message).toBe('tool file: the file is empty');
    expect(byPath.get(rel('garbage'))!.message).toMatch(/^tool file: not valid JSON/);
    expect(byPath.get(rel('wrongschema'))!.message).toMatch(/^tool file: does not match the tool schema/);
    expect(byPath.get(rel('badslug'))!.message).toMatch(/slug may contain letters, digits and '-' only: got 'bad_slug'/);
    expect(byPath.get(path.join('bundles', bundleId, 'tools', 'copy-of-good.json'))!.message).toMatch(/file name does not match its slug and version/);
    // A damaged bundle.json is left in place; its tools stay listed under a placeholder.
    expect(byPath.get(path.join('bundles', brokenBundle, 'bundle.json'))).toMatchObject({
      message: expect.stringMatching(/^damaged bundle: bundle.json: not valid JSON.*listed under a placeholder bundle \(disabled\)/),
      movedTo: undefined,
    });
    expect(again.store.getBundle(brokenBundle)).toMatchObject({ slug: 'damaged-bundle', isEnabled: false });
    expect(again.store.getTool(brokenBundle, 'inside', '1').slug).toBe('inside');

    // Everything moved is kept, byte for byte, under quarantine/.
    for (const p of reported.filter((r) => r.movedTo !== undefined)) {
      expect(p.movedTo).toMatch(new RegExp(`^${dataDir}/quarantine/[^/]+/${p.path.replace(/[.]/g, '\\.')}$`));
      await expect(fs.stat(p.movedTo!)).resolves.toBeTruthy();
    }
    expect(await fs.readFile(reported.find((p) => p.path === rel('truncated'))!.movedTo!, 'utf8')).toBe(original.slice(0, original.length / 2));
    expect(await fs.stat(path.join(dataDir, 'bundles', 'notes'))).toBeTruthy();

    // The rest loads.
    expect(again.store.listBundles().items.map((b) => b.slug).sort()).toEqual(['buffers', 'demo', 'documents', 'files', 'fine', 'math', 'memory', 'text', 'time', 'web']);
    expect(again.store.listTools({ bundleIds: [bundleId] }).items.map((t) => t.slug)).toEqual(['good']);
    expect(again.store.getTool(TEXT_BUNDLE, 'count', '1').isEnabled).toBe(true);
    expect(again.store.usage(good.id)).toEqual({ callCount: 0 });
    expect(await filesUnder(tools)).toEqual(['README.txt', toolFileName('good', '1')]);
    await again.store.close();

    // Set-aside files are never loaded again, but are reported again (with why) while they are in quarantine/.
    const third = await openStore(dataDir, { resourcesDir: REPO_RESOURCES });
    const moved = reported.filter((r) => r.movedTo !== undefined);
    expect(moved).toHaveLength(8);
    const thirdReport = third.problems.list();
    expect(thirdReport.filter((p) => p.movedTo).map((p) => [p.path, p.movedTo, p.message]).sort()).toEqual(
      moved.map((p) => [path.join(dataDir, p.path), p.movedTo, `${p.message}; it is still in quarantine/ (delete it there once dealt with)`]).sort(),
    );
    expect(thirdReport.filter((p) => !p.movedTo).map((p) => path.relative(dataDir, p.path)).sort()).toEqual(
      [path.join('bundles', brokenBundle, 'bundle.json'), path.join('bundles', 'notes')].sort(),
    );
    expect(third.store.listTools({ bundleIds: [bundleId] }).items.map((t) => t.slug)).toEqual(['good']);
    await third.store.close();

    // Once an entry is deleted from quarantine/, it is no longer reported.
    await fs.rm(path.join(dataDir, 'quarantine'), { recursive: true });
    const fourth = await openStore(dataDir, { resourcesDir: REPO_RESOURCES });
    expect(fourth.problems.list().filter((p) => p.movedTo)).toEqual([]);
  });

  it('reload() sets aside a file broken while the store was open', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store, problems } = await openStore(dataDir);
    const bundleId = newId();
    await store.putBundle(bundleId, bundleBody());
    const t = await store.putTool(bundleId, 'echo', '1', localToolBody());
    await fs.writeFile(path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('echo', '1')), '{');
    expect(await store.reload()).toEqual([{ kind: 'tool', op: 'delete', id: t.id, bundleId }]);
    expect(problems.list()).toHaveLength(1);
    expect(problems.list()[0]).toMatchObject({ kind: 'corrupt-file', message: expect.stringMatching(/^tool file: not valid JSON/) });
  });

  it('a bundle folder with tools but no bundle.json keeps its tools listed under a placeholder; an empty leftover is skipped', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const first = await openStore(dataDir);
    const lost = newId();
    await first.store.putBundle(lost, bundleBody());
    await first.store.putTool(lost, 'echo', '1', localToolBody());
    await first.store.close();
    await fs.unlink(path.join(dataDir, 'bundles', lost, 'bundle.json'));
    const leftover = newId();
    await fs.mkdir(path.join(dataDir, 'bundles', leftover, 'tools'), { recursive: true });

    const { store, problems } = await openStore(dataDir);
    expect(problems.list().map((p) => [p.kind, path.relative(dataDir, p.path), p.message])).toEqual([
      [
        'corrupt-file',
        path.join('bundles', lost, 'bundle.json'),
        'damaged bundle: bundle.json is missing; it is left in place and its 1 tool(s) are listed under a placeholder bundle (disabled) until it is fixed by hand or replaced by a PUT of the bundle',
      ],
    ]);
    expect(store.listBundles({ includeDisabled: true, includeDeleted: true }).items.map((b) => [b.id, b.slug, b.isEnabled])).toEqual([[lost, 'damaged-bundle', false]]);
    expect(store.listTools({ includeDisabled: true }).items.map((t) => t.slug)).toEqual(['echo']);
    // A PUT of the bundle repairs it; the tool is kept.
    await store.putBundle(lost, bundleBody());
    expect(store.getBundle(lost)).toMatchObject({ slug: 'demo', isEnabled: true });
    expect(store.listTools().items.map((t) => t.slug)).toEqual(['echo']);
  });
});

describe('many bundle folders', () => {
  it('are read a few at a time ahead, yet what each holds is reported, set aside and served in the folders\' order', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir);
    const ids = Array.from({ length: 9 }, () => newId());
    for (const [k, id] of ids.entries()) {
      await store.putBundle(id, bundleBody({ slug: `b${k}` }));
      await store.putTool(id, 'echo', '1', localToolBody());
      await store.putTool(id, 'broken', '1', localToolBody());
    }
    await store.close();
    const layout = new StoreLayout(dataDir);
    const old = new Date(Date.now() - 60_000);
    for (const id of ids) {
      const bundleFile = layout.bundleFile(id);
      await fs.writeFile(bundleFile, JSON.stringify({ ...JSON.parse(await fs.readFile(bundleFile, 'utf8')), owner: 'ops' }));
      const broken = layout.toolFile(id, 'broken', '1');
      await fs.writeFile(broken, 'not json {');
      // Settled, so it is set aside at once.
      await fs.utimes(broken, old, old);
    }

    const { store: again, problems } = await openStore(dataDir, { settleMs: 50 });
    const sorted = [...ids].sort();
    expect(problems.list().map((p) => [p.kind, p.path])).toEqual(
      sorted.flatMap((id) => [
        ['corrupt-file', layout.toolFile(id, 'broken', '1')],
        ['invalid-config', layout.bundleFile(id)],
      ]),
    );
    expect(again.listTools({ includeDisabled: true, pageSize: 100 }).items.map((t) => [t.bundleId, t.slug]).sort()).toEqual(sorted.map((id) => [id, 'echo']));
    expect((await filesUnder(path.join(dataDir, 'quarantine'))).filter((f) => !f.endsWith('.reason.json'))).toHaveLength(ids.length);
  });
});

describe('slots', () => {
  it('runs at most the given number of tasks at once, the others in the order they came', async () => {
    const run = slots(2);
    let now = 0;
    let most = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
    const all = Promise.all(
      gates.map((g, k) =>
        run(async () => {
          started.push(k);
          most = Math.max(most, ++now);
          await g.promise;
          now--;
          return k;
        }),
      ),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.resolve();
    expect(await all).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it('a task that fails frees its slot', async () => {
    const run = slots(1);
    await expect(run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await run(async () => 'next')).toBe('next');
  });
});
