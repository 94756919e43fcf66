/**
 * The bundle lock against real processes: a holder that was killed, a holder that is frozen
 * (SIGSTOP, as a laptop asleep or a debugger), and owner files that name another machine or
 * a reused pid. Stale times are a minute: whatever is taken over sooner is taken over
 * because its owner is gone, never because time passed.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { nodeFs, replaceFile } from '../lib/durable-fs';
import { LockSet, type OwnerRecord } from '../lib/locks';
import { thisProcess } from '../lib/process-identity';
import { rejection } from './testing/fixtures';
import { startWorker, type Worker } from './testing/spawn-worker';

const tempDir = useTempDirs();
const MINUTE = 60_000;
const KEY = 'bundle-test';

async function holder(dataDir: string, file: string): Promise<Worker> {
  const w = startWorker({ mode: 'hold', dataDir, key: KEY, file, staleMs: MINUTE });
  await w.waitFor((l) => l.held === true);
  return w;
}

async function writeLock(dataDir: string, owner: Partial<OwnerRecord>): Promise<void> {
  const dir = path.join(dataDir, 'locks', `${KEY}.lock`);
  await fsp.mkdir(path.join(dir, 'w-0000000000000000'), { recursive: true });
  await fsp.writeFile(path.join(dir, 'owner.json'), JSON.stringify({ ...thisProcess(), token: '0000000000000000', acquiredAt: new Date().toISOString(), ...owner }));
}

describe('the bundle lock across processes', () => {
  it('takes a killed holder’s lock over at once, without waiting for the stale time', { timeout: 30_000 }, async () => {
    const dataDir = await tempDir();
    const w = await holder(dataDir, path.join(dataDir, 'target.txt'));
    w.child.kill('SIGKILL');
    await w.closed;
    const locks = new LockSet(path.join(dataDir, 'locks'), { staleMs: MINUTE, waitMs: MINUTE });
    const owner = await locks.withLock(KEY, 'the test lock', async () =>
      JSON.parse(await fsp.readFile(path.join(dataDir, 'locks', `${KEY}.lock`, 'owner.json'), 'utf8')),
    );
    expect(owner.tookOver).toEqual({ reason: 'owner-gone', pid: w.child.pid, host: thisProcess().host });
    expect(locks.activity).toMatchObject({ acquired: 1, waits: 0, takeovers: { 'owner-gone': 1, stale: 0 } });
    expect(await fsp.readdir(path.join(dataDir, 'locks'))).toEqual([]);
  });

  it('a frozen holder keeps a fresh lock; once stale it is taken over and the holder, resumed, commits nothing', { timeout: 30_000 }, async () => {
    const dataDir = await tempDir();
    const target = path.join(dataDir, 'target.txt');
    const w = await holder(dataDir, target);
    w.child.kill('SIGSTOP');
    try {
      const impatient = new LockSet(path.join(dataDir, 'locks'), { staleMs: MINUTE, waitMs: 200 });
      const busy = await rejection(impatient.withLock(KEY, 'the test lock', async () => undefined));
      expect(busy).toMatchObject({ code: 'UNAVAILABLE', message: 'the test lock is locked by another process; try again' });
      expect(impatient.activity.takeovers).toEqual({ 'owner-gone': 0, stale: 0 });
      expect(impatient.activity.waits).toBeGreaterThan(0);

      // The frozen holder cannot refresh its heartbeat: age it past the stale time.
      const ownerFile = path.join(dataDir, 'locks', `${KEY}.lock`, 'owner.json');
      const longAgo = new Date(Date.now() - 2 * MINUTE);
      await fsp.utimes(ownerFile, longAgo, longAgo);
      const taker = new LockSet(path.join(dataDir, 'locks'), { staleMs: MINUTE, waitMs: MINUTE });
      await taker.withLock(KEY, 'the test lock', (guard) => replaceFile(nodeFs, target, 'from the new holder\n', guard));
      expect(taker.activity.takeovers).toEqual({ 'owner-gone': 0, stale: 1 });
    } finally {
      w.child.kill('SIGCONT');
    }
    w.child.stdin!.write('go\n');
    const result = await w.waitFor((l) => 'committed' in l || 'error' in l);
    expect(result).toMatchObject({ error: true, code: 'UNAVAILABLE' });
    expect(result.message).toMatch(/^lost the lock on the test lock while writing \(.*\); nothing was committed, try again$/);
    expect(await fsp.readFile(target, 'utf8')).toBe('from the new holder\n');
    await w.closed;
  });

  it('a write that lost its lock before committing runs again under a fresh lock (lostRetries), on what is on disk then', { timeout: 30_000 }, async () => {
    const dataDir = await tempDir();
    const locksDir = path.join(dataDir, 'locks');
    const target = path.join(dataDir, 'target.txt');
    const starved = new LockSet(locksDir, { staleMs: MINUTE, waitMs: MINUTE, lostRetries: 2 });
    const other = new LockSet(locksDir, { staleMs: MINUTE, waitMs: MINUTE });
    const seen: string[] = [];
    await starved.withLock(KEY, 'the test lock', async (guard) => {
      seen.push(await fsp.readFile(target, 'utf8').catch(() => 'nothing'));
      if (seen.length === 1) {
        // Starved past the stale time (a busy machine): another writer takes the lock over and commits.
        const longAgo = new Date(Date.now() - 2 * MINUTE);
        await fsp.utimes(path.join(locksDir, `${KEY}.lock`, 'owner.json'), longAgo, longAgo);
        await other.withLock(KEY, 'the test lock', (g) => replaceFile(nodeFs, target, 'other\n', g));
      }
      await replaceFile(nodeFs, target, `starved after ${seen.at(-1)!.trim()}\n`, guard);
    });
    // The first run committed nothing; the second read the other writer's file and wrote on top of it.
    expect(seen).toEqual(['nothing', 'other\n']);
    expect(await fsp.readFile(target, 'utf8')).toBe('starved after other\n');
    expect(starved.activity).toMatchObject({ lostRetries: 1, takeovers: { 'owner-gone': 0, stale: 0 } });
    expect(other.activity.takeovers.stale).toBe(1);

    // Without retries (or once they are used up), the loss is the caller's error, and nothing is written.
    const once = new LockSet(locksDir, { staleMs: MINUTE, waitMs: MINUTE });
    const lost = await rejection(
      once.withLock(KEY, 'the test lock', async (guard) => {
        const longAgo = new Date(Date.now() - 2 * MINUTE);
        await fsp.utimes(path.join(locksDir, `${KEY}.lock`, 'owner.json'), longAgo, longAgo);
        await other.withLock(KEY, 'the test lock', async () => undefined);
        await replaceFile(nodeFs, target, 'never\n', guard);
      }),
    );
    expect(lost.message).toMatch(/^lost the lock on the test lock while writing/);
    expect(await fsp.readFile(target, 'utf8')).toBe('starved after other\n');
  });

  it('never takes over a fresh lock of another machine', async () => {
    const dataDir = await tempDir();
    await writeLock(dataDir, { host: 'another-machine', pid: 1 });
    const locks = new LockSet(path.join(dataDir, 'locks'), { staleMs: MINUTE, waitMs: 100 });
    expect(await rejection(locks.withLock(KEY, 'the test lock', async () => undefined))).toMatchObject({ code: 'UNAVAILABLE' });
    expect(await locks.clearDeadLocks()).toBe(0);
    expect(locks.activity.takeovers).toEqual({ 'owner-gone': 0, stale: 0 });
  });

  it.runIf(process.platform === 'linux')('takes over a lock whose pid now belongs to a process started at another time', async () => {
    const dataDir = await tempDir();
    // process.ppid is alive, but did not start at tick 1.
    await writeLock(dataDir, { pid: process.ppid, start: '1' });
    const locks = new LockSet(path.join(dataDir, 'locks'), { staleMs: MINUTE, waitMs: 100 });
    await locks.withLock(KEY, 'the test lock', async () => undefined);
    expect(locks.activity.takeovers).toEqual({ 'owner-gone': 1, stale: 0 });
  });

  it('clearDeadLocks removes a dead process’s lock and leftovers, and leaves a live one', async () => {
    const dataDir = await tempDir();
    const w = await holder(dataDir, path.join(dataDir, 'target.txt'));
    const locks = new LockSet(path.join(dataDir, 'locks'), { staleMs: MINUTE, waitMs: MINUTE });
    expect(await locks.clearDeadLocks()).toBe(0);
    expect(await fsp.readdir(path.join(dataDir, 'locks'))).toEqual([`${KEY}.lock`]);
    w.child.kill('SIGKILL');
    await w.closed;
    expect(await locks.clearDeadLocks()).toBe(1);
    expect(await fsp.readdir(path.join(dataDir, 'locks'))).toEqual([]);
  });
});
