/**
 * Writes routed content to a file in the workspace (`output=file:PATH`, buffer_ops export).
 *
 * - The path is relative to the workspace and confined to it (../lib/workspace.ts): an
 *   absolute path, a `..` that leaves it, or a symbolic link that points outside is refused
 *   with FORBIDDEN and nothing is written. Missing parent folders are created.
 * - Write modes (docs/design/routing.md), the same as for buffers:
 *   - append (the default): at the end of the file, created when missing; when the file is
 *     not empty and does not end with "\n", a single "\n" is written first. Empty content
 *     writes nothing.
 *   - replace: the whole file, atomically (a complete temp file, fsynced, renamed over it):
 *     a reader sees the old content or the new, never a mix. The file keeps its permission
 *     bits (an executable script stays executable).
 *   - new: a fresh name when the file exists: `out.md` -> `out-2.md`, `out-3.md`, ... The
 *     file is committed with an exclusive create (link of a complete temp file, which fails
 *     when the name is taken), so two writers never pick the same name.
 * - append and replace of one file run one at a time (a lock keyed by the file's real path,
 *   ./path-lock.ts): concurrent tool calls routing to one file never interleave.
 * - Placeholders such as {today} are expanded by the caller, not here.
 *
 * A string is encoded piece by piece into one reusable 1 MiB buffer, so writing a 100 MB
 * string costs about 1 MiB of extra memory, not a second copy of the payload.
 */
import { constants as FS } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import type { WriteMode } from '../../../shared/model/routing';
import { AlreadyExists, fsyncDir, linkExclusive, markedTempPath, writeFileAtomic, writeTemp } from '../lib/atomic-write';
import { errnoOf } from '../lib/errno';
import { KeyedQueue } from '../lib/serial-queue';
import { q } from '../lib/args';
import { fsError, resolveInWorkspace } from '../lib/workspace';
import { lockKey } from './path-lock';

/** O_NOFOLLOW where the platform has it (not on Windows): a symlink swapped in after the check is not followed. */
const NOFOLLOW = FS.O_NOFOLLOW ?? 0;
/** Characters encoded at a time (a piece never ends between the two halves of a surrogate pair). */
export const PIECE_CHARS = 16 * 1024;
const WRITE_BUFFER_BYTES = 1024 * 1024;
/** `new` gives up after this many taken names. */
const MAX_NUMBERED = 10_000;
/**
 * One lock table per process: the file system it guards is shared by every caller, so
 * appends and replaces of one file through any writer in this process never interleave.
 */
const fileLocks = new KeyedQueue();

/** What to write: its size in characters, and how to put its bytes into an open file. */
export interface WriteBody {
  /** UTF-16 code units, as a JS string counts them; 0 means empty. */
  chars: number;
  /** Writes every byte at the file's current position (or at the end for an O_APPEND handle). */
  writeTo(fh: FileHandle): Promise<void>;
}

/** A piece of a string, as written: its characters, its bytes, and where it starts in both. */
export interface PieceInfo {
  text: string;
  charStart: number;
  byteStart: number;
  bytes: number;
}

/** Writes every byte of `data[0, length)` at the current position. */
export async function writeFully(fh: FileHandle, data: Buffer, length: number, position: number | null = null): Promise<void> {
  let done = 0;
  while (done < length) {
    const { bytesWritten } = await fh.write(data, done, length - done, position === null ? null : position + done);
    if (bytesWritten <= 0) throw new Error('the file system accepted no bytes');
    done += bytesWritten;
  }
}

/**
 * Encodes `content` as UTF-8 into `fh`, PIECE_CHARS characters at a time through one
 * reusable buffer; `onPiece` sees each piece (for the buffer store's index). Returns the
 * bytes written.
 */
export async function writeString(fh: FileHandle, content: string, onPiece?: (p: PieceInfo) => void): Promise<number> {
  const buf = Buffer.allocUnsafe(Math.min(WRITE_BUFFER_BYTES, Math.max(64, content.length * 3)));
  let used = 0;
  let total = 0;
  for (let i = 0; i < content.length; ) {
    let end = Math.min(content.length, i + PIECE_CHARS);
    const last = content.charCodeAt(end - 1);
    if (end < content.length && last >= 0xd800 && last <= 0xdbff) end--;
    const text = content.slice(i, end);
    if (buf.length - used < text.length * 3) {
      await writeFully(fh, buf, used);
      used = 0;
    }
    const n = buf.write(text, used, 'utf8');
    onPiece?.({ text, charStart: i, byteStart: total, bytes: n });
    used += n;
    total += n;
    i = end;
  }
  if (used > 0) await writeFully(fh, buf, used);
  return total;
}

/** A string as a write body. */
export function stringBody(content: string): WriteBody {
  return { chars: content.length, writeTo: async (fh) => void (await writeString(fh, content)) };
}

