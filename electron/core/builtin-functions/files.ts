/**
 * The `files` bundle: read, list, grep, write and append inside the workspace folder.
 * Every path goes through resolveInWorkspace (workspace.ts): absolute paths, '..' escapes
 * and symlinks that lead outside are refused with FORBIDDEN. Every size is bounded.
 */
import { constants as FS, type Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { AppError } from '../../../shared/errors';
import type { LocalFunction, LocalToolContext } from '../invoke/types';
import { AlreadyExists, markedTempPath, writeFileAtomic } from '../lib/atomic-write';
import { argsOf, boolArg, checkAborted, enumArg, intArg, optInt, optString, q, reqString } from '../lib/args';
import { compileRegex, escapeRegExp, REGEX_TIME_BUDGET_MS, withRegexSession, type GrepFile, type GrepMatch } from '../lib/safe-regex';
import { utf8CutBefore, utf8SkipContinuation } from '../lib/utf8';
import { fsError, joinRel, openFileInWorkspace, resolveInWorkspace, type WorkspacePath } from '../lib/workspace';

const KiB = 1024;
const MiB = 1024 * KiB;

export interface FilesLimits {
  /** read: the largest maxBytes a caller may ask for. */
  readMaxBytes: number;
  /** read by lines: how far into a file the scan for the lines may go. */
  lineScanMaxBytes: number;
  /** list: names read from one folder at most. */
  listMaxPerFolder: number;
  /** grep: files searched at most. */
  grepMaxFiles: number;
  /** grep: files larger than this are skipped. */
  grepMaxFileBytes: number;
  /** grep: bytes of text searched in total at most. */
  grepMaxTotalBytes: number;
  /** grep: characters of a matching line returned at most. */
  grepMaxLineChars: number;
  /** grep: the time budget of the regex work (a hostile pattern is stopped after it). */
  regexTimeoutMs: number;
  /** write / append: the largest file they may produce. */
  writeMaxFileBytes: number;
  /** list and grep: how deep into sub-folders they go at most. */
  maxDepth: number;
}

export const DEFAULT_FILES_LIMITS: FilesLimits = {
  readMaxBytes: 10 * MiB,
  lineScanMaxBytes: 256 * MiB,
  listMaxPerFolder: 100_000,
  grepMaxFiles: 20_000,
  grepMaxFileBytes: 4 * MiB,
  grepMaxTotalBytes: 64 * MiB,
  grepMaxLineChars: 500,
  regexTimeoutMs: REGEX_TIME_BUDGET_MS,
  writeMaxFileBytes: 64 * MiB,
  maxDepth: 32,
};

/** Folders grep does not descend into (they are rarely what a search means). */
export const GREP_SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** O_NOFOLLOW where the platform has it (not on Windows). */
const NOFOLLOW = FS.O_NOFOLLOW ?? 0;

function signalsOf(ctx: LocalToolContext, signal: AbortSignal | undefined): AbortSignal | undefined {
  const list = [ctx?.signal, signal].filter((s): s is AbortSignal => s instanceof AbortSignal);
  if (list.length === 0) return undefined;
  return list.length === 1 ? list[0] : AbortSignal.any(list);
}

// ---- read ------------------------------------------------------------------------------------

async function readAt(fh: fs.FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await fh.read(buf, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buf : buf.subarray(0, filled);
}

/** The file, opened and checked to be the one inside the workspace (../lib/workspace.ts). */
async function openRegularFile(p: WorkspacePath): Promise<{ fh: fs.FileHandle; size: number }> {
  try {
    const { fh, stat } = await openFileInWorkspace(p, { folder: `${q(p.rel)} is a folder: use listdir to see what it holds` });
    return { fh, size: stat.size };
  } catch (e) {
    throw fsError(e, p.rel);
  }
}

interface ReadOutput {
  path: string;
  encoding: 'utf8' | 'base64';
  content: string;
  bytes: number;
  totalBytes: number;
  truncated: boolean;
  offset: number;
  nextOffset?: number;
  startLine?: number;
  endLine?: number;
  totalLines?: number;
}

function encode(buf: Uint8Array, encoding: 'utf8' | 'base64'): string {
  return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString(encoding);
}

async function readBytes(fh: fs.FileHandle, size: number, offset: number, length: number | undefined, maxBytes: number, encoding: 'utf8' | 'base64') {
  const start = Math.min(offset, size);
  const wanted = Math.max(0, Math.min(length ?? Number.MAX_SAFE_INTEGER, size - start));
  const take = Math.min(wanted, maxBytes);
  let buf: Uint8Array = await readAt(fh, start, take);
  let from = start;
  if (encoding === 'utf8') {
    const skip = start > 0 ? utf8SkipContinuation(buf) : 0;
    from += skip;
    buf = buf.subarray(skip);
    if (from + buf.length < size) buf = buf.subarray(0, utf8CutBefore(buf, buf.length));
  }
  // Truncated: a part of the asked range (or of the rest of the file) is not in the answer.
  const end = from + buf.length;
  const truncated = end < start + wanted;
  return { buf, offset: from, truncated, nextOffset: truncated ? end : undefined };
}

async function readLines(
  fh: fs.FileHandle,
  size: number,
  startLine: number,
  endLine: number,
  maxBytes: number,
  scanMax: number,
  signal: AbortSignal | undefined,
): Promise<{ buf: Uint8Array; offset: number; endLine: number; truncated: boolean; totalLines?: number }> {
  const CHUNK = 256 * KiB;
  let line = 1;
  let pos = 0;
  let startOffset = startLine === 1 ? 0 : -1;
  let endOffset = -1; // exclusive end of line endLine
  while (pos < size && endOffset < 0) {
    checkAborted(signal);
    if (pos >= scanMax) {
      if (startOffset < 0) {
        throw new AppError('PAYLOAD_TOO_LARGE', `line ${startLine} is beyond the first ${scanMax / MiB} MiB of the file: read it by byte offset instead`);
      }
      break;
    }
    const chunk = await readAt(fh, pos, Math.min(CHUNK, size - pos));
    if (chunk.length === 0) break;
    let i = chunk.indexOf(10);
    while (i >= 0) {
      // the '\n' at pos+i ends `line`
      if (line === endLine) {
        endOffset = pos + i + 1;
        break;
      }
      line++;
      if (line === startLine) startOffset = pos + i + 1;
      i = chunk.indexOf(10, i + 1);
    }
    pos += chunk.length;
    if (startOffset >= 0 && endOffset < 0 && pos - startOffset > maxBytes) break; // enough for the answer
  }
  const reachedEof = endOffset < 0 && pos >= size;
  // Lines counted when the scan reached the end: the last line may lack a '\n'.
  const totalLines = reachedEof ? (size === 0 ? 0 : line - (await lastByteIsNewline(fh, size) ? 1 : 0)) : undefined;
  if (startOffset < 0 || startOffset >= size) {
    return { buf: new Uint8Array(0), offset: startOffset < 0 ? size : startOffset, endLine: startLine - 1, truncated: false, totalLines };
  }
  const end = endOffset >= 0 ? endOffset : Math.min(size, pos);
  const want = end - startOffset;
  if (want <= maxBytes) {
    const buf = await readAt(fh, startOffset, want);
    const lines = countLines(buf);
    const more = endOffset < 0 && !reachedEof; // scan stopped early (scan limit)
    return { buf, offset: startOffset, endLine: startLine + lines - 1, truncated: more, totalLines };
  }
  // Too much: whole lines that fit, or a part of one line when even the first does not fit.
  let buf: Uint8Array = await readAt(fh, startOffset, maxBytes);
  const lastNl = buf.lastIndexOf(10);
  buf = lastNl >= 0 ? buf.subarray(0, lastNl + 1) : buf.subarray(0, utf8CutBefore(buf, buf.length));
  return { buf, offset: startOffset, endLine: startLine + countLines(buf) - 1, truncated: true, totalLines };
}

async function lastByteIsNewline(fh: fs.FileHandle, size: number): Promise<boolean> {
  const b = await readAt(fh, size - 1, 1);
  return b[0] === 10;
}

/** Lines in a buffer that starts at a line start: a final line without '\n' counts too. */
function countLines(buf: Uint8Array): number {
  if (buf.length === 0) return 0;
  let n = 0;
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) n++;
  return buf[buf.length - 1] === 10 ? n : n + 1;
}

function makeRead(limits: FilesLimits): LocalFunction {
  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    const sig = signalsOf(ctx, signal);
    const p = await resolveInWorkspace(ctx?.workspaceDir, args.path);
    const maxBytes = intArg(args, 'maxBytes', 1, limits.readMaxBytes, Math.min(MiB, limits.readMaxBytes));
    const encoding = enumArg(args, 'encoding', ['utf8', 'base64'] as const, 'utf8');
    const startLine = optInt(args, 'startLine', 1, Number.MAX_SAFE_INTEGER);
    const endLine = optInt(args, 'endLine', 1, Number.MAX_SAFE_INTEGER);
    const offset = optInt(args, 'offset', 0, Number.MAX_SAFE_INTEGER);
    const length = optInt(args, 'length', 0, Number.MAX_SAFE_INTEGER);
    const byLines = startLine !== undefined || endLine !== undefined;
    if (byLines && (offset !== undefined || length !== undefined)) {
      throw new AppError('VALIDATION_FAILED', 'give either a line range (startLine, endLine) or a byte range (offset, length), not both');
    }
    if (startLine !== undefined && endLine !== undefined && endLine < startLine) {
      throw new AppError('VALIDATION_FAILED', `endLine (${endLine}) is before startLine (${startLine})`, { field: 'endLine' });
    }
    checkAborted(sig);
    const { fh, size } = await openRegularFile(p);
    try {
      let out: ReadOutput;
      if (byLines) {
        const first = startLine ?? 1;
        const r = await readLines(fh, size, first, endLine ?? Number.MAX_SAFE_INTEGER, maxBytes, limits.lineScanMaxBytes, sig);
        out = {
          path: p.rel,
          encoding,
          content: encode(r.buf, encoding),
          bytes: r.buf.length,
          totalBytes: size,
          truncated: r.truncated,
          offset: r.offset,
          startLine: first,
          endLine: r.endLine,
        };
        if (r.truncated) out.nextOffset = r.offset + r.buf.length;
        if (r.totalLines !== undefined) out.totalLines = r.totalLines;
      } else {
        const r = await readBytes(fh, size, offset ?? 0, length, maxBytes, encoding);
        out = { path: p.rel, encoding, content: encode(r.buf, encoding), bytes: r.buf.length, totalBytes: size, truncated: r.truncated, offset: r.offset };
        if (r.nextOffset !== undefined) out.nextOffset = r.nextOffset;
      }
      return out;
    } catch (e) {
      throw fsError(e, p.rel);
    } finally {
      await fh.close();
    }
  };
}

