/**
 * Disk full, permission errors, a lost lock, a busy lock, dead writers' temp files.
 * Each refused or failed write must leave the old files exactly as they were.
 *
 * Tests run as root here, where chmod does not stop a write; the errors are therefore
 * injected through the store's `fs` option (the real fs, failing on chosen paths), and the
 * chmod variant runs only when the tests do not run as root.
 */
import { spawn } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { toolFileName } from './layout';
import { LockSet, type LockSettings } from '../lib/locks';
import { bundleBody, filesUnder, localToolBody, newId, openStore, rejection } from './testing/fixtures';

const tempDir = useTempDirs();

const isRoot = process.getuid?.() === 0;

function errno(code: string, syscall: string, file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${syscall} '${file}'`), { code, syscall, path: file });
}

type Fault = { op: 'open' | 'write'; code: string; when: (file: string) => boolean };

/** The real fs, failing where `fault` says. A write fault writes half the data first, as a full disk does. */
function faultyFs(fault: () => Fault | undefined): StoreFs {
  const open = (async (file: string, flags?: string, mode?: number) => {
    const f = fault();
    if (f?.op === 'open' && f.when(file)) throw errno(f.code, 'open', file);
    const handle = await nodeFs.open(file, flags, mode);
    if (f?.op !== 'write' || !f.when(file)) return handle;
    return {
      async writeFile(data: string) {
        await handle.writeFile(data.slice(0, data.length / 2));
        throw errno(f.code, 'write', file);
      },
      sync: () => handle.sync(),
      close: () => handle.close(),
    };
  }) as StoreFs['open'];
  return { ...nodeFs, open };
}


/** A store with one bundle and one tool; set `injected.fault` to make its fs fail from then on. */
async function setup() {
  const injected: { fault?: Fault } = {};
  const dataDir = path.join(await tempDir(), 'data');
  const f = await openStore(dataDir, { fs: faultyFs(() => injected.fault) });
  const bundleId = newId();
  await f.store.putBundle(bundleId, bundleBody());
  const tool = await f.store.putTool(bundleId, 'echo', '1', localToolBody());
  const toolFile = path.join(dataDir, 'bundles', bundleId, 'tools', toolFileName('echo', '1'));
  const bundleFile = path.join(dataDir, 'bundles', bundleId, 'bundle.json');
  const snapshot = async () => ({ tool: await fsp.readFile(toolFile, 'utf8'), bundle: await fsp.readFile(bundleFile, 'utf8') });
  return { ...f, injected, bundleId, tool, toolFile, bundleFile, snapshot, before: await snapshot() };
}

const temps = async (dir: string) => (await filesUnder(dir)).filter((f) => f.includes('.tmp-'));

describe('write failures', () => {
  it.each([
    ['EACCES', 'open', 'permission denied (EACCES)'],
    ['ENOSPC', 'write', 'the disk is full (ENOSPC)'],
  ] as const)('%s on a PATCH: a clear error, the old file intact, no temp file left', async (code, op, words) => {
    const s = await setup();
    // The temp file of the tool (written in the lock's fence folder, see locks.ts).
    s.injected.fault = { op, code, when: (f) => path.basename(f).startsWith('.echo@1.') && f.includes('.tmp-') };
    const e = await rejection(s.store.patchTool(s.bundleId, 'echo', '1', { isEnabled: false }));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toBe(`could not write ${s.toolFile}: ${words}; nothing was changed`);
    expect(e.details).toMatchObject({ path: s.toolFile, errno: code });
    expect(await s.snapshot()).toEqual(s.before);
    expect(s.store.getTool(s.bundleId, 'echo', '1').isEnabled).toBe(true);
    expect(await temps(s.dataDir)).toEqual([]);
  });

  it('ENOSPC on a new tool: no file, no temp file, and the next PUT of that version works', async () => {
    const s = await setup();
    s.injected.fault = { op: 'write', code: 'ENOSPC', when: (f) => f.includes('.tmp-') };
    const e = await rejection(s.store.putTool(s.bundleId, 'other', '1', localToolBody()));
    expect(e.message).toMatch(/^could not write .*other@1\.[0-9a-f]{24}\.json: the disk is full \(ENOSPC\); nothing was changed$/);
    expect(await fsp.readdir(path.dirname(s.toolFile))).toEqual([path.basename(s.toolFile)]);
    s.injected.fault = undefined;
    await s.store.putTool(s.bundleId, 'other', '1', localToolBody());
  });

  it('ENOSPC on a bundle replace and on a soft delete keeps bundle.json as it was', async () => {
    const s = await setup();
    s.injected.fault = { op: 'write', code: 'ENOSPC', when: (f) => f.includes('.bundle.json.tmp-') };
    expect((await rejection(s.store.putBundle(s.bundleId, bundleBody({ displayName: 'New' })))).code).toBe('UNAVAILABLE');
    expect((await rejection(s.store.deleteBundle(s.bundleId))).code).toBe('UNAVAILABLE');
    expect(await s.snapshot()).toEqual(s.before);
    expect(s.store.getBundle(s.bundleId).displayName).toBe('Demo');
    expect(s.store.getBundle(s.bundleId).softDeletedAt).toBeUndefined();
  });

  it.skipIf(isRoot)('a read-only tools folder (chmod) refuses the write and keeps the old file', async () => {
    const s = await setup();
    const tools = path.dirname(s.toolFile);
    await fsp.chmod(tools, 0o555);
    try {
      const e = await rejection(s.store.patchTool(s.bundleId, 'echo', '1', { isEnabled: false }));
      expect(e.message).toMatch(/permission denied \(EACCES\)/);
      expect(await s.snapshot()).toEqual(s.before);
    } finally {
      await fsp.chmod(tools, 0o755);
    }
  });

  it('a real EISDIR (a folder where usage.json goes) is reported once and the counts are kept for later', async () => {
    const s = await setup();
    const usageFile = path.join(s.dataDir, 'usage.json');
    await fsp.mkdir(path.join(usageFile, 'in-the-way'), { recursive: true });
    s.store.recordUsage(s.tool.id);
    await s.store.flushUsage();
    s.store.recordUsage(s.tool.id);
    await s.store.flushUsage();
    expect(s.problems.list().map((p) => [p.kind, p.path])).toEqual([['io-error', usageFile]]);
    expect(s.store.usage(s.tool.id).callCount).toBe(2);
    await fsp.rm(usageFile, { recursive: true });
    await s.store.flushUsage();
    expect(JSON.parse(await fsp.readFile(usageFile, 'utf8')).tools[s.tool.id].callCount).toBe(2);
  });
});

describe('locks', () => {
  /**
   * A store with one tool whose next write stops at the rename of its temp file (`matches`
   * picks which renames) until `resume()`: a lock can be taken from under it there. With
   * `once`, only the first such rename is held (a second run goes through).
   */
  async function heldAtCommit(matches: (from: string, to: string) => boolean, lock: Partial<LockSettings>, once = false) {
    let reached!: () => void;
    const atCommit = new Promise<void>((r) => (reached = r));
    let resume!: () => void;
    const gate = new Promise<void>((r) => (resume = r));
    const dataDir = path.join(await tempDir(), 'data');
    let hold = false;
    const slowFs: StoreFs = {
      ...nodeFs,
      rename: (async (from: string, to: string) => {
        if (hold && matches(from, to)) {
          if (once) hold = false;
          reached();
          await gate;
        }
        return nodeFs.rename(from, to);
      }) as StoreFs['rename'],
    };
    // A heartbeat far away: only the fence can stop the commit.
    const { store } = await openStore(dataDir, { fs: slowFs, lock: { staleMs: 60_000, ...lock } });
    const bundleId = newId();
    await store.putBundle(bundleId, bundleBody());
    await store.putTool(bundleId, 'echo', '1', localToolBody());
    const lockDir = path.join(dataDir, 'locks', `bundle-${bundleId}.lock`);
    return {
      store,
      dataDir,
      bundleId,
      toolsDir: path.join(dataDir, 'bundles', bundleId, 'tools'),
      /** Holds the next write at its commit; resolves once it is held there. */
      hold: () => ((hold = true), atCommit),
      resume,
      release: () => (hold = false),
      /** Another process takes the lock over (as after the stale time). */
      takeOver: async () => {
        await fsp.rename(lockDir, `${lockDir}.gone-0123456789ab`);
        await fsp.rm(`${lockDir}.gone-0123456789ab`, { recursive: true });
      },
      removeLock: () => fsp.rm(lockDir, { recursive: true }),
    };
  }
  const tempRename = (from: string) => from.includes('.tmp-');

  it('commits nothing once the lock was taken over, even before the heartbeat notices; another process wrote its file meanwhile, so it is not run again', async () => {
    const f = await heldAtCommit(tempRename, {});
    const held = f.hold();
    const patch = f.store.patchTool(f.bundleId, 'echo', '1', { isEnabled: false });
    await held;
    await f.takeOver();
    const other = await openStore(f.dataDir);
    await other.store.deleteTool(f.bundleId, 'echo', '1');
    f.resume();
    // The PATCH puts a fixed value: run again over the other process's later write, it would undo it.
    const e = await rejection(patch);
    expect(e).toMatchObject({ code: 'UNAVAILABLE' });
    expect(e.message).toMatch(/^lost the lock on bundle .* while writing \(another process took it over\); nothing was committed, try again$/);
    expect(f.store.lockActivity().lostRetries).toBe(0);
    expect(await fsp.readdir(f.toolsDir)).toEqual([]);
    f.release();
    // The next write takes the lock afresh and works.
    await f.store.putTool(f.bundleId, 'echo', '2', localToolBody());
    await other.store.close();
  });

  it('a PATCH whose lock was taken over while nobody wrote its file is run again under a fresh lock and lands', async () => {
    const f = await heldAtCommit(tempRename, {}, true);
    const held = f.hold();
    const patch = f.store.patchTool(f.bundleId, 'echo', '1', { isEnabled: false });
    await held;
    // Another process takes the lock over (a starved writer, a busy machine) and writes nothing to the tool.
    await f.takeOver();
    f.resume();
    expect((await patch).isEnabled).toBe(false);
    expect(f.store.lockActivity().lostRetries).toBe(1);
    expect(JSON.parse(await fsp.readFile(path.join(f.toolsDir, toolFileName('echo', '1')), 'utf8')).isEnabled).toBe(false);
  });

  it('a delete whose lock was taken over removes nothing', async () => {
    // No second run: this is about what the first one does.
    const f = await heldAtCommit((_from, to) => to.includes('.tmp-'), { lostRetries: 0 });
    const held = f.hold();
    const del = f.store.deleteTool(f.bundleId, 'echo', '1');
    await held;
    await f.removeLock();
    f.resume();
    expect(await rejection(del)).toMatchObject({ code: 'UNAVAILABLE' });
    expect(await fsp.readdir(f.toolsDir)).toEqual([toolFileName('echo', '1')]);
  });

  it('gives up on a lock another process holds for too long, with a clear error', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const { store } = await openStore(dataDir, { lock: { staleMs: 10_000, waitMs: 300 } });
    const bundleId = newId();
    await store.putBundle(bundleId, bundleBody());
    const other = new LockSet(path.join(dataDir, 'locks'));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = other.withLock(`bundle-${bundleId}`, 'test', async () => {
      locked();
      await held;
    });
    await isLocked;
    const e = await rejection(store.putTool(bundleId, 'echo', '1', localToolBody()));
    expect(e).toMatchObject({ code: 'UNAVAILABLE', message: `bundle ${bundleId} is locked by another process; try again` });
    release();
    await holder;
    await store.putTool(bundleId, 'echo', '1', localToolBody());
  });
});

describe('temp files of dead writers', () => {
  it('are swept on open; a live writer’s recent temp file is left alone', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const first = await openStore(dataDir);
    const bundleId = newId();
    await first.store.putBundle(bundleId, bundleBody());
    await first.store.close();
    const tools = path.join(dataDir, 'bundles', bundleId, 'tools');
    // A process that has ended, so its pid is free.
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('close', r));
    const live = process.ppid;
    const name = (base: string, pid: number) => `.${base}.tmp-${pid}-0123456789ab`;
    const deadTemp = path.join(tools, name('x@1.aaaaaaaaaaaaaaaaaaaaaaaa.json', dead.pid!));
    const deadBundleTemp = path.join(dataDir, 'bundles', bundleId, name('bundle.json', dead.pid!));
    const liveTemp = path.join(tools, name('y@1.bbbbbbbbbbbbbbbbbbbbbbbb.json', live));
    const oldLiveTemp = path.join(dataDir, name('usage.json', live));
    for (const f of [deadTemp, deadBundleTemp, liveTemp, oldLiveTemp]) await fsp.writeFile(f, '{"partial": ');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await fsp.utimes(oldLiveTemp, twoHoursAgo, twoHoursAgo);

    const { store, problems } = await openStore(dataDir);
    expect(problems.list()).toEqual([]);
    expect(await temps(dataDir)).toEqual([path.relative(dataDir, liveTemp)]);
    expect(store.listBundles().items).toHaveLength(1);
  });
});
