/**
 * Reading one page of lines for the buffer viewer. A page is read as a line range; when its
 * lines hold more characters than one read may return (a buffer of a few huge lines, such
 * as minified JSON), it is read by character offsets instead, keeping only the head of
 * each line (the viewer draws no more) and its length. Pure: the read is passed in.
 */
import type { BufferRead } from '../../../shared/model/routing';

export type ReadRange = { startLine: number; endLine: number } | { offset: number; length: number };
export type ReadFn = (range: ReadRange) => Promise<BufferRead>;

export interface LoadedPage {
  startLine: number;
  endLine: number;
  totalLines: number;
  /** The page's lines (lines[0] is line startLine); only their heads when `lengths` is set. */
  lines: string[];
  /** Each line's full length, when `lines` holds heads only. */
  lengths: number[] | null;
  /** Where each line starts in the buffer (a character offset), when `lines` holds heads only: the rest is read from there. */
  offsets: number[] | null;
}

export interface PageOptions {
  /** Whether a failed line-range read failed for holding too many characters. */
  tooLarge: (error: unknown) => boolean;
  /** Characters kept of each line read by offsets. */
  headChars: number;
  /** Characters per offset read (at most the store's read limit). */
  chunkChars: number;
  signal?: AbortSignal;
}

export async function loadPage(read: ReadFn, startLine: number, endLine: number, opts: PageOptions): Promise<LoadedPage> {
  try {
    const r = await read({ startLine, endLine });
    return { startLine: r.startLine, endLine: r.endLine, totalLines: r.totalLines, lines: r.text.split('\n'), lengths: null, offsets: null };
  } catch (e) {
    if (!opts.tooLarge(e)) throw e;
    return loadPageByChars(read, startLine, endLine, opts);
  }
}

/** Reads lines startLine..endLine by character offsets: heads of at most headChars, and lengths. */
export async function loadPageByChars(read: ReadFn, startLine: number, endLine: number, opts: PageOptions): Promise<LoadedPage> {
  const check = () => {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
  };
  const first = await read({ offset: 0, length: 1 });
  const { totalChars, totalLines } = first;
  const last = Math.min(endLine, totalLines);

  /** The offset where `line` starts: the first character whose line is `line` (binary search from `from`). */
  const lineStart = async (line: number, from: number): Promise<number> => {
    if (line <= 1) return 0;
    let lo = from;
    let hi = totalChars;
    while (lo < hi) {
      check();
      const mid = Math.floor((lo + hi) / 2);
      const r = await read({ offset: mid, length: 1 });
      if (r.startLine >= line) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };

  const lines: string[] = [];
  const lengths: number[] = [];
  const offsets: number[] = [];
  let line = startLine;
  let pos = await lineStart(startLine, 0);
  while (line <= last && pos < totalChars) {
    check();
    const r = await read({ offset: pos, length: Math.min(opts.chunkChars, totalChars - pos) });
    const text = r.text;
    const chunkEnd = pos + text.length;
    let i = 0;
    while (line <= last) {
      const nl = text.indexOf('\n', i);
      if (nl >= 0) {
        offsets.push(pos + i);
        lines.push(text.slice(i, Math.min(nl, i + opts.headChars)));
        lengths.push(nl - i);
        i = nl + 1;
        line++;
      } else if (chunkEnd >= totalChars) {
        // The buffer's last line, with no newline after it.
        offsets.push(pos + i);
        lines.push(text.slice(i, i + opts.headChars));
        lengths.push(text.length - i);
        i = text.length;
        line++;
      } else if (i > 0) {
        break; // The line goes on past this chunk: read again from its start.
      } else {
        // One line longer than a chunk: keep its head, find where the next one starts.
        offsets.push(pos);
        lines.push(text.slice(0, opts.headChars));
        const next = line < totalLines ? await lineStart(line + 1, chunkEnd) : totalChars;
        lengths.push(next - pos - (line < totalLines ? 1 : 0));
        i = next - pos;
        line++;
        break;
      }
    }
    if (i === 0) break; // No progress (an empty read): stop rather than loop.
    pos += i;
  }
  return { startLine, endLine: startLine + lines.length - 1, totalLines, lines, lengths, offsets };
}
