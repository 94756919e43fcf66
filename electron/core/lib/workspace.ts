/**
 * Paths inside the workspace folder, for the file tools.
 *
 * A path from a caller is relative to the workspace. It is refused with FORBIDDEN when it:
 * - is absolute ('/etc/passwd', 'C:\\x', '\\\\server\\share', 'C:x');
 * - leads out of the workspace with '..' (after lexical normalisation: 'a/../b' is fine,
 *   '../b' and 'a/../../b' are not);
 * - leads out through a symbolic link: the path is resolved with fs.realpath on its deepest
 *   existing ancestor, then each missing component below it is checked in turn, so a
 *   symlinked file, a symlinked parent folder and a dangling symlink (whose target would be
 *   created by a write) are all followed to where they really point.
 * The functions then work on the resolved real path, never on the caller's spelling. Reads
 * open the file with openFileInWorkspace: open first (O_NOFOLLOW, so a symlink swapped in
 * after the check is not followed), then check that the opened descriptor is the file inside
 * the folder (its real path on Linux, else its device and inode against the path's), so a
 * parent folder swapped for a symlink between the check and the open is caught too.
 */
import { constants as FS, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { q } from './args';

export const PATH_MAX_LENGTH = 4096;
const MAX_SYMLINK_HOPS = 40;

export interface WorkspacePath {
  /** The real path of the workspace folder. */
  root: string;
  /** The real path the caller's path resolves to (symlinks followed). */
  abs: string;
  /** The caller's path, normalised, relative to the workspace, with '/' separators; '.' for the root. */
  rel: string;
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** The workspace folder's real path; NOT_FOUND when it does not exist. */
export async function workspaceRoot(workspaceDir: string): Promise<string> {
  if (typeof workspaceDir !== 'string' || workspaceDir === '' || !path.isAbsolute(workspaceDir)) {
    throw new AppError('UNAVAILABLE', 'no workspace folder is set: choose one in Settings');
  }
  try {
    const real = await fs.realpath(workspaceDir);
    if (!(await fs.stat(real)).isDirectory()) throw new AppError('UNAVAILABLE', `the workspace ${q(workspaceDir)} is not a folder`);
    return real;
  } catch (e) {
    if (e instanceof AppError) throw e;
    if (errno(e) === 'ENOENT') throw new AppError('UNAVAILABLE', `the workspace folder ${q(workspaceDir)} does not exist`);
    throw e;
  }
}

export function isInside(root: string, p: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return p.startsWith(prefix);
}

/**
 * The real path of `p` even when its tail does not exist yet: realpath of the deepest
 * existing ancestor, then the missing components appended one by one, following any
 * (dangling) symlink met on the way.
 */
async function realResolve(p: string, hops: { n: number }): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch (e) {
    const code = errno(e);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      if (code === 'ELOOP') throw new AppError('FORBIDDEN', 'the path goes through a loop of symbolic links');
      throw e;
    }
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = await realResolve(parent, hops);
  const candidate = path.join(realParent, path.basename(p));
  let isLink: boolean;
  try {
    isLink = (await fs.lstat(candidate)).isSymbolicLink();
  } catch {
    return candidate;
  }
  if (!isLink) return candidate;
  if (++hops.n > MAX_SYMLINK_HOPS) throw new AppError('FORBIDDEN', 'the path goes through too many symbolic links');
  let target: string;
  try {
    target = await fs.readlink(candidate);
  } catch (e) {
    // It stopped being a link (EINVAL) or went (ENOENT) between the lstat and now: look again (hops bound it).
    const code = errno(e);
    if (code === 'EINVAL' || code === 'ENOENT') return realResolve(p, hops);
    throw e;
  }
  return realResolve(path.resolve(realParent, target), hops);
}

function toPosix(rel: string): string {
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

export interface ResolveOptions {
  /** Allow the workspace folder itself (list, grep); refused for writes. */
  allowRoot?: boolean;
  /** The argument's name, for messages. */
  field?: string;
  /** What the folder is called in messages; default 'the workspace folder'. */
  rootName?: string;
}

/** Resolves a caller's path inside the workspace, or throws FORBIDDEN / VALIDATION_FAILED. */
export async function resolveInWorkspace(workspaceDir: string, input: unknown, opts: ResolveOptions = {}): Promise<WorkspacePath> {
  const field = opts.field ?? 'path';
  const rootName = opts.rootName ?? 'the workspace folder';
  if (typeof input !== 'string') throw new AppError('VALIDATION_FAILED', `${field} must be a string`, { field });
  if (input === '') throw new AppError('VALIDATION_FAILED', `${field} must not be empty (use '.' for the workspace folder)`, { field });
  if (input.length > PATH_MAX_LENGTH) throw new AppError('VALIDATION_FAILED', `${field} may be at most ${PATH_MAX_LENGTH} characters`, { field });
  if (input.includes('\0')) throw new AppError('VALIDATION_FAILED', `${field} must not contain a NUL character`, { field });
  if (path.posix.isAbsolute(input) || path.win32.isAbsolute(input) || /^[A-Za-z]:/.test(input)) {
    throw new AppError('FORBIDDEN', `${q(input)} is an absolute path: give a path relative to ${rootName}`, { field, rule: 'absolute-path' });
  }
  const root = await workspaceRoot(workspaceDir);
  // Normalise separators to the platform's (on POSIX a backslash is an ordinary character).
  const lexical = path.resolve(root, input);
  const relLexical = path.relative(root, lexical);
  if (relLexical === '..' || relLexical.startsWith(`..${path.sep}`) || path.isAbsolute(relLexical)) {
    throw new AppError('FORBIDDEN', `${q(input)} leads outside ${rootName} ('..' may not leave it)`, { field, rule: 'outside-workspace' });
  }
  const abs = await realResolve(lexical, { n: 0 });
  if (!isInside(root, abs)) {
    throw new AppError('FORBIDDEN', `${q(input)} leads outside ${rootName} through a symbolic link`, { field, rule: 'symlink-outside' });
  }
  if (!opts.allowRoot && abs === root) {
    throw new AppError('VALIDATION_FAILED', `${q(input)} is ${rootName} itself: name a file inside it`, { field });
  }
  return { root, abs, rel: relLexical === '' ? '.' : toPosix(relLexical) };
}

/** Joins a workspace-relative path and a child name, as shown to callers. */
export function joinRel(rel: string, name: string): string {
  return rel === '.' ? name : `${rel}/${name}`;
}

/** An fs error as an AppError that names the caller's path. */
export function fsError(e: unknown, rel: string): AppError {
  if (e instanceof AppError) return e;
  switch (errno(e)) {
    case 'ENOENT':
      return new AppError('NOT_FOUND', `${q(rel)} does not exist in the workspace`);
    case 'ENOTDIR':
      return new AppError('NOT_FOUND', `${q(rel)} does not exist in the workspace (a part of it is a file, not a folder)`);
    case 'EISDIR':
      return new AppError('VALIDATION_FAILED', `${q(rel)} is a folder`);
    case 'EACCES':
    case 'EPERM':
      return new AppError('FORBIDDEN', `no permission to access ${q(rel)}`);
    case 'ELOOP':
      return new AppError('FORBIDDEN', `${q(rel)} is a symbolic link that changed after it was checked`);
    case 'ENOSPC':
      return new AppError('UNAVAILABLE', 'the disk is full');
    case 'EROFS':
      return new AppError('FORBIDDEN', 'the workspace is on a read-only file system');
    default:
      return new AppError('INTERNAL', `file error on ${q(rel)}: ${(e as Error).message ?? String(e)}`);
  }
}

/** O_NOFOLLOW and O_NONBLOCK where the platform has them (not on Windows). */
const OPEN_FLAGS = FS.O_RDONLY | (FS.O_NOFOLLOW ?? 0) | (FS.O_NONBLOCK ?? 0);
/** Opens retried when the file changed under the check (an editor's atomic save), before refusing. */
const OPEN_ATTEMPTS = 3;

export interface OpenedFile {
  fh: FileHandle;
  /** fstat of the descriptor: the file that is read, whatever the path names now. */
  stat: Stats;
}

export interface OpenFileOptions {
  /** The message when the path names a folder; default "'x' is a folder". */
  folder?: string;
  /** Ask /proc/self/fd where the descriptor is (default: on Linux); false takes the portable check (tests run both). */
  procFd?: boolean;
}

/**
 * Whether the open descriptor is the file at `p.abs` inside the folder. On Linux the kernel
 * says where the descriptor really is (/proc/self/fd; a file replaced since it was opened is
 * `<path> (deleted)`, still the file that was inside); elsewhere its device and inode must be
 * those at `p.abs` now and `p.abs`'s folder must still be its own real path (no symlink in it).
 */
async function isOpenedInside(fh: FileHandle, p: WorkspacePath, st: Stats, procFd: boolean): Promise<boolean> {
  if (procFd) {
    try {
      const where = await fs.readlink(`/proc/self/fd/${fh.fd}`);
      return where === p.abs || where === `${p.abs} (deleted)`;
    } catch {
      // No /proc: the portable check below.
    }
  }
  try {
    const at = await fs.lstat(p.abs);
    if (at.dev !== st.dev || at.ino !== st.ino) return false;
    return (await fs.realpath(path.dirname(p.abs))) === path.dirname(p.abs) && isInside(p.root, p.abs);
  } catch {
    return false;
  }
}

/**
 * Opens the regular file a resolved path names, for reading: open first, then check that
 * the descriptor is that file inside the folder, so nothing swapped into the path between
 * resolveInWorkspace and the open (a symlink for the file or for a parent folder) is read.
 * A file replaced meanwhile is opened again (a few times) before the read is refused with
 * FORBIDDEN. Errors of the open itself (ENOENT, EACCES, ELOOP) are thrown as they are, for
 * the caller to word (fsError); a folder or a FIFO, device or socket is VALIDATION_FAILED.
 * The caller closes the handle.
 */
export async function openFileInWorkspace(p: WorkspacePath, opts: OpenFileOptions = {}): Promise<OpenedFile> {
  for (let attempt = 1; ; attempt++) {
    // stat before the open: a device is never opened (an open may have effects), and a folder gets its message.
    const before = await fs.stat(p.abs);
    if (before.isDirectory()) throw new AppError('VALIDATION_FAILED', opts.folder ?? `${q(p.rel)} is a folder`);
    if (!before.isFile()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is not a regular file`);
    const fh = await fs.open(p.abs, OPEN_FLAGS);
    let ok = false;
    try {
      const stat = await fh.stat();
      if (stat.isDirectory()) throw new AppError('VALIDATION_FAILED', opts.folder ?? `${q(p.rel)} is a folder`);
      if (!stat.isFile()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is not a regular file`);
      if (await isOpenedInside(fh, p, stat, opts.procFd ?? process.platform === 'linux')) {
        ok = true;
        return { fh, stat };
      }
    } finally {
      if (!ok) await fh.close().catch(() => undefined);
    }
    if (attempt >= OPEN_ATTEMPTS) {
      throw new AppError('FORBIDDEN', `${q(p.rel)} changed while it was being opened (a symbolic link or a folder swapped into its path?): nothing was read; try again`, { rule: 'changed-while-opened' });
    }
  }
}
