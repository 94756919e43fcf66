/**
 * The buffer-search worker, a worker-thread entry (./buffer-search.ts starts it through
 * ../lib/worker-entry.ts; the build emits it as buffer-search-worker.cjs beside the bundle).
 * It receives a FileSearchJob and answers a BufferSearchReply: `{ ok: true, value }` or
 * `{ ok: false, message, code }`. Besides Node's modules and types it imports only
 * ../lib/utf8.ts, which the worker's bundle (scripts/worker-bundles.mjs) carries inside it.
 *
 * - Case-sensitive substring: Buffer.indexOf of the query's UTF-8 over 4 MiB windows that
 *   overlap by the query's length, so a match across two windows is found once.
 * - A case-sensitive pattern with a required literal that cannot match a line break
 *   (requiredLiteral): the literal is searched as bytes, and the pattern runs only on the
 *   lines that hold it.
 * - Otherwise: windows cut after their last "\n" (a longer line grows the window), decoded
 *   (latin1 when the window is ASCII or the pattern is ASCII-only: see isAsciiPattern) and
 *   searched with one global multiline RegExp.
 * - Line numbers, line starts and ends come from the checkpoints and positional reads, so
 *   the work around a match is bounded whatever the size of the buffer or its lines.
 * - The file is read through job.fd (opened by the store with the metadata; the worker
 *   never opens or closes it). Should it hold fewer bytes than indexed (an edit by hand in
 *   place), the answer is code 'ECHANGED' (CONFLICT: search again).
 */
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { BufferMatch, BufferSearchResult } from '../../../shared/model/routing';
import { utf8CutBefore } from '../lib/utf8';
import type { FileSearchJob } from './buffer-search';

export type BufferSearchReply = { ok: true; value: BufferSearchResult } | { ok: false; message: string; code?: string };

const NL = 10;
const BLOCK = 64 * 1024;

function decode(b: Buffer): string {
  return isAscii(b) ? b.toString('latin1') : b.toString('utf8');
}

function clip(s: string, max: number): string {
  if (s.endsWith('\r')) s = s.slice(0, -1);
  if (s.length <= max) return s;
  let cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut + '\u2026';
}

class ChangedError extends Error {
  readonly code = 'ECHANGED';
}