// ---- walking folders -------------------------------------------------------------------------

type Kind = 'file' | 'folder' | 'symlink' | 'other';

function kindOf(d: Dirent): Kind {
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isDirectory()) return 'folder';
  if (d.isFile()) return 'file';
  return 'other';
}

/** Up to `cap` entries of one folder, sorted by name; `more` when the folder holds more. */
async function readFolder(abs: string, cap: number): Promise<{ entries: Dirent[]; more: boolean }> {
  const dir = await fs.opendir(abs, { bufferSize: 256 });
  const entries: Dirent[] = [];
  let more = false;
  try {
    for await (const d of dir) {
      if (entries.length >= cap) {
        more = true;
        break;
      }
      entries.push(d);
    }
  } finally {
    await dir.close().catch(() => undefined);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { entries, more };
}

interface WalkItem {
  abs: string;
  rel: string;
  depth: number;
}

/** One folder of a walk: its entries (up to the cap), whether it held more, and how to queue a sub-folder. */
interface WalkStep<T extends WalkItem> {
  folder: T;
  entries: Dirent[];
  more: boolean;
  enter(item: T): void;
}

/**
 * Walks folders breadth first from `root` (a cut-off walk still shows the top of the tree),
 * reading each with readFolder; the caller queues the sub-folders it wants with `enter`. A
 * sub-folder that vanished or cannot be read is passed over; the root's failure is thrown.
 */
async function* walkFolders<T extends WalkItem>(root: T, maxPerFolder: number, signal: AbortSignal | undefined): AsyncGenerator<WalkStep<T>> {
  const queue: T[] = [root];
  const enter = (item: T) => void queue.push(item);
  for (let head = 0; head < queue.length; head++) {
    checkAborted(signal);
    const folder = queue[head]!;
    let listing;
    try {
      listing = await readFolder(folder.abs, maxPerFolder);
    } catch (e) {
      if (head === 0) throw fsError(e, root.rel);
      continue; // a sub-folder that vanished or cannot be read
    }
    yield { folder, entries: listing.entries, more: listing.more, enter };
  }
}

// ---- list ------------------------------------------------------------------------------------

interface ListEntry {
  path: string;
  kind: Kind;
  size?: number;
}

async function requireFolder(p: WorkspacePath): Promise<void> {
  let st;
  try {
    st = await fs.stat(p.abs);
  } catch (e) {
    throw fsError(e, p.rel);
  }
  if (!st.isDirectory()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is a file, not a folder: use readfile to read it`);
}

function makeList(limits: FilesLimits): LocalFunction {
  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    const sig = signalsOf(ctx, signal);
    const p = await resolveInWorkspace(ctx?.workspaceDir, optString(args, 'path') ?? '.', { allowRoot: true });
    const recursive = boolArg(args, 'recursive', false);
    const maxEntries = intArg(args, 'maxEntries', 1, 10_000, 1000);
    const maxDepth = recursive ? intArg(args, 'maxDepth', 1, limits.maxDepth, limits.maxDepth) : 1;
    await requireFolder(p);
    const entries: ListEntry[] = [];
    let truncated = false;
    walk: for await (const { folder, entries: listed, more, enter } of walkFolders<WalkItem>({ abs: p.abs, rel: p.rel, depth: 1 }, limits.listMaxPerFolder, sig)) {
      if (more) truncated = true;
      for (const d of listed) {
        if (entries.length >= maxEntries) {
          truncated = true;
          break walk;
        }
        const abs = path.join(folder.abs, d.name);
        const rel = joinRel(folder.rel, d.name);
        const kind = kindOf(d);
        const entry: ListEntry = { path: rel, kind };
        if (kind === 'file') {
          try {
            entry.size = (await fs.lstat(abs)).size;
          } catch {
            /* vanished: listed without a size */
          }
        }
        entries.push(entry);
        // Symlinked folders are listed, never entered: they may lead outside, or loop.
        if (kind === 'folder' && recursive) {
          if (folder.depth < maxDepth) enter({ abs, rel, depth: folder.depth + 1 });
          else truncated = true;
        }
      }
    }
    return { path: p.rel, entries, truncated };
  };
}

// ---- grep ------------------------------------------------------------------------------------

async function readTextFile(abs: string, maxBytes: number): Promise<{ text?: string; skip?: 'large' | 'binary' | 'unreadable' }> {
  let fh;
  try {
    fh = await fs.open(abs, FS.O_RDONLY | NOFOLLOW);
  } catch {
    return { skip: 'unreadable' };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { skip: 'unreadable' };
    if (st.size > maxBytes) return { skip: 'large' };
    const buf = await readAt(fh, 0, st.size);
    if (buf.subarray(0, 8192).includes(0)) return { skip: 'binary' };
    return { text: buf.toString('utf8') };
  } catch {
    return { skip: 'unreadable' };
  } finally {
    await fh.close();
  }
}

function makeGrep(limits: FilesLimits): LocalFunction {
  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    const sig = signalsOf(ctx, signal);
    const pattern = reqString(args, 'pattern', 1000);
    if (pattern === '') throw new AppError('VALIDATION_FAILED', 'pattern must not be empty', { field: 'pattern' });
    const literal = !boolArg(args, 'regex', true);
    const ignoreCase = boolArg(args, 'ignoreCase', false);
    const maxMatches = intArg(args, 'maxMatches', 1, 10_000, 200);
    const glob = optString(args, 'glob', 1000);
    const source = literal ? escapeRegExp(pattern) : pattern;
    const useFlags = ignoreCase ? 'i' : '';
    compileRegex(source, useFlags);
    let isMatch: ((rel: string) => boolean) | undefined;
    if (glob !== undefined && glob !== '') {
      try {
        const matcher = picomatch(glob, { dot: true });
        // A glob without '/' matches file names anywhere (as in ripgrep's -g).
        isMatch = glob.includes('/') ? matcher : (rel) => matcher(path.posix.basename(rel));
      } catch (e) {
        throw new AppError('VALIDATION_FAILED', `invalid glob ${q(glob)}: ${(e as Error).message}`, { field: 'glob' });
      }
    }

    const p = await resolveInWorkspace(ctx?.workspaceDir, optString(args, 'path') ?? '.', { allowRoot: true });
    let st;
    try {
      st = await fs.stat(p.abs);
    } catch (e) {
      throw fsError(e, p.rel);
    }

    const matches: GrepMatch[] = [];
    let truncated = false;
    let filesSearched = 0;
    let filesSkipped = 0;
    let totalBytes = 0;

    return withRegexSession({ timeoutMs: ctx?.regexTimeLimitMs ?? limits.regexTimeoutMs, signal: sig }, async (session) => {
      let batch: GrepFile[] = [];
      let batchBytes = 0;
      const flush = async (): Promise<boolean> => {
        if (batch.length === 0) return true;
        const r = await session.run({ kind: 'grep', pattern: source, flags: useFlags, files: batch, maxMatches: maxMatches - matches.length, maxLineChars: limits.grepMaxLineChars });
        matches.push(...r.matches);
        batch = [];
        batchBytes = 0;
        if (r.more || matches.length >= maxMatches) {
          truncated ||= r.more;
          return false;
        }
        return true;
      };
      /** false when the search is over (enough matches, or a limit reached). */
      const addFile = async (abs: string, rel: string, relToBase: string): Promise<boolean> => {
        if (isMatch && !isMatch(relToBase)) return true;
        if (filesSearched + filesSkipped >= limits.grepMaxFiles) {
          truncated = true;
          return false;
        }
        const r = await readTextFile(abs, limits.grepMaxFileBytes);
        if (r.text === undefined) {
          filesSkipped++;
          return true;
        }
        if (totalBytes + r.text.length > limits.grepMaxTotalBytes) {
          truncated = true;
          return false;
        }
        totalBytes += r.text.length;
        filesSearched++;
        batch.push({ path: rel, text: r.text });
        batchBytes += r.text.length;
        if (batchBytes >= 4 * MiB) return flush();
        return true;
      };

      let going = true;
      if (!st.isDirectory()) {
        if (!st.isFile()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is not a regular file or folder`);
        going = await addFile(p.abs, p.rel, path.posix.basename(p.rel));
      } else {
        const root = { abs: p.abs, rel: p.rel, relToBase: '', depth: 1 };
        for await (const { folder, entries, more, enter } of walkFolders(root, limits.listMaxPerFolder, sig)) {
          if (more) truncated = true;
          for (const d of entries) {
            const abs = path.join(folder.abs, d.name);
            const rel = joinRel(folder.rel, d.name);
            const relToBase = folder.relToBase === '' ? d.name : `${folder.relToBase}/${d.name}`;
            if (d.isDirectory()) {
              if (GREP_SKIPPED_FOLDERS.has(d.name)) continue;
              if (folder.depth < limits.maxDepth) enter({ abs, rel, relToBase, depth: folder.depth + 1 });
              else truncated = true;
            } else if (d.isFile()) {
              // Symlinks are not followed: they may lead outside the workspace.
              going = await addFile(abs, rel, relToBase);
              if (!going) break;
            }
          }
          if (!going) break;
        }
      }
      if (going) await flush();
      return { matches: matches.slice(0, maxMatches), truncated, filesSearched, filesSkipped };
    });
  };
}