/** `out.md` -> `out-2.md`; `results` -> `results-2`; `.env` -> `.env-2`. */
export function numberedName(base: string, n: number): string {
  const ext = path.extname(base);
  const stem = ext && ext !== base ? base.slice(0, -ext.length) : base;
  return `${stem}-${n}${stem === base ? '' : ext}`;
}

/** Temp files are named so buffer listings of the workspace can hide them (../lib/atomic-write.ts). */
const TEMP = { tempPath: markedTempPath } as const;

/** Replaces (or creates) `abs` atomically with `body`; a file replaced keeps its permission bits. */
export async function replaceAtomically(abs: string, body: WriteBody): Promise<void> {
  await writeFileAtomic(abs, (fh) => body.writeTo(fh), { ...TEMP, keepMode: true });
}

/**
 * Commits `body` under the first free name of `abs`, `abs-2`, `abs-3`... (numberedName),
 * each tried with an exclusive create. Returns the path used.
 */
export async function createNumbered(abs: string, body: WriteBody): Promise<string> {
  const dir = path.dirname(abs);
  const base = path.basename(abs);
  // Letter case is folded only where the file system usually ignores it (macOS, Windows); elsewhere
  // `OUT.md` does not take `out.md`. A name taken after all is caught by the exclusive create.
  const fold = process.platform === 'darwin' || process.platform === 'win32' ? (n: string) => n.toLowerCase() : (n: string) => n;
  const taken = new Set((await fs.readdir(dir).catch(() => [] as string[])).map(fold));
  const content = (fh: FileHandle) => body.writeTo(fh);
  const tmp = await writeTemp(abs, content, TEMP);
  try {
    for (let n = 1; n <= MAX_NUMBERED; n++) {
      const name = n === 1 ? base : numberedName(base, n);
      // Names already there are skipped without a system call.
      if (taken.has(fold(name))) continue;
      const target = path.join(dir, name);
      try {
        await linkExclusive(tmp, target, content);
      } catch (e) {
        if (e instanceof AlreadyExists) continue;
        throw e;
      }
      await fsyncDir(dir);
      return target;
    }
  } finally {
    await fs.unlink(tmp).catch(() => undefined);
  }
  throw new AppError('CONFLICT', `${q(base)} and ${MAX_NUMBERED - 1} numbered names after it are all taken`);
}

/** Appends `body` to `abs` (created when missing), after a "\n" when the file does not end with one. */
export async function appendTo(abs: string, body: WriteBody): Promise<void> {
  // O_APPEND: every write lands at the end, whatever else writes the file; O_NOFOLLOW: never a swapped-in symlink.
  const fh = await fs.open(abs, FS.O_RDWR | FS.O_APPEND | FS.O_CREAT | NOFOLLOW, 0o644);
  try {
    if (body.chars === 0) return;
    const { size } = await fh.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await writeFully(fh, Buffer.from('\n'), 1);
    }
    await body.writeTo(fh);
  } finally {
    await fh.close();
  }
}

/** Writes `body` to the workspace-relative `relPath` with `mode`; see the file comment. */
export async function writeWorkspaceBody(workspaceDir: string, relPath: string, body: WriteBody, mode: WriteMode): Promise<{ path: string; chars: number }> {
  const p = await resolveInWorkspace(workspaceDir, relPath);
  try {
    const st = await fs.stat(p.abs).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw e;
    });
    if (st?.isDirectory()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is a folder: name a file`);
    if (st && !st.isFile()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is not a regular file`);
    await fs.mkdir(path.dirname(p.abs), { recursive: true });
    let rel = p.rel;
    if (mode === 'append' || mode === 'replace') {
      // The whole check-and-write under the file's lock: two appends never interleave (path-lock.ts).
      await fileLocks.run(await lockKey(p.abs), () => (mode === 'append' ? appendTo(p.abs, body) : replaceAtomically(p.abs, body)));
    } else {
      // Numbered beside the name as given (never through a symbolic link: link() does not follow one, it is a taken name).
      const dir = path.posix.dirname(p.rel);
      const parent = await resolveInWorkspace(workspaceDir, dir, { allowRoot: true });
      const written = await createNumbered(path.join(parent.abs, path.posix.basename(p.rel)), body);
      rel = dir === '.' ? path.basename(written) : `${dir}/${path.basename(written)}`;
    }
    return { path: rel, chars: body.chars };
  } catch (e) {
    throw fsError(e, p.rel);
  }
}

/**
 * Writes `content` to the workspace-relative `relPath` with `mode`. Returns the relative
 * path actually written ('/' separators; the numbered one for `new`) and the characters.
 */
export function writeWorkspaceFile(workspaceDir: string, relPath: string, content: string, mode: WriteMode): Promise<{ path: string; chars: number }> {
  if (typeof content !== 'string') return Promise.reject(new AppError('VALIDATION_FAILED', 'the content to write must be text'));
  return writeWorkspaceBody(workspaceDir, relPath, stringBody(content), mode);
}
