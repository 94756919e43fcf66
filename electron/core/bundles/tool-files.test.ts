/**
 * Opening with a cache of tool files (what the search index hands the store): unchanged
 * files are not read, and everything else is noticed exactly as without a cache.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { toolFileName } from './layout';
import { httpToolBody, localToolBody, openStore, storeWithBundle } from './testing/fixtures';
import { isSettled, statFiles, toolDoc, type CachedToolFile } from './tool-files';
import type { ToolStore } from './tool-store';

const tempDir = useTempDirs();

/** The real fs, counting the reads of tool files. */
function countingFs(): StoreFs & { toolReads: string[] } {
  const toolReads: string[] = [];
  const readFile = ((file: string, ...rest: unknown[]) => {
    if (file.includes(`${path.sep}tools${path.sep}`)) toolReads.push(file);
    return (nodeFs.readFile as (...a: unknown[]) => Promise<unknown>)(file, ...rest);
  }) as StoreFs['readFile'];
  return Object.assign({ ...nodeFs, readFile }, { toolReads });
}

/** Every tool file under the data folder. */
async function toolFiles(dataDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const b of await fs.readdir(path.join(dataDir, 'bundles'))) {
    const dir = path.join(dataDir, 'bundles', b, 'tools');
    for (const f of await fs.readdir(dir).catch(() => [])) out.push(path.join(dir, f));
  }
  return out;
}

/** Sets every tool file's mtime an hour back: a folder that was there before the app started. */
async function age(dataDir: string): Promise<void> {
  const past = new Date(Date.now() - 3600_000);
  for (const f of await toolFiles(dataDir)) await fs.utimes(f, past, past);
}

/** What the index would hand the store: the store's own origins, by path. */
function cacheOf(store: ToolStore): Map<string, CachedToolFile> {
  const cache = new Map<string, CachedToolFile>();
  for (const t of store.allTools()) {
    const o = store.toolOrigin(t.id);
    if (o) cache.set(o.source.path, { mtimeMs: o.source.mtimeMs, size: o.source.size, doc: o.doc, id: t.id });
  }
  return cache;
}

/** Rewrites `from` with `to` (same length) inside the file, in place: same inode, same size. */
async function editInPlace(file: string, from: string, to: string): Promise<void> {
  expect(Buffer.byteLength(to)).toBe(Buffer.byteLength(from));
  const text = await fs.readFile(file, 'utf8');
  const at = text.indexOf(from);
  expect(at).toBeGreaterThan(-1);
  const h = await fs.open(file, 'r+');
  await h.write(to, Buffer.byteLength(text.slice(0, at)), 'utf8');
  await h.close();
}

/** A closed data folder with one bundle and three tools, aged; returns what a cold open loads. */
async function folder() {
  const parent = await tempDir();
  const { store, bundleId, dataDir } = await storeWithBundle(parent);
  await store.putTool(bundleId, 'echo', '1', localToolBody({ displayName: 'Echo A' }));
  await store.putTool(bundleId, 'fetch', '1', httpToolBody({ displayName: 'Fetch' }));
  await store.putTool(bundleId, 'other', '2', localToolBody({ displayName: 'Other', tags: ['x', 'y'] }));
  await store.close();
  await age(dataDir);
  const cold = await openStore(dataDir);
  const cache = cacheOf(cold.store);
  await cold.store.close();
  const file = (slug: string, version = '1') => path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName(slug, version));
  return { dataDir, bundleId, cold: cold.store, cache, file };
}

