/**
 * Atomic file writes: a reader sees the old file or the new one, never a part of it.
 *
 * 1. A complete temp file is written and fsynced (writeTemp), by default beside the target
 *    so the commit is a rename within one folder.
 * 2. It is committed: rename(temp, target) replaces; link(temp, target) creates exclusively,
 *    failing when the name is taken (linkExclusive), so two writers never take one name.
 * 3. The folder is fsynced, so an acknowledged write survives a power cut.
 *
 * writeFileAtomic does the three steps; writeTemp and linkExclusive are the steps for a
 * caller that commits one temp file under several names in turn. The fs is a parameter so
 * tests can make any step fail (a full disk, a refused permission).
 */
import { randomBytes } from 'node:crypto';
import { constants as FS } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errnoOf } from './errno';

/** The fs functions an atomic write uses. */
export type AtomicFs = Pick<typeof fsp, 'open' | 'rename' | 'link' | 'unlink' | 'stat'>;

/** What to write: text (UTF-8), bytes, or a function that writes into the open file. */
export type Content = string | Uint8Array | ((fh: FileHandle) => Promise<void>);

/** The target of an exclusive create already exists. */
export class AlreadyExists extends Error {
  constructor(readonly path: string) {
    super(`${path} already exists`);
  }
}

/** O_NOFOLLOW where the platform has it (not on Windows): a symlink swapped in is not followed. */
const NOFOLLOW = FS.O_NOFOLLOW ?? 0;

/** link() errors that mean the file system has no hard links (FAT, some network shares). */
const NO_HARD_LINKS = new Set(['ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EPERM', 'EXDEV']);

/** Long names are cut so the temp name stays within the file system's limit on a name. */
const NAME_CHARS = 100;

/**
 * `.<name>.tmp-<pid>-<12 hex>` beside `target`: the pid lets a sweep tell a dead writer's
 * leftover from a live writer's file in progress (see store/layout.ts).
 */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target).slice(0, NAME_CHARS)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
}

/** The ending of markedTempPath's names. */
export const MARKED_TEMP_SUFFIX = '.toolsmith-tmp';

