/**
 * Cross-process locks on the data folder. The lock `key` is the folder
 * `<data>/locks/<key>.lock/`, built under another name and renamed into place (a rename
 * onto a folder that is there and not empty fails), holding:
 *   owner.json   who holds it (pid, machine, process start, a random token, and whom it was
 *                taken from); its mtime is the heartbeat, refreshed every staleMs / 3
 *   w-<token>/   the holder's fence: its temp files are written there (durable-fs.ts)
 *
 * A busy lock is taken over at once when its owner is certainly gone (same machine, pid
 * gone or reused: process-identity.ts), and after `staleMs` without a heartbeat otherwise
 * (another machine, or a process that is alive but frozen). A takeover renames the whole
 * folder away, fence included, before making a new one; so a holder that was paused past
 * the stale time and lost its lock can commit nothing when it resumes: its temp file's
 * folder is gone and its rename fails. The heartbeat also notices a lost lock, and the
 * commit guard then refuses to start a commit.
 */
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../../shared/errors';
import { KeyedQueue } from './serial-queue';
import { errnoOf, ioError, type CommitGuard, type Fence } from './durable-fs';
import { isOwnerGone, thisProcess, type ProcessIdentity } from './process-identity';

export interface LockSettings {
  /** A lock whose owner may be alive (or is on another machine) and has not refreshed it for this long is taken over. */
  staleMs: number;
  /** How long to wait for a busy lock before giving up with UNAVAILABLE. */
  waitMs: number;
  /**
   * How many times a write that lost its lock before committing anything is run again under
   * a fresh lock (default 0). Only for writers that read what they change under the lock (the
   * store and the settings do): the rerun then decides on what is on disk now, with the same
   * rules (a PUT whose slug and version another host took meanwhile is a CONFLICT).
   */
  lostRetries?: number;
}

/** A starved writer (a busy machine, a laptop waking up) gets two more tries before the call fails. */
export const DEFAULT_LOCK_SETTINGS: LockSettings = { staleMs: 10_000, waitMs: 20_000, lostRetries: 2 };

const POLL_MAX_MS = 25;
const OWNER_FILE = 'owner.json';

export type TakeoverReason = 'owner-gone' | 'stale';

export interface OwnerRecord extends ProcessIdentity {
  token: string;
  acquiredAt: string;
  tookOver?: { reason: TakeoverReason; pid: number; host: string };
}

/** What this LockSet did, for tests and diagnostics. */
export interface LockActivity {
  acquired: number;
  /** Times a busy lock was found and waited for (one per poll). */
  waits: number;
  takeovers: Record<TakeoverReason, number>;
  /** Takeovers undone because the lock had changed hands in between (its holder keeps it). */
  restored: number;
  /** Writes run again because they lost their lock before committing (see LockSettings.lostRetries). */
  lostRetries: number;
}

interface Verdict {
  take?: TakeoverReason;
  owner?: OwnerRecord;
}

export class LockSet {
  /** In-process queue per key, so this process does not poll against itself. */
  private readonly queue = new KeyedQueue();
  private dirReady = false;
  readonly activity: LockActivity = { acquired: 0, waits: 0, takeovers: { 'owner-gone': 0, stale: 0 }, restored: 0, lostRetries: 0 };

  constructor(
    private readonly locksDir: string,
    private readonly settings: LockSettings = DEFAULT_LOCK_SETTINGS,
  ) {}

  /**
   * Runs `fn` holding the lock `key`; `what` names the locked thing in errors. A run that lost
   * the lock before committing is run again (LockSettings.lostRetries) when `mayRetry` agrees:
   * a writer that puts a fixed value (a switch, a replacement) passes one that says whether
   * what it read is still as it was, so it never lands over another process's later write.
   */
  withLock<T>(key: string, what: string, fn: (guard: CommitGuard) => Promise<T>, mayRetry?: () => Promise<boolean>): Promise<T> {
    return this.queue.run(key, async () => {
      for (let retried = 0; ; retried++) {
        try {
          return await this.holdFileLock(key, what, fn);
        } catch (e) {
          if (!isLostLock(e) || retried >= (this.settings.lostRetries ?? 0)) throw e;
          if (mayRetry && !(await mayRetry().catch(() => false))) throw e;
          this.activity.lostRetries++;
        }
      }
    });
  }