/** Runs one search; `W` is the current window: bytes [start, end) of the file in `buf`, and bytes() reads any others. */
export function search(job: FileSearchJob): BufferSearchResult {
  const WINDOW = job.windowBytes || 4 * 1024 * 1024;
  const size = job.bytes;
  const cps = job.checkpoints;
  const ncp = cps.length / 3;
  const fd = job.fd;
  if (fs.fstatSync(fd).size < size) throw new ChangedError('the buffer changed during the search, search again');
  const W = { buf: Buffer.alloc(0), start: 0, end: 0 };

  /** Bytes [a, b) of the file, from the window when it holds them. */
  function bytes(a: number, b: number): Buffer {
    if (b > size) b = size;
    if (b <= a) return Buffer.alloc(0);
    if (a >= W.start && b <= W.end) return W.buf.subarray(a - W.start, b - W.start);
    const out = Buffer.allocUnsafe(b - a);
    let done = 0;
    while (done < out.length) {
      const n = fs.readSync(fd, out, done, out.length - done, a + done);
      if (n <= 0) break;
      done += n;
    }
    return done === out.length ? out : out.subarray(0, done);
  }
  /** Newlines in [a, b). */
  function countNL(a: number, b: number): number {
    let n = 0;
    for (let p = a; p < b; p += BLOCK) {
      const chunk = bytes(p, Math.min(b, p + BLOCK));
      let i = -1;
      while ((i = chunk.indexOf(NL, i + 1)) >= 0) n++;
    }
    return n;
  }
  /** The checkpoint value at index i, field f (0 char, 1 byte, 2 line). */
  const cp = (i: number, f: number): number => cps[i * 3 + f]!;
  /** The index of the last checkpoint whose value at field f is <= v (or < v when strict). */
  function cpBefore(f: number, v: number, strict: boolean): number {
    let lo = 0;
    let hi = ncp - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      const x = cp(mid, f);
      if (strict ? x < v : x <= v) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  let cursorByte = 0;
  let cursorLine = 1;
  /** The 1-based line holding byte pos. */
  function lineOf(pos: number): number {
    const i = cpBefore(1, pos, false);
    let from = cp(i, 1);
    let line = cp(i, 2);
    if (cursorByte >= from && cursorByte <= pos) {
      from = cursorByte;
      line = cursorLine;
    }
    line += countNL(from, pos);
    cursorByte = pos;
    cursorLine = line;
    return line;
  }
  /** The character offset of byte pos (a character boundary). */
  function charOf(pos: number): number {
    const i = cpBefore(1, pos, false);
    return cp(i, 0) + decode(bytes(cp(i, 1), pos)).length;
  }
  /** The byte where line L starts (L <= totalLines). */
  function lineStartOf(L: number): number {
    if (L <= 1) return 0;
    const i = cpBefore(2, L, true);
    let need = L - cp(i, 2);
    for (let p = cp(i, 1); p < size; p += BLOCK) {
      const chunk = bytes(p, Math.min(size, p + BLOCK));
      let j = -1;
      while ((j = chunk.indexOf(NL, j + 1)) >= 0) if (--need === 0) return p + j + 1;
    }
    return size;
  }
  /** The start of the line (number L) holding byte pos. */
  function startOfLine(pos: number, L: number): number {
    if (pos > W.start && pos <= W.end) {
      const j = W.buf.lastIndexOf(NL, pos - 1 - W.start);
      if (j >= 0) return W.start + j + 1;
    }
    return lineStartOf(L);
  }
  /** The byte of the "\n" ending line L (which holds byte pos), or size. */
  function endOfLine(pos: number, L: number): number {
    if (pos >= W.start && pos < W.end) {
      const j = W.buf.indexOf(NL, pos - W.start);
      if (j >= 0 && W.start + j < W.end) return W.start + j;
    }
    if (L >= job.totalLines) return size > 0 && bytes(size - 1, size)[0] === NL ? size - 1 : size;
    return lineStartOf(L + 1) - 1;
  }
  const maxBytes = job.maxLineChars * 3 + 4;
  function lineText(a: number, b: number): string {
    if (b - a <= maxBytes) return clip(bytes(a, b).toString('utf8'), job.maxLineChars);
    const raw = bytes(a, a + maxBytes);
    return clip(raw.subarray(0, utf8CutBefore(raw, raw.length)).toString('utf8'), job.maxLineChars);
  }

  const matches: BufferMatch[] = [];
  let more = false;
  let stoppedAt = -1;
  /** Records a match at byte pos of length chars (cut at lineBreakAt when >= 0); false when the caller should stop. */
  function onMatch(pos: number, length: number, lineBreakAt: number): boolean {
    if (matches.length >= job.maxMatches) {
      more = true;
      stoppedAt = pos;
      return false;
    }
    const line = lineOf(pos);
    const ls = startOfLine(pos, line);
    const le = endOfLine(pos, line);
    const column = pos - ls <= BLOCK ? decode(bytes(ls, pos)).length : charOf(pos) - charOf(ls);
    const len = lineBreakAt >= 0 ? lineBreakAt : length;
    const m: BufferMatch = { line, column, length: len, text: lineText(ls, le), before: [], after: [] };
    // A match past what the line's head shows: the text is a window around the match instead
    // (textStart: the column it starts at), so each result shows its own match.
    if (column + Math.min(len, 40) > job.maxLineChars - 20) {
      let ws = Math.max(ls, pos - Math.floor(job.maxLineChars / 3));
      const head = bytes(ws, Math.min(ws + 4, pos));
      let k = 0;
      while (k < head.length && (head[k]! & 0xc0) === 0x80) k++;
      ws += k;
      m.textStart = Math.max(0, column - decode(bytes(ws, pos)).length);
      m.text = lineText(ws, le);
    }
    let s = ls;
    for (let k = 1; k <= job.contextLines && line - k >= 1; k++) {
      const prevEnd = s - 1;
      const prevStart = startOfLine(prevEnd, line - k);
      m.before.unshift(lineText(prevStart, prevEnd));
      s = prevStart;
    }
    let e = le;
    for (let k = 1; k <= job.contextLines && line + k <= job.totalLines && e < size; k++) {
      const nextEnd = endOfLine(e + 1, line + k);
      m.after.push(lineText(e + 1, nextEnd));
      e = nextEnd;
    }
    matches.push(m);
    return true;
  }

  /** Reads up to `want` bytes at file position pos into W.buf at `at`; the count read. */
  function fill(at: number, pos: number, want: number): number {
    let done = 0;
    while (done < want) {
      const n = fs.readSync(fd, W.buf, at + done, want - done, pos + done);
      if (n <= 0) break;
      done += n;
    }
    return done;
  }

  function searchBytes(): void {
    const qb = Buffer.from(job.query, 'utf8');
    W.buf = Buffer.allocUnsafe(Math.min(size, WINDOW) + qb.length);
    let nextAllowed = 0;
    for (let pos = 0; pos < size; pos += WINDOW) {
      const len = fill(0, pos, Math.min(WINDOW + qb.length - 1, size - pos));
      W.start = pos;
      W.end = pos + len;
      const view = W.buf.subarray(0, len);
      const last = pos + len >= size;
      let i = 0;
      while ((i = view.indexOf(qb, i)) >= 0) {
        if (i >= WINDOW && !last) break;
        if (pos + i >= nextAllowed) {
          if (!onMatch(pos + i, job.query.length, -1)) return;
          nextAllowed = pos + i + qb.length;
        }
        i += Math.max(1, qb.length);
      }
    }
  }

  /** A pattern that holds a required literal and cannot match a line break: only lines holding the literal are run. */
  function searchLiteralLines(literal: string): void {
    const qb = Buffer.from(literal, 'utf8');
    const re = new RegExp(job.pattern, 'gm');
    W.buf = Buffer.allocUnsafe(Math.min(size, WINDOW) + qb.length);
    let doneUpTo = 0;
    for (let pos = 0; pos < size; pos += WINDOW) {
      const len = fill(0, pos, Math.min(WINDOW + qb.length - 1, size - pos));
      W.start = pos;
      W.end = pos + len;
      const view = W.buf.subarray(0, len);
      const last = pos + len >= size;
      let i = 0;
      while ((i = view.indexOf(qb, i)) >= 0) {
        if (i >= WINDOW && !last) break;
        const p = pos + i;
        if (p < doneUpTo) {
          i++;
          continue;
        }
        const line = lineOf(p);
        const ls = startOfLine(p, line);
        const le = endOfLine(p, line);
        const lineBytes = bytes(ls, le);
        const byBytes = isAscii(lineBytes);
        const text = byBytes ? lineBytes.toString('latin1') : lineBytes.toString('utf8');
        re.lastIndex = 0;
        let m: RegExpExecArray | null;
        let lastIdx = 0;
        let lastByte = 0;
        while ((m = re.exec(text)) !== null) {
          const idx = m.index;
          if (m[0].length === 0) re.lastIndex = idx + 1;
          const b = byBytes ? idx : lastByte + Buffer.byteLength(text.slice(lastIdx, idx), 'utf8');
          lastIdx = idx;
          lastByte = b;
          if (!onMatch(ls + b, m[0].length, -1)) return;
          if (re.lastIndex > text.length) break;
        }
        doneUpTo = le + 1;
        // The rest of the line is done: go on after it (in the next window if it ends beyond this one).
        i = Math.max(i + 1, le + 1 - pos);
      }
    }
  }

  function searchRegex(): void {
    const flags = 'gm' + (job.caseSensitive ? '' : 'i');
    const re = new RegExp(job.pattern, flags);
    W.buf = Buffer.allocUnsafe(Math.min(Math.max(size, 1), WINDOW));
    let regionStart = 0;
    let carry = 0;
    let filePos = 0;
    while (regionStart < size) {
      const n = fill(carry, filePos, Math.min(W.buf.length - carry, size - filePos));
      filePos += n;
      const total = carry + n;
      if (total === 0) break;
      const eof = filePos >= size || n === 0;
      const regionEnd = eof ? total : W.buf.lastIndexOf(NL, total - 1) + 1;
      if (regionEnd === 0) {
        // One line longer than the window: grow it and read on.
        const bigger = Buffer.allocUnsafe(Math.min(size - regionStart, W.buf.length * 2));
        W.buf.copy(bigger, 0, 0, total);
        W.buf = bigger;
        carry = total;
        continue;
      }
      W.start = regionStart;
      W.end = regionStart + total;
      const region = W.buf.subarray(0, regionEnd);
      // latin1: one character per byte, so a match's index is its byte offset.
      const byBytes = job.asciiPattern || isAscii(region);
      const text = byBytes ? region.toString('latin1') : region.toString('utf8');
      const endsWithNL = text.length > 0 && text.charCodeAt(text.length - 1) === NL;
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      let lastIdx = 0;
      let lastByte = 0;
      while ((m = re.exec(text)) !== null) {
        const idx = m.index;
        if (m[0].length === 0) {
          re.lastIndex = idx + 1;
          // Not inside one character: between its bytes, or between the halves of a surrogate pair.
          const c = text.charCodeAt(idx);
          if (byBytes ? c >= 0x80 && c <= 0xbf : c >= 0xdc00 && c <= 0xdfff && idx > 0) continue;
        }
        if (idx >= text.length && (endsWithNL || text.length === 0)) break;
        const b = byBytes ? idx : lastByte + Buffer.byteLength(text.slice(lastIdx, idx), 'utf8');
        lastIdx = idx;
        lastByte = b;
        if (!onMatch(regionStart + b, m[0].length, m[0].indexOf('\n'))) return;
        if (re.lastIndex > text.length) break;
      }
      W.buf.copy(W.buf, 0, regionEnd, total);
      carry = total - regionEnd;
      regionStart += regionEnd;
    }
  }

  if (!job.regex && job.caseSensitive) searchBytes();
  else if (job.literal) searchLiteralLines(job.literal);
  else searchRegex();
  return { matches, more, scannedChars: more ? charOf(stoppedAt) : job.totalChars };
}

function reply(job: FileSearchJob): BufferSearchReply {
  try {
    return { ok: true, value: search(job) };
  } catch (e) {
    const err = e as { message?: unknown; code?: unknown } | null | undefined;
    return { ok: false, message: err?.message ? String(err.message) : String(e), code: err?.code ? String(err.code) : undefined };
  }
}

parentPort?.on('message', (job: FileSearchJob) => parentPort!.postMessage(reply(job)));