// ---- write and append ------------------------------------------------------------------------

async function existing(abs: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await fs.stat(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The regular file at `p`, or undefined when there is none; a folder or anything else there is refused. */
async function existingFile(p: WorkspacePath): Promise<import('node:fs').Stats | undefined> {
  const st = await existing(p.abs);
  if (st?.isDirectory()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is a folder`);
  if (st && !st.isFile()) throw new AppError('VALIDATION_FAILED', `${q(p.rel)} is not a regular file`);
  return st;
}

async function ensureParent(p: WorkspacePath, createFolders: boolean): Promise<void> {
  const parent = path.dirname(p.abs);
  const st = await existing(parent).catch((e) => {
    throw fsError(e, path.posix.dirname(p.rel));
  });
  if (st?.isDirectory()) return;
  if (st) throw new AppError('VALIDATION_FAILED', `${q(path.posix.dirname(p.rel))} is a file, not a folder`);
  if (!createFolders) throw new AppError('NOT_FOUND', `the folder ${q(path.posix.dirname(p.rel))} does not exist (set createFolders to create it)`);
  try {
    await fs.mkdir(parent, { recursive: true });
  } catch (e) {
    throw fsError(e, path.posix.dirname(p.rel));
  }
}

/** Temp files beside the target, named so workspace listings can hide them (../lib/atomic-write.ts). */
const TEMP = { tempPath: markedTempPath } as const;

/** Creates `abs` with `data`, atomically and only if it does not exist (temp file + link). */
async function createExclusive(abs: string, data: Buffer, rel: string): Promise<void> {
  try {
    await writeFileAtomic(abs, data, { ...TEMP, exclusive: true });
  } catch (e) {
    if (e instanceof AlreadyExists) throw new AppError('CONFLICT', `${q(rel)} already exists: use mode 'replace' to overwrite it`, { rule: 'exists' });
    throw e;
  }
}

function makeWrite(limits: FilesLimits): LocalFunction {
  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    const sig = signalsOf(ctx, signal);
    const content = reqString(args, 'content');
    const mode = enumArg(args, 'mode', ['create', 'replace'] as const, 'create');
    const createFolders = boolArg(args, 'createFolders', true);
    const data = Buffer.from(content, 'utf8');
    if (data.length > limits.writeMaxFileBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `the content is ${data.length} bytes: a file may be at most ${limits.writeMaxFileBytes} bytes`);
    }
    const p = await resolveInWorkspace(ctx?.workspaceDir, args.path);
    checkAborted(sig);
    try {
      const before = await existingFile(p);
      if (before && mode === 'create') throw new AppError('CONFLICT', `${q(p.rel)} already exists: use mode 'replace' to overwrite it`, { rule: 'exists' });
      await ensureParent(p, createFolders);
      if (mode === 'create') await createExclusive(p.abs, data, p.rel);
      else await writeFileAtomic(p.abs, data, { ...TEMP, keepMode: true });
      await ctx?.wrote?.(p.rel, ctx.ownerId);
      return { path: p.rel, bytes: data.length, mode, created: before === undefined };
    } catch (e) {
      throw fsError(e, p.rel);
    }
  };
}

function makeAppend(limits: FilesLimits): LocalFunction {
  return async (ctx, rawArgs, signal) => {
    const args = argsOf(rawArgs);
    const sig = signalsOf(ctx, signal);
    const content = reqString(args, 'content');
    const separator = optString(args, 'separator', 100) ?? '';
    const createIfMissing = boolArg(args, 'createIfMissing', true);
    const p = await resolveInWorkspace(ctx?.workspaceDir, args.path);
    checkAborted(sig);
    try {
      const before = await existingFile(p);
      if (!before && !createIfMissing) throw new AppError('NOT_FOUND', `${q(p.rel)} does not exist in the workspace (set createIfMissing to create it)`);
      const data = Buffer.from((before && before.size > 0 ? separator : '') + content, 'utf8');
      const size0 = before?.size ?? 0;
      if (size0 + data.length > limits.writeMaxFileBytes) {
        throw new AppError('PAYLOAD_TOO_LARGE', `appending ${data.length} bytes would make ${q(p.rel)} larger than ${limits.writeMaxFileBytes} bytes`);
      }
      if (!before) await ensureParent(p, true);
      // O_APPEND: one write at the end, whatever else writes the file; O_NOFOLLOW: never a swapped-in symlink.
      const fh = await fs.open(p.abs, FS.O_WRONLY | FS.O_APPEND | FS.O_CREAT | NOFOLLOW, 0o644);
      let size: number;
      try {
        if (data.length > 0) await fh.write(data, 0, data.length);
        await fh.sync();
        size = (await fh.stat()).size;
      } finally {
        await fh.close();
      }
      await ctx?.wrote?.(p.rel, ctx.ownerId);
      return { path: p.rel, bytes: data.length, size, created: before === undefined };
    } catch (e) {
      throw fsError(e, p.rel);
    }
  };
}

export type FilesFunctionName = 'read' | 'list' | 'grep' | 'write' | 'append';

/** The file functions with the given limits (tests shrink them); the registry uses the defaults. */
export function createFileFunctions(limits: Partial<FilesLimits> = {}): Record<FilesFunctionName, LocalFunction> {
  const l = { ...DEFAULT_FILES_LIMITS, ...limits };
  return { read: makeRead(l), list: makeList(l), grep: makeGrep(l), write: makeWrite(l), append: makeAppend(l) };
}
