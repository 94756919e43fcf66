/**
 * Cross-process locks on the data folder (proper-lockfile: a lock folder under
 * `<data>/locks/`, kept fresh by an mtime heartbeat, taken over when stale).
 *
 * A lock alone does not make a write safe: a stalled holder can have its lock reclaimed
 * as stale. So every holder gets a commit guard; proper-lockfile's onCompromised flips
 * it, and the store calls it right before each rename or link, so nothing is committed
 * after the lock was reported lost. Uniqueness itself rests on the exclusive create.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { AppError } from '../../../shared/errors';
import { errnoOf, ioError, type CommitGuard } from './durable-fs';

export interface LockSettings {
  /** A lock not refreshed for this long is taken over. proper-lockfile's minimum is 2,000. */
  staleMs: number;
  /** How long to wait for a busy lock before giving up with UNAVAILABLE. */
  waitMs: number;
}

export const DEFAULT_LOCK_SETTINGS: LockSettings = { staleMs: 10_000, waitMs: 20_000 };

const POLL_MAX_MS = 25;

export class LockSet {
  /** In-process queue per key, so this process does not poll against itself. */
  private readonly tails = new Map<string, Promise<void>>();
  private dirReady = false;

  constructor(
    private readonly locksDir: string,
    private readonly settings: LockSettings = DEFAULT_LOCK_SETTINGS,
  ) {}

  /** Runs `fn` holding the lock `key`; `what` names the locked thing in errors. */
  async withLock<T>(key: string, what: string, fn: (guard: CommitGuard) => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let done!: () => void;
    const tail = previous.then(() => new Promise<void>((resolve) => (done = resolve)));
    this.tails.set(key, tail);
    await previous;
    try {
      return await this.holdFileLock(key, what, fn);
    } finally {
      done();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  private async holdFileLock<T>(key: string, what: string, fn: (guard: CommitGuard) => Promise<T>): Promise<T> {
    if (!this.dirReady) {
      await fsp.mkdir(this.locksDir, { recursive: true }).catch((e) => {
        throw ioError('create the lock folder', this.locksDir, e);
      });
      this.dirReady = true;
    }
    const target = path.join(this.locksDir, key);
    let lost: Error | undefined;
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(target, {
        realpath: false,
        lockfilePath: `${target}.lock`,
        stale: this.settings.staleMs,
        retries: {
          retries: Math.ceil(this.settings.waitMs / POLL_MAX_MS),
          factor: 1.5,
          minTimeout: 2,
          maxTimeout: POLL_MAX_MS,
          randomize: true,
        },
        onCompromised: (e) => {
          lost = e;
        },
      });
    } catch (e) {
      if (errnoOf(e) === 'ELOCKED') {
        throw new AppError('UNAVAILABLE', `${what} is locked by another process; try again`, { lock: key });
      }
      throw ioError('lock', what, e);
    }
    const guard: CommitGuard = () => {
      if (lost) {
        throw new AppError('UNAVAILABLE', `lost the lock on ${what} while writing (${lost.message}); nothing was committed, try again`, {
          lock: key,
        });
      }
    };
    try {
      return await fn(guard);
    } finally {
      // A compromised lock is already released, and may now belong to someone else.
      if (!lost) await release().catch(() => undefined);
    }
  }
}
