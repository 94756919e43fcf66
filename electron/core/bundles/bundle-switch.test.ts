/**
 * The bundle's switch as its file says it: read again only when the file changed (the
 * invocation path checks it on every call), and what the file cannot tell is left to the catalog.
 * While the file says on it is held open and checked with fstat; each way the file can change
 * under its name is seen at the very next read, held or not (Windows never holds).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { BundleSwitches, MAX_HELD } from './bundle-switch';
import { StoreLayout } from './layout';
import { bundleBody, newId, openStore } from './testing/fixtures';
import { startWorker } from './testing/spawn-worker';

const tempDir = useTempDirs();

const ON = { isEnabled: true, deleted: false };
const OFF = { isEnabled: false, deleted: false };
const GONE = { isEnabled: false, deleted: true };

describe('BundleSwitches', () => {
  it('reads bundle.json only when its stat changed, and follows another writer at once', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir);
    const bundleId = newId();
    await store.putBundle(bundleId, bundleBody());
    const switches = new BundleSwitches(new StoreLayout(dataDir), () => new Map());

    expect(switches.read(bundleId)).toEqual(ON);
    for (let i = 0; i < 100; i++) switches.read(bundleId);
    expect(switches.reads).toBe(1);
    expect(switches.heldFiles).toBe(1);

    await store.patchBundle(bundleId, { isEnabled: false });
    expect(switches.read(bundleId)).toEqual(OFF);
    expect(switches.reads).toBe(2);
    // Off: nothing to hold (a call is refused either way).
    expect(switches.heldFiles).toBe(0);
    await store.patchBundle(bundleId, { isEnabled: true });
    expect(switches.read(bundleId)).toEqual(ON);
    await store.deleteBundle(bundleId);
    expect(switches.read(bundleId)).toEqual({ isEnabled: true, deleted: true });
    expect(switches.heldFiles).toBe(0);
    await store.close();
  });

  it('a file that cannot tell leaves it to the catalog; a missing bundle.json is a removed bundle', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const layout = new StoreLayout(dataDir);
    const switches = new BundleSwitches(layout, () => new Map());
    const bundleId = newId();
    expect(switches.read(bundleId)).toEqual(GONE);
    await fs.mkdir(layout.bundleDir(bundleId), { recursive: true });
    await fs.writeFile(layout.bundleFile(bundleId), '{"isEnabled": tr');
    expect(switches.read(bundleId)).toBeUndefined();
    await fs.writeFile(layout.bundleFile(bundleId), '{"isEnabled": "yes"}');
    expect(switches.read(bundleId)).toBeUndefined();
    expect(switches.heldFiles).toBe(0);
  });

  describe.each([
    { held: true, how: 'held open (fstat)' },
    { held: false, how: 'not held (stat of the path, as on Windows)' },
  ])('every change under the name is seen at the next read: $how', ({ held }) => {
    async function fixture() {
      const dataDir = path.join(await tempDir(), 'data');
      const layout = new StoreLayout(dataDir);
      const bundleId = newId();
      const file = layout.bundleFile(bundleId);
      await fs.mkdir(layout.bundleDir(bundleId), { recursive: true });
      await fs.writeFile(file, '{"isEnabled": true}');
      const switches = new BundleSwitches(layout, () => new Map(), held);
      expect(switches.read(bundleId)).toEqual(ON);
      expect(switches.heldFiles).toBe(held ? 1 : 0);
      return { layout, bundleId, file, switches, read: () => switches.read(bundleId) };
    }

    it('written in place (same inode, as an editor that saves in place)', async () => {
      const { file, read } = await fixture();
      const before = (await fs.stat(file)).ino;
      await fs.writeFile(file, '{"isEnabled": false}');
      expect((await fs.stat(file)).ino).toBe(before);
      expect(read()).toEqual(OFF);
    });

    it('replaced by a rename, also while the old file keeps another link', async () => {
      const { file, read } = await fixture();
      await fs.writeFile(`${file}.new`, '{"isEnabled": false}');
      await fs.rename(`${file}.new`, file);
      expect(read()).toEqual(OFF);

      await fs.writeFile(`${file}.new`, '{"isEnabled": true}');
      await fs.rename(`${file}.new`, file);
      expect(read()).toEqual(ON);
      // A hard link elsewhere keeps the replaced file alive: it must not pass for the file still named.
      await fs.link(file, path.join(path.dirname(file), 'backup.json'));
      expect(read()).toEqual(ON);
      await fs.writeFile(`${file}.new`, '{"isEnabled": false}');
      await fs.rename(`${file}.new`, file);
      expect(read()).toEqual(OFF);
    });

    it('renamed away, or removed: the bundle is gone', async () => {
      const first = await fixture();
      await fs.rename(first.file, path.join(path.dirname(first.file), 'elsewhere.json'));
      expect(first.read()).toEqual(GONE);
      expect(first.switches.heldFiles).toBe(0);

      const second = await fixture();
      await fs.rm(second.layout.bundleDir(second.bundleId), { recursive: true });
      expect(second.read()).toEqual(GONE);
      expect(second.switches.heldFiles).toBe(0);
    });
  });

  it(`holds at most ${MAX_HELD} files, and lets them all go on close`, async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const layout = new StoreLayout(dataDir);
    const ids = Array.from({ length: MAX_HELD + 3 }, () => newId());
    for (const id of ids) {
      await fs.mkdir(layout.bundleDir(id), { recursive: true });
      await fs.writeFile(layout.bundleFile(id), '{"isEnabled": true}');
    }
    const switches = new BundleSwitches(layout, () => new Map());
    for (const id of ids) expect(switches.read(id)).toEqual(ON);
    expect(switches.heldFiles).toBe(MAX_HELD);
    // Those past the bound are checked by their path, as closely.
    const last = ids.at(-1)!;
    await fs.writeFile(layout.bundleFile(last), '{"isEnabled": false}');
    expect(switches.read(last)).toEqual(OFF);
    switches.close();
    expect(switches.heldFiles).toBe(0);
    expect(switches.read(ids[0]!)).toEqual(ON);
    expect(switches.heldFiles).toBe(0);
  });

  it('another process switches the bundle off, deletes it: the next read here sees it', { timeout: 60_000 }, async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir);
    const bundleId = newId();
    await store.putBundle(bundleId, bundleBody());
    await store.close();
    const switches = new BundleSwitches(new StoreLayout(dataDir), () => new Map());
    expect(switches.read(bundleId)).toEqual(ON);
    expect(switches.heldFiles).toBe(1);

    const worker = startWorker({ mode: 'switch', dataDir, bundleId });
    try {
      await worker.waitFor((l) => l.ready === true);
      const steps: [string, typeof ON][] = [];
      for (let i = 0; i < 10; i++) steps.push(['off', OFF], ['on', ON]);
      steps.push(['delete', { isEnabled: true, deleted: true }]);
      for (const [seq, [line, want]] of steps.entries()) {
        worker.child.stdin!.write(`${line}\n`);
        await worker.waitFor((l) => l.ack === true && l.seq === seq);
        expect(switches.read(bundleId), `after '${line}' (step ${seq})`).toEqual(want);
      }
      worker.child.stdin!.write('end\n');
      expect((await worker.closed).code).toBe(0);
    } finally {
      worker.child.kill();
    }
    switches.close();
  });
});
