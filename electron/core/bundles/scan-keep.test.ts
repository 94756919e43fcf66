/**
 * The loader keeps good data served: entries it cannot read are reported and skipped,
 * unknown fields are kept, id clashes keep the file served before, a file being saved in
 * place is read again once quiet, bytes that are not UTF-8 are reported and never rewritten.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { toolFileName } from './layout';
import { bundleBody, filesUnder, localToolBody, newId, openStore, rejection, REPO_RESOURCES, storeWithBundle } from './testing/fixtures';

const tempDir = useTempDirs();
const isRoot = process.getuid?.() === 0;

/** A store with one bundle holding the tools `echo@1` and `other@1`, closed; its files' paths. */
async function folder() {
  const { store, dataDir, bundleId } = await storeWithBundle(await tempDir());
  const echo = await store.putTool(bundleId, 'echo', '1', localToolBody());
  await store.putTool(bundleId, 'other', '1', localToolBody());
  await store.close();
  const toolsDir = path.join(dataDir, 'bundles', bundleId, 'tools');
  const file = (slug: string, version = '1') => path.join(toolsDir, toolFileName(slug, version));
  return { dataDir, bundleId, echo, toolsDir, file, bundleFile: path.join(dataDir, 'bundles', bundleId, 'bundle.json') };
}

const rel = (dataDir: string) => (p: { kind: string; path: string }) => [p.kind, path.relative(dataDir, p.path)];

