/**
 * A buffer's sidecar (`buf-<name>.meta.json`): its metadata and sparse index, how the index
 * is built as text is written or rebuilt from the content file, and the range reads that use
 * it.
 *
 * The index is a list of checkpoints [char, byte, line]: a character boundary at least
 * CHECKPOINT_BYTES after the previous one, with its character offset, byte offset and the
 * 1-based line it is on. Finding where line L starts, or where character offset C is, reads
 * only from the nearest checkpoint before it: at most ~112 KiB, whatever the buffer's size.
 * Lines end at "\n"; a trailing newline does not make an extra line.
 */
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { AppError } from '../../../shared/errors';
import type { BufferRead } from '../../../shared/model/routing';
import { q } from '../lib/args';
import { utf8CutBefore } from '../lib/utf8';
import { BUFFER_READ_MAX_CHARS, BUFFER_READ_MAX_LINES } from './limits';

export const META_VERSION = 1;
/** A checkpoint at least this many bytes after the previous one. */
const CHECKPOINT_BYTES = 64 * 1024;
const SCAN_CHUNK_BYTES = 1024 * 1024;

export interface Meta {
  version: number;
  name: string;
  createdAt: string;
  updatedAt: string;
  source: string;
  chars: number;
  bytes: number;
  newlines: number;
  endsWithNewline: boolean;
  /** Flat [char, byte, line, ...], ascending, without the origin [0, 0, 1]. */
  checkpoints: number[];
  /** The content file as last written: a mismatch means the sidecar is stale. */
  fileSize: number;
  fileMtimeMs: number;
}

export function isMeta(v: unknown, name: string): v is Meta {
  const m = v as Partial<Meta> | null;
  const num = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  return (
    typeof m === 'object' && m !== null && m.version === META_VERSION && m.name === name &&
    typeof m.createdAt === 'string' && typeof m.updatedAt === 'string' && typeof m.source === 'string' &&
    num(m.chars) && num(m.bytes) && num(m.newlines) && typeof m.endsWithNewline === 'boolean' &&
    Array.isArray(m.checkpoints) && m.checkpoints.length % 3 === 0 && m.checkpoints.every(num) &&
    num(m.fileSize) && typeof m.fileMtimeMs === 'number'
  );
}

/** Builds a buffer's counts and checkpoints as text goes by, from a known state. */
export class Indexer {
  constructor(private readonly m: Pick<Meta, 'chars' | 'bytes' | 'newlines' | 'endsWithNewline' | 'checkpoints'>) {}

  add(text: string, bytes: number): void {
    const m = this.m;
    const n = m.checkpoints.length;
    const lastByte = n ? m.checkpoints[n - 2]! : 0;
    if (m.bytes > 0 && m.bytes - lastByte >= CHECKPOINT_BYTES) m.checkpoints.push(m.chars, m.bytes, m.newlines + 1);
    let i = -1;
    while ((i = text.indexOf('\n', i + 1)) >= 0) m.newlines++;
    m.chars += text.length;
    m.bytes += bytes;
    if (text.length > 0) m.endsWithNewline = text.charCodeAt(text.length - 1) === 10;
  }
}

export function totalLines(m: Meta): number {
  return m.newlines + (m.chars > 0 && !m.endsWithNewline ? 1 : 0);
}


function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

/** A fresh metadata record for a buffer with no content yet. */
export function emptyMeta(name: string, times: Pick<Meta, 'createdAt' | 'updatedAt' | 'source'>): Meta {
  return { version: META_VERSION, name, ...times, chars: 0, bytes: 0, newlines: 0, endsWithNewline: false, checkpoints: [], fileSize: 0, fileMtimeMs: 0 };
}