  /** Removes the locks of processes that are gone from this machine (and leftovers of takeovers); returns how many. */
  async clearDeadLocks(): Promise<number> {
    let cleared = 0;
    const names = await fsp.readdir(this.locksDir).catch(() => [] as string[]);
    for (const name of names) {
      const dir = path.join(this.locksDir, name);
      if (name.endsWith('.lock')) {
        const v = await this.inspect(dir, false);
        if (v.take === 'owner-gone' && (await this.takeOver(dir, v))) cleared++;
      } else if (/\.lock\.new-[0-9a-f]+$/.test(name)) {
        // A lock being made by a process that was killed before it could finish.
        const owner = await readOwner(dir);
        if (owner && isOwnerGone(owner)) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      } else if (/\.lock\.gone-[0-9a-f]+$/.test(name)) {
        // A taker died before removing what it moved away; a recent one may be about to be restored.
        const st = await fsp.stat(dir).catch(() => undefined);
        if (st && Date.now() - st.mtimeMs > this.settings.staleMs) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      }
    }
    return cleared;
  }

  private async holdFileLock<T>(key: string, what: string, fn: (guard: CommitGuard) => Promise<T>): Promise<T> {
    if (!this.dirReady) {
      await fsp.mkdir(this.locksDir, { recursive: true }).catch((e) => {
        throw ioError('create the lock folder', this.locksDir, e);
      });
      this.dirReady = true;
    }
    const dir = path.join(this.locksDir, `${key}.lock`);
    const { token, tookOver } = await this.acquire(dir, what);
    const ownerFile = path.join(dir, OWNER_FILE);
    const fenceDir = path.join(dir, `w-${token}`);
    let lost: string | undefined;
    const lostError = (): AppError =>
      new AppError('UNAVAILABLE', `lost the lock on ${what} while writing (${lost ?? 'another process took it over'}); nothing was committed, try again`, {
        lock: key,
        tookOverFrom: tookOver,
        lostLock: true,
      });
    const heartbeat = setInterval(() => {
      void (async () => {
        const owner = await readOwner(dir);
        if (owner?.token !== token) {
          lost ??= 'another process took it over';
          return;
        }
        const now = new Date();
        await fsp.utimes(ownerFile, now, now).catch(() => undefined);
      })();
    }, Math.max(50, Math.floor(this.settings.staleMs / 3)));
    heartbeat.unref();
    const fence: Fence = { dir: fenceDir, lost: lostError };
    const guard = Object.assign(() => {
      if (lost) throw lostError();
    }, { fence });
    try {
      return await fn(guard);
    } finally {
      clearInterval(heartbeat);
      await release(dir, fenceDir);
    }
  }

  /**
   * Builds the lock folder under a staging name (owner file and fence in it), then renames
   * it into place: a lock never exists without its owner, even if its maker is killed.
   * A busy name is taken over when dead or stale, or waited for.
   */
  private async acquire(dir: string, what: string): Promise<{ token: string; tookOver?: OwnerRecord['tookOver'] }> {
    const token = randomBytes(8).toString('hex');
    const staging = `${dir}.new-${token}`;
    const deadline = Date.now() + this.settings.waitMs;
    let delay = 2;
    let tookOver: OwnerRecord['tookOver'];
    let written = 0;
    const writeOwner = async () => {
      const record: OwnerRecord = { ...thisProcess(), token, acquiredAt: new Date().toISOString(), ...(tookOver ? { tookOver } : {}) };
      await fsp.writeFile(path.join(staging, OWNER_FILE), JSON.stringify(record));
      written = Date.now();
    };
    try {
      await fsp.mkdir(path.join(staging, `w-${token}`), { recursive: true });
      await writeOwner();
      for (;;) {
        // The heartbeat starts after the rename: the owner file must be fresh when it lands.
        if (Date.now() - written > this.settings.staleMs / 3) await writeOwner();
        try {
          await fsp.rename(staging, dir);
          this.activity.acquired++;
          return { token, tookOver };
        } catch (e) {
          if (!(await isBusy(e, dir))) throw e;
        }
        const v = await this.inspect(dir, true);
        if (v.take && (await this.takeOver(dir, v))) {
          tookOver = { reason: v.take, pid: v.owner?.pid ?? 0, host: v.owner?.host ?? 'unknown' };
          await writeOwner();
          continue;
        }
        this.activity.waits++;
        if (Date.now() >= deadline) throw new AppError('UNAVAILABLE', `${what} is locked by another process; try again`, { lock: path.basename(dir, '.lock') });
        await sleep(delay * (0.5 + Math.random()));
        delay = Math.min(POLL_MAX_MS, delay * 1.5);
      }
    } catch (e) {
      await fsp.rm(staging, { recursive: true, force: true }).catch(() => undefined);
      throw ioError('lock', what, e);
    }
  }

