/**
 * The store of oversized tool outputs (docs/design/tool-outputs.md, decisions 1, 2, 9, 10, 13).
 *
 * One folder per conversation session, `toolsmith-<sessionId>`, under a base folder set in
 * Settings (default: the OS temp folder). Each stored output is one file whose name is a
 * random UUID: the handle. The file holds exactly the output's bytes. Metadata (bytes, lines,
 * tokens, tool, verbatim arguments JSON, created) is kept in memory with a sparse line index
 * (the buffers' checkpoints) so Read and Grep jump to any line without reading the whole file.
 *
 * Lifetime: an output is kept until its session ends (no TTL, no caps: decisions 2 and 13);
 * `endSession` removes the folder, `close` removes every folder this store made (on exit), and
 * `sweep` removes folders left by a process that is gone (at start). A folder is ours only
 * when it holds the marker file `.toolsmith-tool-output` naming the process that made it.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { Indexer } from '../routing/buffer-index';
import { utf8CutBefore } from '../lib/utf8';
import type { TokenCount, TokenCounter } from '../llm/tokens';

export const MARKER_FILE = '.toolsmith-tool-output';
const FOLDER_PREFIX = 'toolsmith-';
const HANDLE_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface StoredOutput {
  handle: string;
  sessionId: string;
  toolName: string;
  toolId?: string;
  /** The call's arguments as verbatim JSON (decision 17). */
  argsJson: string;
  bytes: number;
  lines: number;
  chars: number;
  tokens: number;
  /** Whether `tokens` was counted by a tokenizer (true) or estimated. */
  tokensExact: boolean;
  createdAt: string;
  /** Flat [char, byte, line, ...] checkpoints, as the buffers keep them. */
  checkpoints: number[];
  newlines: number;
}

/** A stored output being written as it arrives (see ToolOutputStore.beginSync). */
export interface SyncSink {
  handle: string;
  write(chunk: Uint8Array): void;
  finish(): StoredOutput;
  discard(): void;
}

export type OutputSource = string | Uint8Array | AsyncIterable<Uint8Array | string>;

export interface ToolOutputStoreOptions {
  /** The base folder, read at each new session (Settings may change it). */
  baseDir: () => string;
  tokens: TokenCounter;
  now?: () => Date;
  /** The pid written in the marker; a folder whose pid is alive is not swept. */
  pid?: number;
  /** What could not be cleaned up (reported, never fatal). */
  onProblem?: (message: string) => void;
  /** Applied to stored text as it is read back (a body written as it arrived was not redacted yet). */
  redact?: (text: string) => string;
}

export function isHandle(s: unknown): s is string {
  return typeof s === 'string' && HANDLE_RE.test(s);
}

function sessionFolderName(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
  if (!safe) throw new AppError('VALIDATION_FAILED', 'a tool-output session needs an id');
  return FOLDER_PREFIX + safe;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** String pieces of at most this many UTF-16 units: a big string is written in slices, never copied whole. */
const STRING_SLICE = 1 << 20;

async function* chunksOf(src: OutputSource): AsyncIterable<Uint8Array | string> {
  if (typeof src === 'string') {
    for (let i = 0; i < src.length; ) {
      let j = Math.min(src.length, i + STRING_SLICE);
      // Never split a surrogate pair.
      if (j < src.length && (src.charCodeAt(j - 1) & 0xfc00) === 0xd800) j--;
      yield src.slice(i, j);
      i = j;
    }
    return;
  }
  if (src instanceof Uint8Array) {
    yield src;
    return;
  }
  yield* src;
}

/** Feeds the line index in pieces of at most 16 Ki characters (checkpoints stay ~64 KiB apart) and counts tokens. */
function indexInto(ix: Indexer, tok: { add(text: string): void }): (text: string, rawBytes: number) => void {
  return (text, rawBytes) => {
    if (!text) return;
    tok.add(text);
    if (text.length <= 16 * 1024) {
      ix.add(text, rawBytes);
      return;
    }
    // Split the text; the raw bytes are spread by each part's encoded length, the last taking the rest.
    let left = rawBytes;
    for (let i = 0; i < text.length; ) {
      let j = Math.min(text.length, i + 16 * 1024);
      if (j < text.length && (text.charCodeAt(j - 1) & 0xfc00) === 0xd800) j--;
      const part = text.slice(i, j);
      const b = j >= text.length ? left : Math.min(left, Buffer.byteLength(part));
      ix.add(part, b);
      left -= b;
      i = j;
    }
  };
}

async function writeAll(fh: fs.FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.byteLength; ) {
    const { bytesWritten } = await fh.write(bytes, done, bytes.byteLength - done);
    done += bytesWritten;
  }
}

