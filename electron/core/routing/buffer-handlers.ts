/**
 * Buffers and workspace files, for the Inspect screen.
 *
 * - buffers.*: the buffer store of the routing services (ranges, search, export, delete).
 * - workspace.list: the entries of one folder of the workspace, folders first, then by name
 *   (natural order, letter case ignored); symbolic links are listed as such, not followed.
 * - workspace.read: a byte range of a file (default 256 KiB) as UTF-8 text, never split
 *   inside a character at either end; a range holding a NUL byte is reported as binary, with
 *   no text.
 * - workspace.open: the system's application for a file (a host capability; UNAVAILABLE
 *   where the host has none).
 * Every path is relative to the workspace and confined to it (../lib/workspace.ts).
 */
import { constants as FS } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import type { WorkspaceEntry, WorkspaceRead } from '../../../shared/model/routing';
import type { Handler } from '../router';
import type { RoutingServices } from '.';
import { WORKSPACE_LIST_MAX_ENTRIES, WORKSPACE_READ_DEFAULT_BYTES } from './limits';
import { q } from '../lib/args';
import { utf8CutBefore, utf8SkipContinuation } from '../lib/utf8';
import { fsError, joinRel, resolveInWorkspace } from '../lib/workspace';

type BufferOps = 'buffers.list' | 'buffers.read' | 'buffers.search' | 'buffers.export' | 'buffers.delete' | 'workspace.list' | 'workspace.read' | 'workspace.open';

export interface BufferHandlerDeps {
  routing: RoutingServices;
  workspaceDir: () => string;
  /** Opens a file with the system's application; absent where the host cannot (UNAVAILABLE). */
  openPath?: (absPath: string) => Promise<void>;
}

const NOFOLLOW = FS.O_NOFOLLOW ?? 0;
/** Temp files of atomic writes in progress: not shown. */
const TEMP_FILE = /\.toolsmith-tmp$/;
const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

function kindOf(st: import('node:fs').Stats): WorkspaceEntry['kind'] {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'other';
}

async function listFolder(workspaceDir: string, input: string | undefined): Promise<WorkspaceEntry[]> {
  const p = await resolveInWorkspace(workspaceDir, input === undefined || input === '' ? '.' : input, { allowRoot: true });
  let names: string[];
  try {
    const st = await fs.stat(p.abs);
    if (!st.isDirectory()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is a file, not a folder: use workspace.read`);
    names = await fs.readdir(p.abs);
  } catch (e) {
    throw fsError(e, p.rel);
  }
  const entries: WorkspaceEntry[] = [];
  for (const name of names) {
    if (TEMP_FILE.test(name)) continue;
    let st: import('node:fs').Stats;
    try {
      st = await fs.lstat(path.join(p.abs, name));
    } catch {
      continue; // Removed meanwhile.
    }
    entries.push({ name, path: joinRel(p.rel, name), kind: kindOf(st), size: st.isFile() ? st.size : 0, modifiedAt: st.mtime.toISOString() });
  }
  entries.sort((a, b) => Number(b.kind === 'dir') - Number(a.kind === 'dir') || byName.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries.slice(0, WORKSPACE_LIST_MAX_ENTRIES);
}

async function readRange(workspaceDir: string, input: string, offset = 0, length = WORKSPACE_READ_DEFAULT_BYTES): Promise<WorkspaceRead> {
  const p = await resolveInWorkspace(workspaceDir, input);
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(p.abs, FS.O_RDONLY | NOFOLLOW);
  } catch (e) {
    throw fsError(e, p.rel);
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is a folder: use workspace.list`);
    if (!st.isFile()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is not a regular file`);
    if (offset > st.size) throw new AppError('VALIDATION_FAILED', `offset ${offset} is past the end of ${q(p.rel)} (${st.size} bytes)`, { field: 'offset' });
    const want = Math.min(st.size - offset, length);
    const buf = Buffer.allocUnsafe(want);
    let n = 0;
    while (n < want) {
      const { bytesRead } = await fh.read(buf, n, want - n, offset + n);
      if (bytesRead <= 0) break;
      n += bytesRead;
    }
    const bytes = buf.subarray(0, n);
    if (bytes.includes(0)) return { path: p.rel, text: '', offset, totalBytes: st.size, more: offset + n < st.size, binary: true };
    // An offset inside a character starts at the next one; the end is cut before a character the range splits.
    const skip = offset > 0 ? utf8SkipContinuation(bytes) : 0;
    const atEnd = offset + n >= st.size;
    let end = atEnd ? n : utf8CutBefore(bytes, n);
    if (end <= skip) end = n;
    return { path: p.rel, text: bytes.toString('utf8', skip, end), offset: offset + skip, totalBytes: st.size, more: offset + end < st.size, binary: false };
  } catch (e) {
    throw fsError(e, p.rel);
  } finally {
    await fh.close();
  }
}

export function bufferHandlers(deps: BufferHandlerDeps): { [N in BufferOps]: Handler<N> } {
  const buffers = () => deps.routing.buffers;
  return {
    'buffers.list': ({ ownerId }) => buffers().list(ownerId),
    'buffers.read': ({ ownerId, name, ...range }) => buffers().read(ownerId, name, range),
    'buffers.search': ({ ownerId, name, ...opts }, ctx) => buffers().search(ownerId, name, { ...opts, signal: ctx.signal }),
    'buffers.export': ({ ownerId, name, path: dest, writeMode }) => buffers().export(ownerId, name, dest, writeMode ?? 'append'),
    'buffers.delete': async ({ ownerId, name }) => {
      await buffers().delete(ownerId, name);
      return { deleted: true as const };
    },
    'workspace.list': (input) => listFolder(deps.workspaceDir(), input.path),
    'workspace.read': (input) => readRange(deps.workspaceDir(), input.path, input.offset, input.length),
    'workspace.open': async (input) => {
      const open = deps.openPath;
      if (!open) throw new AppError('UNAVAILABLE', 'this host cannot open files with the system\'s applications');
      const p = await resolveInWorkspace(deps.workspaceDir(), input.path, { allowRoot: true });
      try {
        await fs.stat(p.abs);
      } catch (e) {
        throw fsError(e, p.rel);
      }
      await open(p.abs);
      return { opened: true as const };
    },
  };
}