  /** Whether a busy lock may be taken over, and why. */
  private async inspect(dir: string, staleCounts: boolean): Promise<Verdict> {
    const owner = await readOwner(dir);
    if (owner && isOwnerGone(owner)) return { take: 'owner-gone', owner };
    if (!staleCounts) return { owner };
    // Without a readable owner (a holder between mkdir and writing it), the folder's own age counts.
    const st = await fsp.stat(owner ? path.join(dir, OWNER_FILE) : dir).catch(() => undefined);
    if (!st) return { owner };
    return Date.now() - st.mtimeMs > this.settings.staleMs ? { take: 'stale', owner } : { owner };
  }

  /**
   * Moves the lock folder away (its holder's fence with it), then deletes it. If what was
   * moved is not the lock that was judged (it changed hands in between), it is put back
   * when the name is still free; if not, its holder's next commit fails cleanly.
   */
  private async takeOver(dir: string, v: Verdict): Promise<boolean> {
    const grave = `${dir}.gone-${randomBytes(6).toString('hex')}`;
    try {
      await fsp.rename(dir, grave);
    } catch {
      // Gone already (released, or another taker was first), or in use (Windows): look again.
      return false;
    }
    const moved = await readOwner(grave);
    if (moved?.token !== v.owner?.token) {
      const putBack = await fsp.rename(grave, dir).then(
        () => true,
        () => false,
      );
      if (putBack) {
        this.activity.restored++;
        return false;
      }
    }
    await fsp.rm(grave, { recursive: true, force: true }).catch(() => undefined);
    this.activity.takeovers[v.take!]++;
    return true;
  }
}

async function readOwner(dir: string): Promise<OwnerRecord | undefined> {
  try {
    const o = JSON.parse(await fsp.readFile(path.join(dir, OWNER_FILE), 'utf8')) as OwnerRecord;
    return typeof o.token === 'string' && typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.start === 'string' ? o : undefined;
  } catch {
    return undefined;
  }
}

/** The rename into place failed because the lock is held (Windows says EPERM for a folder in the way). */
async function isBusy(e: unknown, dir: string): Promise<boolean> {
  const code = errnoOf(e);
  if (code === 'EEXIST' || code === 'ENOTEMPTY') return true;
  if (code !== 'EPERM' && code !== 'EACCES') return false;
  return fsp.stat(dir).then(
    () => true,
    () => false,
  );
}

/**
 * The fence going proves the lock is still ours; then the folder is moved away whole and
 * deleted, so a holder killed while releasing never leaves a lock without its owner file.
 */
async function release(dir: string, fenceDir: string): Promise<void> {
  try {
    await fsp.rmdir(fenceDir);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return;
    await fsp.rm(fenceDir, { recursive: true, force: true }).catch(() => undefined);
  }
  const grave = `${dir}.gone-${randomBytes(6).toString('hex')}`;
  if (await fsp.rename(dir, grave).then(() => true, () => false)) await fsp.rm(grave, { recursive: true, force: true }).catch(() => undefined);
}

/** The error of a write that lost its lock before it committed anything (nothing was written). */
export function isLostLock(e: unknown): boolean {
  if (!(e instanceof AppError)) return false;
  const d = e.details;
  return !!d && typeof d === 'object' && (d as { lostLock?: unknown }).lostLock === true;
}