/** `.<name>.<12 hex>.toolsmith-tmp` beside `target`: in a user's folder, listings hide names with this ending. */
export function markedTempPath(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target).slice(0, NAME_CHARS)}.${randomBytes(6).toString('hex')}${MARKED_TEMP_SUFFIX}`);
}

export interface TempOptions {
  /** Default: node's fs. */
  fs?: AtomicFs;
  /** The temp file's folder; default the target's (a rename across folders of one device is atomic too). */
  dir?: string;
  /** Makes the temp path from the target's; default tempPathFor. */
  tempPath?: (target: string) => string;
  /** Permission bits of the new file; default 0644 (less the umask). */
  mode?: number;
  /** Sets `mode` exactly, whatever the umask, before the first byte (0600 for a private file). */
  exactMode?: boolean;
}

async function writeInto(fh: FileHandle, content: Content): Promise<void> {
  if (typeof content === 'string') await fh.writeFile(content, 'utf8');
  else if (content instanceof Uint8Array) await fh.writeFile(content);
  else await content(fh);
}

/** Opens `file` with `flags`, writes `content`, fsyncs and closes it; a failure removes the file. */
async function fillFile(fs: AtomicFs, file: string, flags: string | number, content: Content, opts: TempOptions): Promise<void> {
  const mode = opts.mode ?? 0o644;
  const handle = await fs.open(file, flags, mode);
  try {
    if (opts.exactMode) await handle.chmod(mode);
    await writeInto(handle, content);
    await handle.sync();
  } catch (e) {
    await handle.close().catch(() => undefined);
    await fs.unlink(file).catch(() => undefined);
    throw e;
  }
  await handle.close();
}

/** Writes a complete, fsynced temp file for `target` (exclusive create of a fresh name) and returns its path. */
export async function writeTemp(target: string, content: Content, opts: TempOptions = {}): Promise<string> {
  const fs = opts.fs ?? fsp;
  const named = (opts.tempPath ?? tempPathFor)(target);
  const temp = opts.dir === undefined ? named : path.join(opts.dir, path.basename(named));
  await fillFile(fs, temp, 'wx', content, opts);
  return temp;
}

export interface LinkOptions extends TempOptions {
  /** Called right before the commit; throws to stop it (a lock found lost). */
  beforeCommit?: () => void;
  /**
   * Where the file system has no hard links:
   * - 'claim' (default): the name is created with O_EXCL and `content` written into it:
   *   still exclusive, but a reader may see the file while it is being written;
   * - 'rename': the temp file is renamed to the name when it is absent: atomic, but only as
   *   exclusive as a lock the caller holds.
   */
  noLinks?: 'claim' | 'rename';
}

/**
 * Commits `temp` as `target` only if that name is free: link(2), which fails when the name
 * is taken (AlreadyExists). The temp file is left for the caller to remove. `content` is
 * what the temp file holds (written again by the 'claim' fallback).
 */
export async function linkExclusive(temp: string, target: string, content: Content, opts: LinkOptions = {}): Promise<void> {
  const fs = opts.fs ?? fsp;
  opts.beforeCommit?.();
  try {
    await fs.link(temp, target);
    return;
  } catch (e) {
    const code = errnoOf(e) ?? '';
    if (code === 'EEXIST') throw new AlreadyExists(target);
    // Across folders EXDEV means another device, not a file system without hard links.
    if (!NO_HARD_LINKS.has(code) || (code === 'EXDEV' && path.dirname(temp) !== path.dirname(target))) throw e;
  }
  if (opts.noLinks === 'rename') {
    if (await exists(target, fs)) throw new AlreadyExists(target);
    opts.beforeCommit?.();
    await fs.rename(temp, target);
    return;
  }
  try {
    await fillFile(fs, target, FS.O_WRONLY | FS.O_CREAT | FS.O_EXCL | NOFOLLOW, content, opts);
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') throw new AlreadyExists(target);
    throw e;
  }
}

/** Makes a rename or link in `dir` durable. Some platforms cannot fsync a folder; that is fine. */
export async function fsyncDir(dir: string, fs: Pick<AtomicFs, 'open'> = fsp): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows and some network file systems refuse to open or fsync a folder.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

export interface AtomicWriteOptions extends LinkOptions {
  /** Create only: AlreadyExists when the target exists (see linkExclusive). Default: replace or create. */
  exclusive?: boolean;
  /** A replaced file keeps its permission bits (an executable script stays executable). */
  keepMode?: boolean;
  /** fsync the target's folder after the commit; default true. */
  syncDir?: boolean;
}

/** Writes `content` to `target` atomically: see the file comment. */
export async function writeFileAtomic(target: string, content: Content, opts: AtomicWriteOptions = {}): Promise<void> {
  const fs = opts.fs ?? fsp;
  let tempOpts: TempOptions = opts;
  if (opts.keepMode && !opts.exclusive) {
    const old = await fs.stat(target).catch(() => undefined);
    if (old?.isFile()) tempOpts = { ...opts, mode: old.mode & 0o777, exactMode: true };
  }
  const temp = await writeTemp(target, content, tempOpts);
  let renamed = false;
  try {
    if (opts.exclusive) await linkExclusive(temp, target, content, opts);
    else {
      opts.beforeCommit?.();
      await fs.rename(temp, target);
      renamed = true;
    }
  } finally {
    // After a link, and after any failure; a renamed temp file is gone already.
    if (!renamed) await fs.unlink(temp).catch(() => undefined);
  }
  if (opts.syncDir !== false) await fsyncDir(path.dirname(target), fs);
}

/** Whether `file` exists; errors other than ENOENT are thrown. */
export async function exists(file: string, fs: Pick<AtomicFs, 'stat'> = fsp): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return false;
    throw e;
  }
}