describe('opening with a cache of tool files', () => {
  it('takes unchanged files from the cache, reading none, and loads what a cold open loads', async () => {
    const f = await folder();
    expect(f.cache.size).toBe(3);
    const counting = countingFs();
    const cached = await openWithCache(f.dataDir, f.cache, counting);
    expect(counting.toolReads).toEqual([]);
    expect(cached.store.allTools()).toEqual(f.cold.allTools());
    expect(cached.store.listBundles()).toEqual(f.cold.listBundles());
    expect(cached.problems.list()).toEqual([]);
    // Each tool keeps its origin, so the index gets it again.
    for (const t of cached.store.allTools()) expect(cached.store.toolOrigin(t.id)).toEqual(f.cold.toolOrigin(t.id));
    await cached.store.close();

    // Without a cache every file is read, as before.
    const plain = countingFs();
    const uncached = await openStore(f.dataDir, { fs: plain });
    expect(plain.toolReads).toHaveLength(3);
    expect(uncached.store.allTools()).toEqual(f.cold.allTools());
    await uncached.store.close();
  });

  it('reads a file edited in place (same size, same folder mtime) and trusts no fingerprint younger than SETTLE_MS', async () => {
    const f = await folder();
    const dir = path.dirname(f.file('echo'));
    const dirMtime = (await fs.stat(dir)).mtimeMs;
    const before = await fs.stat(f.file('echo'));
    await editInPlace(f.file('echo'), 'Echo A', 'Echo B');
    const after = await fs.stat(f.file('echo'));
    expect(after.size).toBe(before.size);
    expect((await fs.stat(dir)).mtimeMs).toBe(dirMtime);

    const counting = countingFs();
    const a = await openWithCache(f.dataDir, f.cache, counting);
    expect(a.store.getTool(f.bundleId, 'echo', '1').displayName).toBe('Echo B');
    expect(counting.toolReads).toEqual([f.file('echo')]);
    // Its mtime is recent: no fingerprint is recorded for it yet.
    expect(a.store.toolOrigin(a.store.getTool(f.bundleId, 'echo', '1').id)).toBeUndefined();
    await a.store.close();

    // A cache entry whose fingerprint equals the file's recent one is not trusted either
    // (on a coarse-mtime disk a same-size rewrite in the same tick would look unchanged).
    // (An mtime an hour ahead is recent whenever the open runs, however slow the machine.)
    const ahead = new Date(Math.floor(Date.now() / 1000 + 3600) * 1000);
    await fs.utimes(f.file('echo'), ahead, ahead);
    const recent = await fs.stat(f.file('echo'));
    const stale = { ...f.cache.get(f.file('echo'))!, mtimeMs: recent.mtimeMs, size: recent.size };
    expect(isSettled(recent.mtimeMs, Date.now())).toBe(false);
    const countingB = countingFs();
    const b = await openWithCache(f.dataDir, new Map([...f.cache, [f.file('echo'), stale]]), countingB);
    expect(b.store.getTool(f.bundleId, 'echo', '1').displayName).toBe('Echo B');
    expect(countingB.toolReads).toEqual([f.file('echo')]);
    await b.store.close();

    // Once settled, a changed mtime alone is enough to read it again.
    await editInPlace(f.file('echo'), 'Echo B', 'Echo C');
    const old = new Date(Math.floor(Date.now() / 1000 - 1800) * 1000); // whole seconds: utimes keeps them exactly
    await fs.utimes(f.file('echo'), old, old);
    const c = await openWithCache(f.dataDir, f.cache, countingFs());
    expect(c.store.getTool(f.bundleId, 'echo', '1').displayName).toBe('Echo C');
    expect(c.store.toolOrigin(c.store.getTool(f.bundleId, 'echo', '1').id)?.source.mtimeMs).toBe(old.getTime());
    await c.store.close();
  });

  it('still reports and sets aside a cached file replaced by a corrupt one', async () => {
    const f = await folder();
    const text = await fs.readFile(f.file('fetch'), 'utf8');
    await fs.writeFile(f.file('fetch'), text.slice(0, text.length / 2));
    const { store, problems } = await openWithCache(f.dataDir, f.cache, countingFs());
    expect(store.allTools().map((t) => t.slug).sort()).toEqual(['echo', 'other']);
    expect(problems.list()).toMatchObject([{ kind: 'corrupt-file', path: f.file('fetch'), message: expect.stringMatching(/^tool file: not valid JSON/) }]);
    await expect(fs.stat(f.file('fetch'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readFile(problems.list()[0]!.movedTo!, 'utf8')).toBe(text.slice(0, text.length / 2));
    await store.close();
  });

  it('drops a deleted file and loads a new one', async () => {
    const f = await folder();
    await fs.rm(f.file('other', '2'));
    const record = JSON.parse(await fs.readFile(f.file('echo'), 'utf8'));
    const added = { ...record, id: '01941f29-7c00-7445-bfe3-19d44c6cadd0', slug: 'added', displayName: 'Added' };
    await fs.writeFile(f.file('added'), JSON.stringify(added));
    const counting = countingFs();
    const { store } = await openWithCache(f.dataDir, f.cache, counting);
    expect(store.allTools().map((t) => t.slug).sort()).toEqual(['added', 'echo', 'fetch']);
    expect(counting.toolReads).toEqual([f.file('added')]);
    await store.close();
  });

  it('reads the file when the cache entry does not fit it (bad JSON, another bundle, another id)', async () => {
    const f = await folder();
    const entry = (slug: string, version = '1') => f.cache.get(f.file(slug, version))!;
    const other = JSON.parse(entry('fetch').doc);
    const cache = new Map(f.cache);
    cache.set(f.file('echo'), { ...entry('echo'), doc: '{"not json' });
    cache.set(f.file('fetch'), { ...entry('fetch'), doc: toolDoc({ ...other, bundleId: '01941f29-7c00-7445-bfe3-19d44c6cadd1', displayName: 'Wrong' }) });
    cache.set(f.file('other', '2'), { ...entry('other', '2'), id: '01941f29-7c00-7445-bfe3-19d44c6cadd2' });
    const counting = countingFs();
    const { store, problems } = await openWithCache(f.dataDir, cache, counting);
    expect(counting.toolReads.sort()).toEqual([f.file('echo'), f.file('fetch'), f.file('other', '2')].sort());
    expect(store.allTools()).toEqual(f.cold.allTools());
    expect(problems.list()).toEqual([]);
    await store.close();
  });

  it('reloads by reading only the files that changed', async () => {
    const f = await folder();
    const counting = countingFs();
    const { store } = await openStore(f.dataDir, { fs: counting });
    const changes: unknown[] = [];
    store.onChange((c) => changes.push(c));
    expect(await store.reload()).toEqual([]);
    counting.toolReads.length = 0;
    await editInPlace(f.file('echo'), 'Echo A', 'Echo Z');
    const id = store.getTool(f.bundleId, 'echo', '1').id;
    expect(await store.reload()).toEqual([{ kind: 'tool', op: 'put', id, bundleId: f.bundleId }]);
    expect(counting.toolReads).toEqual([f.file('echo')]);
    expect(store.getTool(f.bundleId, 'echo', '1').displayName).toBe('Echo Z');
    await store.close();
  });
});

describe('statFiles', () => {
  it('stats through an injected fs too, and gives undefined for a file it cannot stat', async () => {
    const dir = await tempDir();
    await fs.writeFile(path.join(dir, 'a.json'), '12345');
    const files = [path.join(dir, 'a.json'), path.join(dir, 'missing.json'), dir];
    const injected: StoreFs = { ...nodeFs, stat: ((p: string) => nodeFs.stat(p)) as StoreFs['stat'] };
    for (const sfs of [nodeFs, injected]) {
      const [a, missing, folder] = await statFiles(sfs, files, 2);
      expect(a).toMatchObject({ size: 5, isFile: true });
      expect(missing).toBeUndefined();
      expect(folder).toMatchObject({ isFile: false });
    }
    expect(await statFiles(nodeFs, [], 4)).toEqual([]);
  });
});

function openWithCache(dataDir: string, cache: Map<string, CachedToolFile>, sfs: StoreFs) {
  return openStore(dataDir, { fs: sfs }, cache);
}
