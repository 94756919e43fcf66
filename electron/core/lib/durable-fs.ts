/**
 * The store's file writes, made with ../lib/atomic-write.ts. Every file always parses as
 * its old or its new version: a complete temp file is written and fsynced in the target
 * folder, then
 * - a new file is committed with link(temp, final), which fails with EEXIST when the
 *   name is taken: the uniqueness of <slug, version> holds even if two processes both
 *   believe they hold the bundle lock;
 * - an existing file is replaced with rename(temp, final).
 * The folder is fsynced afterwards so an acknowledged write survives a power cut.
 *
 * Under a lock (locks.ts) the temp file is written in the holder's fence folder, which
 * exists only while the lock is the holder's: a holder that was paused past the stale
 * time and lost its lock finds its fence gone, so its rename or link fails (ENOENT) and
 * nothing is committed, however long it slept and wherever the pause fell. A removal is
 * fenced the same way: the file is first renamed into the fence, then unlinked.
 *
 * Every store (bundles and tools, secrets, test cases, settings) writes through these, not
 * through write-file-atomic: it has no exclusive create, its temp names cannot be told from
 * other files by the sweep, and its fs cannot be swapped to inject disk-full and permission
 * errors in tests.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { AlreadyExists, exists as fileExists, fsyncDir as syncFolder, tempPathFor, writeFileAtomic, type AtomicWriteOptions } from './atomic-write';
import { errnoOf } from './errno';

export { AlreadyExists };

/** The fs functions the store uses; tests pass wrappers that fail on purpose. */
export type StoreFs = Pick<typeof fsp, 'open' | 'rename' | 'link' | 'unlink' | 'readFile' | 'readdir' | 'mkdir' | 'rmdir' | 'rm' | 'stat'>;

export const nodeFs: StoreFs = fsp;

/** A folder that exists only while the lock is held (see locks.ts). */
export interface Fence {
  readonly dir: string;
  /** The error a write gets when the fence is gone: the lock was taken over. */
  lost(): AppError;
}

/**
 * Called right before a commit; throws when the lock protecting the write is known to be
 * lost. With a fence, the commit itself also fails once the lock is lost.
 */
export interface CommitGuard {
  (): void;
  readonly fence?: Fence;
}

export { errnoOf };

const REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EISDIR: 'a folder is in the way',
  ENOTDIR: 'a file is in the way of a folder',
  EMFILE: 'too many open files',
};

/** An I/O failure as the caller sees it: what could not be done, where, and why. */
export function ioError(action: string, file: string, e: unknown): AppError {
  if (e instanceof AppError) return e;
  const code = errnoOf(e);
  const reason = (code && REASONS[code]) ?? (e instanceof Error ? e.message : String(e));
  return new AppError('UNAVAILABLE', `could not ${action} ${file}: ${reason}${code ? ` (${code})` : ''}; nothing was changed`, {
    path: file,
    errno: code,
  });
}

/** Makes a rename or link in `dir` durable. Some platforms cannot fsync a folder; that is fine. */
export function fsyncDir(fs: StoreFs, dir: string): Promise<void> {
  return syncFolder(dir, fs);
}

/** A failed step on a fenced path: when the fence is gone, the lock was lost and that is the error. */
async function fenceLost(fs: StoreFs, guard: CommitGuard, e: unknown): Promise<unknown> {
  if (guard.fence && errnoOf(e) === 'ENOENT' && !(await exists(fs, guard.fence.dir).catch(() => true))) return guard.fence.lost();
  return e;
}

/**
 * An atomic write (../lib/atomic-write.ts) with its temp file in the fence when there is one,
 * else beside the target; `guard` runs right before the commit. When the fence is on another
 * device than the target (EXDEV), the write is done again beside the target, guarded by the
 * lock's heartbeat only.
 */
async function fencedWrite(fs: StoreFs, finalPath: string, text: string, guard: CommitGuard, exclusive: boolean): Promise<void> {
  // Without hard links an exclusive create falls back to a rename when the name is free:
  // as exclusive as the bundle lock.
  const opts: AtomicWriteOptions = { fs, beforeCommit: guard, exclusive, noLinks: 'rename' };
  const fence = guard.fence;
  if (fence) {
    try {
      await writeFileAtomic(finalPath, text, { ...opts, dir: fence.dir });
      return;
    } catch (e) {
      if (errnoOf(e) !== 'EXDEV') throw await fenceLost(fs, guard, e);
    }
  }
  await writeFileAtomic(finalPath, text, opts);
}

/**
 * Commits a new file; throws AlreadyExists if the name is taken. On a file system
 * without hard links (FAT, some network shares) it falls back to a rename after an
 * existence check, which is then only as exclusive as the bundle lock.
 */
export async function createExclusive(fs: StoreFs, finalPath: string, text: string, guard: CommitGuard): Promise<void> {
  await fencedWrite(fs, finalPath, text, guard, true);
}

/** Replaces (or creates) a file atomically. */
export async function replaceFile(fs: StoreFs, finalPath: string, text: string, guard: CommitGuard): Promise<void> {
  await fencedWrite(fs, finalPath, text, guard, false);
}

/** Removes a file for good (the folder is fsynced after); false when it was not there. */
export async function removeFile(fs: StoreFs, file: string, guard: CommitGuard): Promise<boolean> {
  guard();
  let doomed = file;
  if (guard.fence) {
    // Moved into the fence first, so a holder that lost its lock cannot remove a newer file.
    doomed = path.join(guard.fence.dir, path.basename(tempPathFor(file)));
    try {
      await fs.rename(file, doomed);
    } catch (e) {
      const why = await fenceLost(fs, guard, e);
      if (why !== e) throw why;
      if (errnoOf(e) === 'ENOENT') return false;
      if (errnoOf(e) !== 'EXDEV') throw e;
      doomed = file;
    }
  }
  try {
    await fs.unlink(doomed);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT' && doomed === file) return false;
    throw e;
  }
  await fsyncDir(fs, path.dirname(file));
  return true;
}

/** Whether `file` exists, through the store's fs. */
export function exists(fs: StoreFs, file: string): Promise<boolean> {
  return fileExists(file, fs);
}

/** Pretty, stable JSON: people read and diff these files. */
export function toFileText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** Entries of a folder, or none if it does not exist. */
export async function listDir(fs: StoreFs, dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).sort();
  } catch (e) {
    if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return [];
    throw e;
  }
}

/** Runs an fs step; a raw fs error becomes UNAVAILABLE naming the action and the file. */
export async function attempt<T>(action: string, file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw ioError(action, file, e);
  }
}