/**
 * Decodes bytes as they arrive, cut at complete UTF-8 characters, and says how many raw bytes
 * each piece of text came from: the line index stays on the file's real byte offsets even when
 * the bytes are not valid UTF-8 (an invalid byte decodes to U+FFFD, three bytes, but counts one).
 */
class ByteTextSplitter {
  private carry: Buffer = Buffer.alloc(0);
  constructor(private readonly emit: (text: string, rawBytes: number) => void) {}
  write(chunk: Uint8Array): void {
    const buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const cut = utf8CutBefore(buf, buf.length);
    if (cut > 0) this.emit(buf.toString('utf8', 0, cut), cut);
    this.carry = Buffer.from(buf.subarray(cut));
  }
  end(): void {
    if (this.carry.length) this.emit(this.carry.toString('utf8'), this.carry.length);
    this.carry = Buffer.alloc(0);
  }
}

export class ToolOutputStore {
  private readonly outputs = new Map<string, StoredOutput>();
  /** sessionId -> folder path, for the sessions this store opened. */
  private readonly folders = new Map<string, string>();
  private readonly listeners = new Set<(sessionId: string) => void>();
  /** Sessions that ended (conversation deleted): nothing is stored for them again. */
  private readonly ended = new Set<string>();

  constructor(private readonly opts: ToolOutputStoreOptions) {}