describe('entries that cannot be read', () => {
  it('a folder named like a tool file or like bundle.json is reported and skipped; the rest is served', async () => {
    const f = await folder();
    await fsp.mkdir(path.join(f.toolsDir, 'x.json'));
    const second = newId();
    await fsp.mkdir(path.join(f.dataDir, 'bundles', second, 'bundle.json'), { recursive: true });
    const { store, problems } = await openStore(f.dataDir);
    expect(problems.list().map(rel(f.dataDir)).sort()).toEqual(
      [
        ['io-error', path.join('bundles', f.bundleId, 'tools', 'x.json')],
        ['io-error', path.join('bundles', second, 'bundle.json')],
      ].sort(),
    );
    expect(problems.list().find((p) => p.path.endsWith('x.json'))!.message).toBe('tool file cannot be read (it is a folder, not a file); it is skipped until it can be');
    expect(problems.list().find((p) => p.path.endsWith('bundle.json'))!.message).toMatch(/^bundle.json cannot be read \(.*\(EISDIR\)\); it is skipped until it can be$/);
    // A stray file named like a bundle id is reported the same way, and lists no bundle.
    const stray = newId();
    await fsp.writeFile(path.join(f.dataDir, 'bundles', stray), 'not a folder');
    await store.reload();
    expect(problems.list().at(-1)).toMatchObject({ kind: 'io-error', path: path.join(f.dataDir, 'bundles', stray, 'bundle.json') });
    expect(store.listBundles({ includeDisabled: true, includeDeleted: true }).items.map((b) => b.id)).toEqual([f.bundleId]);
    expect(store.listTools().items.map((t) => t.slug).sort()).toEqual(['echo', 'other']);
    // Nothing was moved.
    expect(await fsp.stat(path.join(f.toolsDir, 'x.json'))).toBeTruthy();
    expect(await filesUnder(path.join(f.dataDir, 'quarantine'))).toEqual([]);
  });

  it('EACCES on a tool file (injected, so it also holds as root) is reported and skipped', async () => {
    const f = await folder();
    const denied = f.file('echo');
    const fs: StoreFs = {
      ...nodeFs,
      readFile: (async (p: string, o?: unknown) => {
        if (p === denied) throw Object.assign(new Error(`EACCES: permission denied, open '${p}'`), { code: 'EACCES' });
        return nodeFs.readFile(p, o as never);
      }) as StoreFs['readFile'],
    };
    const { store, problems } = await openStore(f.dataDir, { fs });
    expect(problems.list().map((p) => [p.kind, p.path, p.message])).toEqual([
      ['io-error', denied, `tool file cannot be read (could not read ${denied}: permission denied (EACCES)); it is skipped until it can be`],
    ]);
    expect(store.listTools().items.map((t) => t.slug)).toEqual(['other']);
    expect(await fsp.readFile(denied, 'utf8')).toContain('"slug": "echo"');
  });

  it('a tools folder that cannot be listed (EACCES, injected) is reported; the store opens and serves the rest', async () => {
    const f = await folder();
    const { store: setup } = await openStore(f.dataDir);
    const otherId = newId();
    await setup.putBundle(otherId, bundleBody());
    await setup.putTool(otherId, 'kept', '1', localToolBody());
    await setup.close();
    const fs: StoreFs = {
      ...nodeFs,
      readdir: (async (p: string, o?: unknown) => {
        if (p === f.toolsDir) throw Object.assign(new Error(`EACCES: permission denied, scandir '${p}'`), { code: 'EACCES' });
        return nodeFs.readdir(p, o as never);
      }) as StoreFs['readdir'],
    };
    const { store, problems } = await openStore(f.dataDir, { fs });
    expect(problems.list().map(rel(f.dataDir))).toContainEqual(['io-error', path.relative(f.dataDir, f.toolsDir)]);
    expect(store.listTools().items.map((t) => t.slug)).toContain('kept');
    await store.close();
    // The bundles folder itself: the built-ins are served, and it is reported.
    const bundlesDir = path.dirname(path.dirname(f.toolsDir));
    const deniedAll: StoreFs = {
      ...nodeFs,
      readdir: (async (p: string, o?: unknown) => {
        if (p === bundlesDir) throw Object.assign(new Error(`EACCES: permission denied, scandir '${p}'`), { code: 'EACCES' });
        return nodeFs.readdir(p, o as never);
      }) as StoreFs['readdir'],
    };
    const second = await openStore(f.dataDir, { fs: deniedAll, resourcesDir: REPO_RESOURCES });
    expect(second.problems.list().map((p) => p.message)).toContainEqual(expect.stringMatching(/^the bundles folder cannot be read \(.*EACCES.*\); no user bundle is loaded$/));
    expect(second.store.listTools().items.map((t) => t.slug)).toContain('readfile');
    await second.store.close();
  });

  it.skipIf(isRoot)('a tool file with mode 000 is reported and skipped (not run as root, where chmod does not deny reads)', async () => {
    const f = await folder();
    await fsp.chmod(f.file('echo'), 0o000);
    try {
      const { store, problems } = await openStore(f.dataDir);
      expect(problems.list().map((p) => [p.kind, p.path])).toEqual([['io-error', f.file('echo')]]);
      expect(store.listTools().items.map((t) => t.slug)).toEqual(['other']);
    } finally {
      await fsp.chmod(f.file('echo'), 0o644);
    }
  });

  it('an override file that cannot be read is reported; the built-in defaults are used and a PATCH is refused', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const TEXT = '01941f29-7c05-75d4-b8b8-8211af0864fb';
    await fsp.mkdir(path.join(dataDir, 'overrides', `${TEXT}.json`), { recursive: true });
    const { store, problems } = await openStore(dataDir, { resourcesDir: REPO_RESOURCES });
    expect(problems.list().map((p) => [p.kind, path.relative(dataDir, p.path)])).toEqual([['io-error', path.join('overrides', `${TEXT}.json`)]]);
    expect(store.getBundle(TEXT).isEnabled).toBe(true);
    expect(await rejection(store.patchBundle(TEXT, { isEnabled: false }))).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('while one exists, reload() keeps picking up other writes and reports it once', async () => {
    const f = await folder();
    const { store, problems } = await openStore(f.dataDir);
    await fsp.mkdir(path.join(f.toolsDir, 'x.json'));
    const writer = await openStore(f.dataDir);
    await writer.store.putTool(f.bundleId, 'third', '1', localToolBody());
    expect((await store.reload()).map((c) => [c.kind, c.op])).toEqual([['tool', 'put']]);
    expect(store.listTools().items.map((t) => t.slug).sort()).toEqual(['echo', 'other', 'third']);
    await writer.store.putTool(f.bundleId, 'fourth', '1', localToolBody());
    await store.reload();
    expect(store.listTools().items).toHaveLength(4);
    expect(problems.list().map((p) => p.kind)).toEqual(['io-error']);
    // Gone and back: reported again.
    await fsp.rmdir(path.join(f.toolsDir, 'x.json'));
    await store.reload();
    await fsp.mkdir(path.join(f.toolsDir, 'x.json'));
    await store.reload();
    expect(problems.list().map((p) => p.kind)).toEqual(['io-error', 'io-error']);
  });
});

describe('good data is kept served', () => {
  it('a tool file with an unknown field is served, reported, and keeps the field through a PATCH', async () => {
    const f = await folder();
    const stored = JSON.parse(await fsp.readFile(f.file('echo'), 'utf8'));
    await fsp.writeFile(f.file('echo'), JSON.stringify({ ...stored, color: 'blue' }, null, 2));
    const { store, problems } = await openStore(f.dataDir);
    expect(problems.list().map((p) => [p.kind, p.path, p.message])).toEqual([
      ['invalid-config', f.file('echo'), "tool file has field(s) this version does not know ('color'); it is served without them and they are kept in the file"],
    ]);
    expect(store.getTool(f.bundleId, 'echo', '1')).not.toHaveProperty('color');
    await store.patchTool(f.bundleId, 'echo', '1', { isEnabled: false });
    expect(JSON.parse(await fsp.readFile(f.file('echo'), 'utf8'))).toEqual({ ...stored, isEnabled: false, color: 'blue' });
    expect(await filesUnder(path.join(f.dataDir, 'quarantine'))).toEqual([]);
    // Reported again on the next open (the file is read, not taken from a cache).
    await store.close();
    expect((await openStore(f.dataDir)).problems.list().map((p) => p.kind)).toEqual(['invalid-config']);
  });

  it('a bundle.json with an unknown field is served and keeps it through PATCH, DELETE and PUT', async () => {
    const f = await folder();
    const stored = JSON.parse(await fsp.readFile(f.bundleFile, 'utf8'));
    await fsp.writeFile(f.bundleFile, JSON.stringify({ ...stored, owner: 'ops' }));
    const { store, problems } = await openStore(f.dataDir);
    expect(problems.list().map((p) => p.kind)).toEqual(['invalid-config']);
    await store.patchBundle(f.bundleId, { isEnabled: false });
    expect(JSON.parse(await fsp.readFile(f.bundleFile, 'utf8'))).toMatchObject({ isEnabled: false, owner: 'ops' });
    await store.putBundle(f.bundleId, bundleBody({ displayName: 'Renamed' }));
    expect(JSON.parse(await fsp.readFile(f.bundleFile, 'utf8'))).toMatchObject({ displayName: 'Renamed', owner: 'ops' });
    await store.deleteBundle(f.bundleId);
    expect(JSON.parse(await fsp.readFile(f.bundleFile, 'utf8'))).toMatchObject({ softDeletedAt: expect.any(String), owner: 'ops' });
  });

  it('a hand copy reusing an id does not replace the original, even when it sorts first', async () => {
    const f = await folder();
    // A copy of echo, edited into "aaa" (a file name that sorts before echo's), keeping echo's id.
    const stored = JSON.parse(await fsp.readFile(f.file('echo'), 'utf8'));
    const copy = f.file('aaa');
    await fsp.writeFile(copy, JSON.stringify({ ...stored, slug: 'aaa' }, null, 2));
    // Without a cache (the index's or a previous load's), the older file keeps the id.
    const plain = await openStore(f.dataDir);
    expect(plain.store.toolById(f.echo.id)!.slug).toBe('echo');
    expect(plain.problems.list().map((p) => [p.kind, p.path])).toEqual([['invalid-config', copy]]);
    expect(plain.problems.list()[0]!.message).toBe(`tool file: repeats the id ${f.echo.id} of ${f.file('echo')}, which is served; this file is skipped (give it a new id, or remove it)`);
    await plain.store.close();
    // With a cache that says which file held the id, that file keeps it, whatever the mtimes.
    await fsp.utimes(copy, new Date(0), new Date(0));
    // (The entry's fingerprint is stale, so the file is read; only the id it names counts.)
    const cache = new Map([[f.file('echo'), { mtimeMs: 0, size: 0, doc: '{}', id: f.echo.id }]]);
    const warm = await openStore(f.dataDir, {}, cache);
    expect(warm.store.toolById(f.echo.id)!.slug).toBe('echo');
    expect(await fsp.stat(copy)).toBeTruthy();
  });

  it('a tool file saved slowly in place is read again once quiet, not set aside', async () => {
    const f = await folder();
    const { store, problems } = await openStore(f.dataDir, { settleMs: 400 });
    const whole = await fsp.readFile(f.file('echo'), 'utf8');
    const edited = whole.replace('"Echo"', '"Echo 2"');
    await fsp.writeFile(f.file('echo'), edited.slice(0, 40)); // the editor has written part of it
    const reloading = store.reload();
    await sleep(100);
    await fsp.writeFile(f.file('echo'), edited); // and then the rest
    await reloading;
    expect(store.getTool(f.bundleId, 'echo', '1').displayName).toBe('Echo 2');
    expect(problems.list()).toEqual([]);
    expect(await filesUnder(path.join(f.dataDir, 'quarantine'))).toEqual([]);
  });

  it('bytes that are not UTF-8 are reported; the tool is served and a write refuses to rewrite them', async () => {
    const f = await folder();
    const text = (await fsp.readFile(f.file('echo'), 'utf8')).replace('Returns its input.', 'Returns its input. X');
    const bytes = Buffer.from(text, 'utf8');
    bytes[bytes.indexOf('X')] = 0xff;
    await fsp.writeFile(f.file('echo'), bytes);
    const { store, problems } = await openStore(f.dataDir);
    expect(problems.list().map((p) => [p.kind, p.path])).toEqual([['corrupt-file', f.file('echo')]]);
    expect(problems.list()[0]!.message).toMatch(/^tool file holds bytes that are not valid UTF-8 \(first on line \d+\)/);
    expect(store.getTool(f.bundleId, 'echo', '1').description).toBe('Returns its input. \uFFFD');
    const e = await rejection(store.patchTool(f.bundleId, 'echo', '1', { isEnabled: false }));
    expect(e).toMatchObject({ code: 'UNAVAILABLE', details: { rule: 'not-utf8' } });
    expect(await fsp.readFile(f.file('echo'))).toEqual(bytes);
  });
});
