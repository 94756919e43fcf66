/**
 * Buffers: named texts that routed outputs are written to (`output=variable:NAME`), owned by a
 * conversation or a workflow run (the ownerId), kept as files:
 *
 *   <data>/buffers/<owner>/buf-<name>.txt         the content, UTF-8, exactly as written
 *   <data>/buffers/<owner>/buf-<name>.meta.json   its metadata and sparse index (atomic writes)
 *
 * - Names (BUFFER_NAME_RE) and owner ids are checked before they touch a path. Upper-case
 *   letters are written `!x` in file names, so `Results` and `results` stay two buffers on
 *   case-insensitive file systems; the `buf-` prefix keeps Windows' reserved names (con,
 *   nul...) out of the way.
 * - The sidecar (./buffer-index.ts) holds createdAt, updatedAt, source, chars, bytes, the
 *   newline count and a checkpoint [char, byte, line] at least every 64 KiB, so a read of any
 *   range of a 100 MB buffer reads only the bytes near it. It records the content's size and
 *   mtime: when they no longer match (a crash between the two writes, an edit by hand) or
 *   the sidecar is missing or corrupt, it is rebuilt from the content file.
 * - Write modes (docs/design/routing.md), as for files: append (default; a single "\n" first when
 *   the buffer is not empty and does not end with one), replace, new (`results` -> `results-2`,
 *   `results-3`...). An append only indexes the new text. Strings are encoded piece by piece
 *   (file-writer.ts), so writing 100 MB costs about 1 MiB of extra memory.
 * - Writes of one owner are serialised in this process; a read sees the buffer as it was
 *   when it started: read, readAll, search and export take the metadata and open the
 *   content file together under the owner's lock, then read only through that handle (the
 *   search worker uses its descriptor), never by path. A replace renames a new file over
 *   the path and an append only adds bytes past the recorded size, so the handle keeps
 *   exactly the bytes the metadata describes until it is closed.
 * - deleteOwner (a deleted conversation) remembers the owner for the life of the store:
 *   a later write to it (a cancelled step still finishing) fails with NOT_FOUND instead of
 *   bringing its folder back.
 */
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { BUFFER_NAME_RE, type BufferInfo, type BufferRead, type BufferSearchResult, type WriteMode } from '../../../shared/model/routing';
import type { EventBus } from '../events';
import { KeyedQueue } from '../lib/serial-queue';
import { q } from '../lib/args';
import { bytesAt, emptyMeta, Indexer, isMeta, readCharRange, readLineRange, rebuildMeta, totalLines, type Meta } from './buffer-index';
import { BufferSearcher } from './buffer-search';
import { searchPlan } from './buffer-search-plan';
import { numberedName, replaceAtomically, stringBody, writeFully, writeString, writeWorkspaceBody, type WriteBody } from './file-writer';
import {
  BUFFER_MAX_BYTES,
  BUFFER_READ_ALL_MAX_CHARS,
  BUFFER_READ_MAX_CHARS,
  BUFFER_READ_MAX_LINES,
  BUFFER_SEARCH_MAX_LINE_CHARS,
  BUFFERS_PER_OWNER_MAX,
} from './limits';
import type { BufferReadRange, BufferSearchOptions, BufferStore, BufferWriteResult } from './types';