  /** Called whenever a session's set of outputs changes (created, deleted, ended). */
  onChange(fn: (sessionId: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(sessionId: string): void {
    for (const fn of this.listeners) fn(sessionId);
  }

  /** The session's folder (made on first use, with its marker). */
  async folder(sessionId: string): Promise<string> {
    const known = this.folders.get(sessionId);
    if (known) return known;
    const dir = path.join(this.opts.baseDir(), sessionFolderName(sessionId));
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    await fs.writeFile(path.join(dir, MARKER_FILE), JSON.stringify({ pid: this.opts.pid ?? process.pid, sessionId }) + '\n', { mode: 0o600 });
    this.folders.set(sessionId, dir);
    return dir;
  }

  /**
   * Stores an output (a string, bytes, or a stream of chunks written as they come, never
   * held whole) and answers its metadata. The bytes on disk are exactly the source's.
   */
  async put(sessionId: string, source: OutputSource, meta: { toolName: string; toolId?: string; argsJson: string }, signal?: AbortSignal, tokens: TokenCounter = this.opts.tokens): Promise<StoredOutput> {
    this.refuseEnded(sessionId);
    const dir = await this.folder(sessionId);
    const handle = randomUUID();
    const file = path.join(dir, handle);
    const counts = { chars: 0, bytes: 0, newlines: 0, endsWithNewline: false, checkpoints: [] as number[] };
    const ix = new Indexer(counts);
    const tok = tokens.start();
    const index = indexInto(ix, tok);
    const decoder = new ByteTextSplitter(index);
    const fh = await fs.open(file, 'wx', 0o600);
    let rawBytes = 0;
    let ok = false;
    try {
      for await (const piece of chunksOf(source)) {
        if (signal?.aborted) throw new AppError('CANCELLED', 'storing the tool output was cancelled');
        if (typeof piece === 'string') {
          if (piece === '') continue;
          // Text needs no decoding; bytes held back (an odd mix) come first.
          decoder.end();
          const bytes = Buffer.from(piece, 'utf8');
          await writeAll(fh, bytes);
          rawBytes += bytes.byteLength;
          index(piece, bytes.byteLength);
          continue;
        }
        if (piece.byteLength === 0) continue;
        await writeAll(fh, piece);
        rawBytes += piece.byteLength;
        decoder.write(piece);
      }
      decoder.end();
      ok = true;
    } finally {
      await fh.close();
      if (!ok) await fs.rm(file, { force: true });
    }
    if (this.ended.has(sessionId)) {
      await fs.rm(file, { force: true });
      throw new AppError('CANCELLED', `conversation ${sessionId} was deleted while its output was being stored`);
    }
    return this.record(handle, sessionId, meta, rawBytes, counts, tok.end());
  }

  /** Registers a completely written output: its metadata from the counts taken while writing it. */
  private record(
    handle: string,
    sessionId: string,
    meta: { toolName: string; toolId?: string; argsJson: string },
    bytes: number,
    counts: { chars: number; newlines: number; endsWithNewline: boolean; checkpoints: number[] },
    t: TokenCount,
  ): StoredOutput {
    const stored: StoredOutput = {
      handle,
      sessionId,
      toolName: meta.toolName,
      ...(meta.toolId ? { toolId: meta.toolId } : {}),
      argsJson: meta.argsJson,
      bytes,
      chars: counts.chars,
      newlines: counts.newlines,
      lines: counts.newlines + (counts.chars > 0 && !counts.endsWithNewline ? 1 : 0),
      tokens: t.tokens,
      tokensExact: t.exact,
      createdAt: (this.opts.now?.() ?? new Date()).toISOString(),
      checkpoints: counts.checkpoints,
    };
    this.outputs.set(handle, stored);
    this.changed(sessionId);
    return stored;
  }

  /**
   * A stored output written as it arrives, synchronously (an HTTP body too large to hold in
   * memory): each `write` goes to disk before the next chunk is read, so what is held is one
   * chunk, whatever the size. `finish` answers the metadata; `discard` removes the file.
   */
  beginSync(sessionId: string, meta: { toolName: string; toolId?: string; argsJson: string }, tokens: TokenCounter = this.opts.tokens): SyncSink {
    this.refuseEnded(sessionId);
    let dir = this.folders.get(sessionId);
    if (!dir) {
      dir = path.join(this.opts.baseDir(), sessionFolderName(sessionId));
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(path.join(dir, MARKER_FILE), JSON.stringify({ pid: this.opts.pid ?? process.pid, sessionId }) + '\n', { mode: 0o600 });
      this.folders.set(sessionId, dir);
    }
    const handle = randomUUID();
    const file = path.join(dir, handle);
    const fd = openSync(file, 'wx', 0o600);
    const counts = { chars: 0, bytes: 0, newlines: 0, endsWithNewline: false, checkpoints: [] as number[] };
    const ix = new Indexer(counts);
    const tok = tokens.start();
    const decoder = new ByteTextSplitter(indexInto(ix, tok));
    let raw = 0;
    let open = true;
    const close = () => {
      if (open) closeSync(fd);
      open = false;
    };
    return {
      handle,
      write: (chunk) => {
        if (!open) throw new AppError('CONFLICT', 'this stored output is already finished');
        for (let done = 0; done < chunk.byteLength; ) done += writeSync(fd, chunk, done, chunk.byteLength - done);
        raw += chunk.byteLength;
        decoder.write(chunk);
      },
      finish: () => {
        decoder.end();
        close();
        if (this.ended.has(sessionId)) {
          rmSync(file, { force: true });
          throw new AppError('CANCELLED', `conversation ${sessionId} was deleted while its output was being stored`);
        }
        return this.record(handle, sessionId, meta, raw, counts, tok.end());
      },
      discard: () => {
        close();
        rmSync(file, { force: true });
      },
    };
  }

  /** The output under a handle; NOT_FOUND with a clear message when unknown or its session ended. */
  require(handle: string, sessionId?: string): StoredOutput {
    const o = isHandle(handle) ? this.outputs.get(handle) : undefined;
    if (!o || (sessionId !== undefined && o.sessionId !== sessionId)) {
      throw new AppError('NOT_FOUND', `no stored tool output has the handle "${String(handle).slice(0, 80)}": it is unknown, or its conversation's session ended (handles last until then)`);
    }
    return o;
  }

  get(handle: string): StoredOutput | undefined {
    return isHandle(handle) ? this.outputs.get(handle) : undefined;
  }

  /** The stored file's path (inside the session's folder). */
  filePath(o: StoredOutput): string {
    const dir = this.folders.get(o.sessionId);
    if (!dir) throw new AppError('NOT_FOUND', `the session of handle ${o.handle} has ended`);
    return path.join(dir, o.handle);
  }

  list(sessionId?: string): StoredOutput[] {
    const all = [...this.outputs.values()].filter((o) => sessionId === undefined || o.sessionId === sessionId);
    return all.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  }

  isEmpty(sessionId: string): boolean {
    for (const o of this.outputs.values()) if (o.sessionId === sessionId) return false;
    return true;
  }

  /** Reads a byte range of a stored output (for viewers): at most `length` bytes from `offset`. */
  async readBytes(handle: string, offset: number, length: number): Promise<Buffer> {
    const o = this.require(handle);
    const fh = await fs.open(this.filePath(o), 'r');
    try {
      const n = Math.max(0, Math.min(length, o.bytes - offset));
      const buf = Buffer.alloc(n);
      if (n > 0) await fh.read(buf, 0, n, offset);
      return buf;
    } finally {
      await fh.close();
    }
  }

  /** The whole stored text, read at once (for an `inline` choice the user made). */
  readTextSync(handle: string): string {
    return this.redact(readFileSync(this.filePath(this.require(handle)), 'utf8'));
  }

  /** Removes secret values from text read back from the store (identity without a redactor). */
  redact(text: string): string {
    return this.opts.redact ? this.opts.redact(text) : text;
  }

  /** The whole stored text, for callers that need it in memory (bounded by the caller). */
  stream(handle: string): NodeJS.ReadableStream {
    return createReadStream(this.filePath(this.require(handle)));
  }

  async delete(handle: string): Promise<void> {
    const o = this.require(handle);
    await fs.rm(this.filePath(o), { force: true });
    this.outputs.delete(handle);
    this.changed(o.sessionId);
  }

  private refuseEnded(sessionId: string): void {
    if (this.ended.has(sessionId)) throw new AppError('CANCELLED', `conversation ${sessionId} was deleted: its outputs are no longer kept`);
  }

  /** The session ended (conversation deleted): its folder and handles go, and nothing is stored for it again. */
  async endSession(sessionId: string, final = true): Promise<void> {
    if (final) this.ended.add(sessionId);
    const dir = this.folders.get(sessionId) ?? path.join(this.opts.baseDir(), sessionFolderName(sessionId));
    for (const [h, o] of this.outputs) if (o.sessionId === sessionId) this.outputs.delete(h);
    this.folders.delete(sessionId);
    await fs.rm(dir, { recursive: true, force: true });
    this.changed(sessionId);
  }

  /** On exit: every folder this store made is removed. */
  async close(): Promise<void> {
    const ids = [...this.folders.keys()];
    await Promise.all(ids.map((id) => this.endSession(id, false)));
  }

  /**
   * At start: removes the folders under the base that carry our marker and whose process is
   * gone (a crash or a kill left them). Folders of a running Toolsmith, and anything without
   * the marker, are left alone. Answers how many were removed.
   */
  async sweep(): Promise<number> {
    const base = this.opts.baseDir();
    let names: string[];
    try {
      names = await fs.readdir(base);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!name.startsWith(FOLDER_PREFIX)) continue;
      const dir = path.join(base, name);
      if ([...this.folders.values()].includes(dir)) continue;
      let marker: { pid?: unknown };
      try {
        marker = JSON.parse(await fs.readFile(path.join(dir, MARKER_FILE), 'utf8')) as { pid?: unknown };
      } catch {
        continue;
      }
      const pid = typeof marker.pid === 'number' ? marker.pid : undefined;
      if (pid !== undefined && pid !== (this.opts.pid ?? process.pid) && pidAlive(pid)) continue;
      try {
        await fs.rm(dir, { recursive: true, force: true });
        removed++;
      } catch (e) {
        // A folder that cannot go now (a file held open, a read-only mount) is left for the next start.
        this.opts.onProblem?.(`could not remove the tool-output folder ${dir}: ${(e as Error).message}`);
      }
    }
    return removed;
  }
}