/** Reads a content file through, counting and checkpointing as a write would. */
export async function rebuildMeta(contentPath: string, name: string, keep: Pick<Meta, 'createdAt' | 'updatedAt' | 'source'>): Promise<Meta> {
  const m: Meta = { version: META_VERSION, name, createdAt: keep.createdAt, updatedAt: keep.updatedAt, source: keep.source, chars: 0, bytes: 0, newlines: 0, endsWithNewline: false, checkpoints: [], fileSize: 0, fileMtimeMs: 0 };
  const ix = new Indexer(m);
  const fh = await fs.open(contentPath, 'r');
  try {
    const buf = Buffer.allocUnsafe(SCAN_CHUNK_BYTES + 4);
    let carry = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, carry, SCAN_CHUNK_BYTES, null);
      const total = carry + bytesRead;
      if (total === 0) break;
      const cut = bytesRead === 0 ? total : utf8CutBefore(buf, total);
      // Pieces of at most 16 KiB, each cut at a character boundary, as a write would give.
      for (let a = 0; a < cut; ) {
        const b = a + 16 * 1024 >= cut ? cut : utf8CutBefore(buf.subarray(0, a + 16 * 1024), a + 16 * 1024);
        const end = b > a ? b : cut;
        ix.add(buf.toString('utf8', a, end), end - a);
        a = end;
      }
      buf.copy(buf, 0, cut, total);
      carry = total - cut;
      if (bytesRead === 0) break;
    }
  } finally {
    await fh.close();
  }
  return m;
}


function checkInt(v: number | undefined, field: string, min: number, how: string): number {
  if (v === undefined) throw new AppError('VALIDATION_FAILED', `${field} is missing: ${how}`, { field });
  if (!Number.isSafeInteger(v) || v < min) throw new AppError('VALIDATION_FAILED', `${field} must be a whole number of at least ${min}`, { field });
  return v;
}

/**
 * Lines start..end (1-based, inclusive; the end clamped to the last line) as an exact slice; refusals say how to ask (`how`).
 * `fh` is the content file opened when `m` was taken (the caller closes it): offsets and bytes always agree.
 */
export async function readLineRange(fh: FileHandle, m: Meta, start: number | undefined, end: number | undefined, how: string): Promise<BufferRead> {
  const s = checkInt(start, 'startLine', 1, how);
  const e = checkInt(end, 'endLine', 1, how);
  const lines = totalLines(m);
  if (e < s) throw new AppError('VALIDATION_FAILED', `endLine (${e}) is before startLine (${s})`, { field: 'endLine' });
  if (e - s + 1 > BUFFER_READ_MAX_LINES) {
    throw new AppError('VALIDATION_FAILED', `lines ${fmt(s)}-${fmt(e)} are ${fmt(e - s + 1)} lines: a read returns at most ${fmt(BUFFER_READ_MAX_LINES)}; ask for lines ${fmt(s)}-${fmt(s + BUFFER_READ_MAX_LINES - 1)}, then the next ones`, { field: 'endLine' });
  }
  if (s > Math.max(lines, 1)) {
    throw new AppError('VALIDATION_FAILED', `startLine ${fmt(s)} is past the end: buffer ${q(m.name)} has ${fmt(lines)} line${lines === 1 ? '' : 's'}`, { field: 'startLine', totalLines: lines });
  }
  const last = Math.min(e, lines);
  const a = await lineStart(fh, m, s);
  const b = last >= lines ? { byte: m.bytes, char: m.chars } : await lineStart(fh, m, last + 1);
  const chars = b.char - a.char;
  if (chars > BUFFER_READ_MAX_CHARS) {
    throw new AppError('VALIDATION_FAILED', `lines ${fmt(s)}-${fmt(last)} hold ${fmt(chars)} characters: a read returns at most ${fmt(BUFFER_READ_MAX_CHARS)}; ask for fewer lines, or use offset and length`, { field: 'endLine' });
  }
  const text = (await bytesAt(fh, a.byte, b.byte)).toString('utf8');
  return { text, offset: a.char, startLine: s, endLine: text === '' ? s - 1 : last, totalChars: m.chars, totalLines: lines };
}