const COPY_CHUNK_BYTES = 1024 * 1024;
const OWNER_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** `Results` -> `!results`: distinct on case-insensitive file systems, and reversible. */
function encodeKey(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}
function decodeKey(s: string): string {
  return s.replace(/!([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

export interface FileBufferStoreOptions {
  dataDir: string;
  /** The workspace folder, for export (a function when it can change at run time). */
  workspaceDir: string | (() => string);
  now: () => Date;
  /** Receives 'buffers.changed' after each write and delete. */
  events?: EventBus;
  /** Time budget of one search, or where to read it (Settings' regexTimeLimitMs; tests shorten it). */
  searchTimeoutMs?: number | (() => number);
  /** Bytes a search reads at a time (tests make it small). */
  searchWindowBytes?: number;
  /** The most bytes a buffer may hold; default BUFFER_MAX_BYTES (tests make it small). */
  maxBytes?: number;
  /** The largest buffer readAll hands over; default BUFFER_READ_ALL_MAX_CHARS (tests make it small). */
  readAllMaxChars?: number;
  /** Called when a read has taken its snapshot of a buffer and released the lock, before it reads the content (tests change the buffer there). */
  afterSnapshot?: (ownerId: string, name: string) => Promise<void> | void;
}

export class FileBufferStore implements BufferStore {
  private readonly root: string;
  private readonly maxBytes: number;
  private readonly searcher: BufferSearcher;
  private readonly locks = new KeyedQueue();
  /** Owners removed by deleteOwner: a late write (a cancelled step still finishing) must not bring their folder back. */
  private readonly deletedOwners = new Set<string>();
  /** Sidecars read or written by this process, by content path (checked against the file's size and mtime before use). */
  private readonly metas = new Map<string, Meta>();

  constructor(private readonly opts: FileBufferStoreOptions) {
    this.root = path.join(path.resolve(opts.dataDir), 'buffers');
    this.maxBytes = opts.maxBytes ?? BUFFER_MAX_BYTES;
    this.searcher = new BufferSearcher({ timeoutMs: opts.searchTimeoutMs });
  }

  // ---- paths ---------------------------------------------------------------------------------

  private ownerDir(ownerId: string): string {
    if (typeof ownerId !== 'string' || !OWNER_ID_RE.test(ownerId)) {
      throw new AppError('VALIDATION_FAILED', `owner id ${q(String(ownerId))} is not valid: letters, digits, _ . - (at most 128, starting with a letter or digit)`, { field: 'ownerId' });
    }
    return path.join(this.root, encodeKey(ownerId));
  }

  private files(ownerId: string, name: string): { dir: string; content: string; meta: string } {
    const dir = this.ownerDir(ownerId);
    if (typeof name !== 'string' || !BUFFER_NAME_RE.test(name)) {
      throw new AppError('VALIDATION_FAILED', `buffer name ${q(String(name))} is not valid: letters, digits, _ . - (at most 128, not starting with . or -)`, { field: 'name' });
    }
    const stem = `buf-${encodeKey(name)}`;
    return { dir, content: path.join(dir, `${stem}.txt`), meta: path.join(dir, `${stem}.meta.json`) };
  }

  private workspaceDir(): string {
    const w = this.opts.workspaceDir;
    return typeof w === 'function' ? w() : w;
  }

  private withLock<T>(ownerId: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(ownerId, fn);
  }

  private changed(ownerId: string, names: string[]): void {
    if (names.length) this.opts.events?.emit('buffers.changed', { ownerId, names });
  }

  // ---- metadata ------------------------------------------------------------------------------

  /** The buffer's metadata, rebuilt from the content when the sidecar is missing, corrupt or stale; undefined when there is no buffer. */
  private async loadMeta(ownerId: string, name: string): Promise<Meta | undefined> {
    const f = this.files(ownerId, name);
    let st: import('node:fs').Stats;
    try {
      st = await fs.stat(f.content);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') {
        this.metas.delete(f.content);
        return undefined;
      }
      throw this.ioError('read', name, e);
    }
    const fresh = (m: Meta) => m.fileSize === st.size && m.fileMtimeMs === st.mtimeMs && m.bytes === st.size;
    const cached = this.metas.get(f.content);
    if (cached && fresh(cached)) return cached;
    let stored: Meta | undefined;
    try {
      const v: unknown = JSON.parse(await fs.readFile(f.meta, 'utf8'));
      if (isMeta(v, name)) stored = v;
    } catch {
      // Missing or not JSON: rebuilt below.
    }
    if (stored && fresh(stored)) {
      this.metas.set(f.content, stored);
      return stored;
    }
    const rebuilt = await rebuildMeta(f.content, name, stored ?? { createdAt: st.birthtime.toISOString(), updatedAt: st.mtime.toISOString(), source: 'unknown' });
    await this.saveMeta(f.meta, f.content, rebuilt);
    return rebuilt;
  }

  private async saveMeta(metaPath: string, contentPath: string, m: Meta): Promise<void> {
    const st = await fs.stat(contentPath);
    m.fileSize = st.size;
    m.fileMtimeMs = st.mtimeMs;
    await replaceAtomically(metaPath, stringBody(JSON.stringify(m)));
    this.metas.set(contentPath, m);
  }

  private infoOf(ownerId: string, m: Meta): BufferInfo {
    return { ownerId, name: m.name, chars: m.chars, bytes: m.bytes, lines: totalLines(m), createdAt: m.createdAt, updatedAt: m.updatedAt, source: m.source };
  }

  private async require(ownerId: string, name: string): Promise<Meta> {
    const m = await this.withLock(ownerId, () => this.loadMeta(ownerId, name));
    if (!m) throw new AppError('NOT_FOUND', `there is no buffer ${q(name)}`, { name });
    return m;
  }

  /**
   * The buffer as it is now: its metadata and its content file opened, both under the owner's
   * lock (see the file comment). The caller reads only through `fh` and closes it.
   */
  private async snapshot(ownerId: string, name: string): Promise<{ m: Meta; fh: FileHandle }> {
    const f = this.files(ownerId, name);
    const snap = await this.withLock(ownerId, async () => {
      const m = await this.loadMeta(ownerId, name);
      if (!m) return undefined;
      try {
        return { m, fh: await fs.open(f.content, 'r') };
      } catch (e) {
        if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return undefined;
        throw this.ioError('read', name, e);
      }
    });
    if (!snap) throw new AppError('NOT_FOUND', `there is no buffer ${q(name)}`, { name });
    try {
      await this.opts.afterSnapshot?.(ownerId, name);
    } catch (e) {
      await snap.fh.close();
      throw e;
    }
    return snap;
  }

  private ioError(action: string, name: string, e: unknown): AppError {
    if (e instanceof AppError) return e;
    const code = errnoOf(e);
    if (code === 'ENOSPC') return new AppError('UNAVAILABLE', `could not ${action} buffer ${q(name)}: the disk is full`);
    return new AppError('UNAVAILABLE', `could not ${action} buffer ${q(name)}: ${(e as Error).message ?? String(e)}`, { errno: code });
  }

  // ---- the BufferStore -----------------------------------------------------------------------

  async list(ownerId: string): Promise<BufferInfo[]> {
    const dir = this.ownerDir(ownerId);
    let entries: string[];
    try {
      entries = await fs.readdir(dir);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return [];
      throw this.ioError('list', ownerId, e);
    }
    const names = entries
      .filter((f) => f.startsWith('buf-') && f.endsWith('.txt'))
      .map((f) => decodeKey(f.slice(4, -4)))
      .filter((n) => BUFFER_NAME_RE.test(n))
      .sort();
    const out: BufferInfo[] = [];
    for (const name of names) {
      const m = await this.withLock(ownerId, () => this.loadMeta(ownerId, name));
      if (m) out.push(this.infoOf(ownerId, m));
    }
    return out;
  }

  async info(ownerId: string, name: string): Promise<BufferInfo> {
    return this.infoOf(ownerId, await this.require(ownerId, name));
  }

  async write(ownerId: string, name: string, content: string, mode: WriteMode, source: string): Promise<BufferWriteResult> {
    if (typeof content !== 'string') throw new AppError('VALIDATION_FAILED', 'the content of a buffer must be text');
    if (mode !== 'append' && mode !== 'replace' && mode !== 'new') throw new AppError('VALIDATION_FAILED', `write mode ${q(String(mode))} is not one of append, replace, new`);
    const src = typeof source === 'string' && source !== '' ? source.slice(0, 500) : 'unknown';
    this.files(ownerId, name);
    // Each character is 1 to 3 bytes: past the limit even at 1 byte each, refuse before writing.
    if (content.length > this.maxBytes) throw this.tooLarge(name, content.length);
    this.refuseDeleted(ownerId);
    const result = await this.withLock(ownerId, async () => {
      this.refuseDeleted(ownerId);
      let target = name;
      let existing = await this.loadMeta(ownerId, name);
      if (mode === 'new' && existing) {
        target = await this.freeName(ownerId, name);
        existing = undefined;
      }
      const f = this.files(ownerId, target);
      if (!existing) await this.checkRoom(ownerId, f.dir);
      await fs.mkdir(f.dir, { recursive: true });
      const at = this.opts.now().toISOString();
      try {
        if (existing && mode === 'append') return await this.append(f, existing, content, src, at);
        return await this.create(f, target, content, src, at, mode === 'replace' ? existing?.createdAt : undefined);
      } catch (e) {
        throw this.ioError('write', target, e);
      }
    });
    this.changed(ownerId, [result.name]);
    return { name: result.name, info: this.infoOf(ownerId, result) };
  }

  private refuseDeleted(ownerId: string): void {
    if (this.deletedOwners.has(ownerId)) throw new AppError('NOT_FOUND', 'the conversation was deleted', { ownerId });
  }

  /** A new buffer is refused once the owner has BUFFERS_PER_OWNER_MAX (a runaway `write-mode=new`). */
  private async checkRoom(ownerId: string, dir: string): Promise<void> {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    if (names.filter((f) => f.startsWith('buf-') && f.endsWith('.txt')).length >= BUFFERS_PER_OWNER_MAX) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${q(ownerId)} already has ${fmt(BUFFERS_PER_OWNER_MAX)} buffers, the most one conversation or run may have: delete some first`);
    }
  }

  private tooLarge(name: string, size: number): AppError {
    return new AppError('PAYLOAD_TOO_LARGE', `buffer ${q(name)} would hold ${fmt(size)} bytes or more: a buffer may hold at most ${fmt(this.maxBytes)} bytes`);
  }

  /** `name-2`, `name-3`... (as files are numbered: `data.json` -> `data-2.json`), the first with no buffer. */
  private async freeName(ownerId: string, name: string): Promise<string> {
    for (let n = 2; n < 100_000; n++) {
      const candidate = numberedName(name, n);
      if (!BUFFER_NAME_RE.test(candidate)) break;
      if (!(await this.loadMeta(ownerId, candidate))) return candidate;
    }
    throw new AppError('VALIDATION_FAILED', `no numbered name is free for buffer ${q(name)} (names may be at most 128 characters)`, { field: 'name' });
  }

  /** Writes a whole buffer (a temp file renamed over the old one) and its sidecar. */
  private async create(f: { content: string; meta: string }, name: string, content: string, source: string, at: string, createdAt?: string): Promise<Meta> {
    const m = emptyMeta(name, { createdAt: createdAt ?? at, updatedAt: at, source });
    const ix = new Indexer(m);
    const body: WriteBody = {
      chars: content.length,
      writeTo: async (fh) => {
        await writeString(fh, content, (p) => ix.add(p.text, p.bytes));
      },
    };
    await replaceAtomically(f.content, body);
    if (m.bytes > this.maxBytes) {
      await fs.unlink(f.content).catch(() => undefined);
      throw this.tooLarge(name, m.bytes);
    }
    await this.saveMeta(f.meta, f.content, m);
    return m;
  }

  /** Appends to the content file and extends the index from where it stood. */
  private async append(f: { content: string; meta: string }, old: Meta, content: string, source: string, at: string): Promise<Meta> {
    // Bytes to bytes: the separator, then the content as UTF-8 (1 to 3 bytes a character).
    const adding = content.length === 0 ? 0 : (old.chars > 0 && !old.endsWithNewline ? 1 : 0) + Buffer.byteLength(content, 'utf8');
    if (old.bytes + adding > this.maxBytes) throw this.tooLarge(old.name, old.bytes + adding);
    const m: Meta = { ...old, checkpoints: [...old.checkpoints], updatedAt: at, source };
    if (content.length > 0) {
      const ix = new Indexer(m);
      const fh = await fs.open(f.content, 'a');
      try {
        if (m.chars > 0 && !m.endsWithNewline) {
          await writeFully(fh, Buffer.from('\n'), 1);
          ix.add('\n', 1);
        }
        await writeString(fh, content, (p) => ix.add(p.text, p.bytes));
      } finally {
        await fh.close();
      }
    }
    await this.saveMeta(f.meta, f.content, m);
    return m;
  }

  async read(ownerId: string, name: string, range: BufferReadRange): Promise<BufferRead> {
    const r = range ?? {};
    const byLines = r.startLine !== undefined || r.endLine !== undefined;
    const byChars = r.offset !== undefined || r.length !== undefined;
    const how =
      `ask for a range: startLine and endLine (1-based, inclusive, at most ${fmt(BUFFER_READ_MAX_LINES)} lines) ` +
      `or offset and length (characters, at most ${fmt(BUFFER_READ_MAX_CHARS)})`;
    if (byLines && byChars) throw new AppError('VALIDATION_FAILED', `give either a line range or offset and length, not both: ${how}`);
    if (!byLines && !byChars) throw new AppError('VALIDATION_FAILED', `a buffer is read by range, never whole: ${how}`);
    const { m, fh } = await this.snapshot(ownerId, name);
    try {
      if (byLines) return await readLineRange(fh, m, r.startLine, r.endLine, how);
      return await readCharRange(fh, m, r.offset, r.length, how);
    } finally {
      await fh.close();
    }
  }

  async readAll(ownerId: string, name: string): Promise<string> {
    const { m, fh } = await this.snapshot(ownerId, name);
    try {
      const max = this.opts.readAllMaxChars ?? BUFFER_READ_ALL_MAX_CHARS;
      if (m.chars > max) {
        throw new AppError('PAYLOAD_TOO_LARGE', `buffer ${q(name)} holds ${fmt(m.chars)} characters: at most ${fmt(max)} can be used whole; read it by range with buffer_ops instead`, { name, chars: m.chars });
      }
      return (await bytesAt(fh, 0, m.bytes)).toString('utf8');
    } finally {
      await fh.close();
    }
  }

  async search(ownerId: string, name: string, opts: BufferSearchOptions): Promise<BufferSearchResult> {
    const plan = searchPlan(opts);
    const { m, fh } = await this.snapshot(ownerId, name);
    try {
      // The searcher settles only once the worker is done with the descriptor: closing it then is safe.
      return await this.searcher.search(
        {
          fd: fh.fd,
          bytes: m.bytes,
          totalChars: m.chars,
          totalLines: totalLines(m),
          checkpoints: [0, 0, 1, ...m.checkpoints],
          ...plan,
          maxLineChars: BUFFER_SEARCH_MAX_LINE_CHARS,
          windowBytes: this.opts.searchWindowBytes,
        },
        opts?.signal,
      );
    } finally {
      await fh.close();
    }
  }

  async export(ownerId: string, name: string, workspacePath: string, mode: WriteMode): Promise<{ path: string; chars: number }> {
    const { m, fh: src } = await this.snapshot(ownerId, name);
    const body: WriteBody = {
      chars: m.chars,
      writeTo: async (out) => {
        const buf = Buffer.allocUnsafe(Math.min(COPY_CHUNK_BYTES, Math.max(1, m.bytes)));
        for (let p = 0; p < m.bytes; ) {
          const { bytesRead } = await src.read(buf, 0, Math.min(buf.length, m.bytes - p), p);
          if (bytesRead <= 0) break;
          await writeFully(out, buf, bytesRead);
          p += bytesRead;
        }
      },
    };
    try {
      return await writeWorkspaceBody(this.workspaceDir(), workspacePath, body, mode ?? 'append');
    } finally {
      await src.close();
    }
  }

  async delete(ownerId: string, name: string): Promise<void> {
    const f = this.files(ownerId, name);
    const gone = await this.withLock(ownerId, async () => {
      try {
        await fs.unlink(f.content);
      } catch (e) {
        if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return false;
        throw this.ioError('delete', name, e);
      } finally {
        this.metas.delete(f.content);
      }
      await fs.rm(f.meta, { force: true });
      return true;
    });
    if (!gone) throw new AppError('NOT_FOUND', `there is no buffer ${q(name)}`, { name });
    this.changed(ownerId, [name]);
  }

  /** Removes the owner's buffers; from then on, writes for this owner fail with NOT_FOUND (for the life of the store). */
  async deleteOwner(ownerId: string): Promise<void> {
    const dir = this.ownerDir(ownerId);
    // Before the lock: a write queued behind it fails instead of recreating the folder.
    this.deletedOwners.add(ownerId);
    const names = await this.withLock(ownerId, async () => {
      const list = (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.startsWith('buf-') && f.endsWith('.txt')).map((f) => decodeKey(f.slice(4, -4)));
      await fs.rm(dir, { recursive: true, force: true });
      for (const key of [...this.metas.keys()]) if (key.startsWith(dir + path.sep)) this.metas.delete(key);
      return list;
    });
    this.changed(ownerId, names.sort());
  }

  /** Ends the search workers. */
  async close(): Promise<void> {
    await this.searcher.close();
  }
}
