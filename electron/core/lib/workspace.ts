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
 * The functions then work on the resolved real path, never on the caller's spelling, and
 * open files with O_NOFOLLOW where the platform has it, so a symlink swapped in after the
 * check is not followed either. (A parent folder swapped for a symlink between the check
 * and the open is a race this does not close; the workspace is the user's own folder.)
 */
import fs from 'node:fs/promises';
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
  return realResolve(path.resolve(realParent, await fs.readlink(candidate)), hops);
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