/** `length` characters from character `offset`, with the lines they are on (`fh` as for readLineRange). */
export async function readCharRange(fh: FileHandle, m: Meta, offset: number | undefined, length: number | undefined, how: string): Promise<BufferRead> {
  const o = checkInt(offset, 'offset', 0, how);
  const n = checkInt(length, 'length', 1, how);
  if (n > BUFFER_READ_MAX_CHARS) {
    throw new AppError('VALIDATION_FAILED', `length ${fmt(n)} is over the limit: a read returns at most ${fmt(BUFFER_READ_MAX_CHARS)} characters; read in parts (offset ${fmt(o)}, then ${fmt(o + BUFFER_READ_MAX_CHARS)}...)`, { field: 'length' });
  }
  if (o >= m.chars && !(o === 0 && m.chars === 0)) {
    throw new AppError('VALIDATION_FAILED', `offset ${fmt(o)} is past the end: buffer ${q(m.name)} has ${fmt(m.chars)} characters`, { field: 'offset', totalChars: m.chars });
  }
  const lines = totalLines(m);
  const cp = checkpointBefore(m, 0, o);
  // Every character is at most 3 bytes per UTF-16 unit: this many bytes from the checkpoint hold the range.
  const raw = await bytesAt(fh, cp.byte, Math.min(m.bytes, cp.byte + (o - cp.char + n) * 3 + 4));
  const decoded = raw.subarray(0, utf8CutBefore(raw, raw.length)).toString('utf8');
  const from = o - cp.char;
  const text = decoded.slice(from, from + n);
  const startLine = cp.line + countNewlines(decoded, 0, from);
  const endLine = text === '' ? startLine - 1 : startLine + countNewlines(text, 0, text.length - 1);
  return { text, offset: o, startLine, endLine, totalChars: m.chars, totalLines: lines };
}

/** The last checkpoint (origin included) whose field f (0 char, 1 byte, 2 line) is <= v, or < v when strict. */
export function checkpointBefore(m: Meta, f: 0 | 1 | 2, v: number, strict = false): { char: number; byte: number; line: number } {
  const c = m.checkpoints;
  let lo = -1;
  let hi = c.length / 3 - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const x = c[mid * 3 + f]!;
    if (strict ? x < v : x <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo < 0 ? { char: 0, byte: 0, line: 1 } : { char: c[lo * 3]!, byte: c[lo * 3 + 1]!, line: c[lo * 3 + 2]! };
}

/** Where line L starts (byte and character); reads only from the nearest checkpoint before it. */
export async function lineStart(fh: FileHandle, m: Meta, line: number): Promise<{ byte: number; char: number }> {
  if (line <= 1) return { byte: 0, char: 0 };
  const cp = checkpointBefore(m, 2, line, true);
  let need = line - cp.line;
  const block = 64 * 1024;
  const seen: Buffer[] = [];
  for (let p = cp.byte; p < m.bytes; p += block) {
    const chunk = await bytesAt(fh, p, Math.min(m.bytes, p + block));
    let j = -1;
    while ((j = chunk.indexOf(10, j + 1)) >= 0) {
      if (--need === 0) {
        seen.push(chunk.subarray(0, j + 1));
        return { byte: p + j + 1, char: cp.char + Buffer.concat(seen).toString('utf8').length };
      }
    }
    seen.push(chunk);
  }
  return { byte: m.bytes, char: m.chars };
}

export async function bytesAt(fh: FileHandle, a: number, b: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(Math.max(0, b - a));
  let done = 0;
  while (done < out.length) {
    const { bytesRead } = await fh.read(out, done, out.length - done, a + done);
    if (bytesRead <= 0) break;
    done += bytesRead;
  }
  return done === out.length ? out : out.subarray(0, done);
}


export function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  let i = from - 1;
  while ((i = s.indexOf('\n', i + 1)) >= 0 && i < to) n++;
  return n;
}
