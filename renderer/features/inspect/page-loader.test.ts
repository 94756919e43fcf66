import { describe, expect, it } from 'vitest';
import type { BufferRead } from '../../../shared/model/routing';
import { loadPage, type ReadFn, type ReadRange } from './page-loader';

class TooLarge extends Error {}

/** A buffer read the way the store reads one: line ranges up to `maxChars`, or offset + length. */
function fakeStore(content: string, maxChars: number) {
  const starts = [0];
  for (let i = 0; i < content.length; i++) if (content[i] === '\n' && i + 1 < content.length) starts.push(i + 1);
  const totalLines = content === '' ? 0 : starts.length;
  const lineAt = (offset: number) => {
    let n = 1;
    for (let i = 0; i < offset; i++) if (content[i] === '\n') n++;
    return n;
  };
  const calls: ReadRange[] = [];
  const read: ReadFn = async (range) => {
    calls.push(range);
    const base = { totalChars: content.length, totalLines };
    if ('startLine' in range) {
      const a = starts[range.startLine - 1]!;
      const last = Math.min(range.endLine, totalLines);
      const b = last >= totalLines ? content.length : starts[last]!;
      if (b - a > maxChars) throw new TooLarge(`lines hold ${b - a} characters`);
      return { ...base, text: content.slice(a, b), offset: a, startLine: range.startLine, endLine: last } satisfies BufferRead;
    }
    if (range.length > maxChars) throw new Error('length over the limit');
    if (range.offset >= content.length && content.length > 0) throw new Error('offset past the end');
    const text = content.slice(range.offset, range.offset + range.length);
    const startLine = lineAt(range.offset);
    return { ...base, text, offset: range.offset, startLine, endLine: startLine + (text.slice(0, -1).match(/\n/g)?.length ?? 0) };
  };
  return { read, calls };
}

const opts = { tooLarge: (e: unknown) => e instanceof TooLarge, headChars: 10, chunkChars: 50 };

describe('loadPage', () => {
  it('reads a page as one line range when it fits', async () => {
    const { read, calls } = fakeStore('a\nbb\nccc\n', 1000);
    const page = await loadPage(read, 1, 3, opts);
    expect(page.lines.slice(0, 3)).toEqual(['a', 'bb', 'ccc']);
    expect(page.lengths).toBeNull();
    expect(page.offsets).toBeNull();
    expect(calls).toHaveLength(1);
  });

  it('reads a page of huge lines by offsets: heads and true lengths', async () => {
    const long1 = 'x'.repeat(300);
    const long2 = 'y'.repeat(173);
    const content = ['short', long1, '', 'mid', long2, 'end'].join('\n');
    const { read } = fakeStore(content, 100);
    const page = await loadPage(read, 1, 6, opts);
    expect(page.lines).toEqual(['short', 'x'.repeat(10), '', 'mid', 'y'.repeat(10), 'end']);
    expect(page.lengths).toEqual([5, 300, 0, 3, 173, 3]);
    // Where each line starts, so the rest of a long line can be read from there.
    expect(page.offsets).toEqual([0, 6, 307, 308, 312, 486]);
    expect(page.offsets!.map((o, i) => content.slice(o, o + page.lengths![i]!))).toEqual(content.split('\n'));
    expect(page.endLine).toBe(6);
    expect(page.totalLines).toBe(6);
  });

  it('starts a page by offsets at the right line, mid-buffer', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => (i % 7 === 3 ? `L${i + 1}:${'z'.repeat(120)}` : `L${i + 1}`));
    const { read } = fakeStore(`${lines.join('\n')}\n`, 100);
    const page = await loadPage(read, 11, 20, opts);
    expect(page.lines.map((l) => l.split(':')[0]!.slice(0, 3))).toEqual(lines.slice(10, 20).map((l) => l.split(':')[0]!.slice(0, 3)));
    expect(page.lengths).toEqual(lines.slice(10, 20).map((l) => l.length));
    const content = `${lines.join('\n')}\n`;
    expect(page.offsets).toEqual(lines.slice(10, 20).map((l) => content.indexOf(`${l}\n`)));
  });

  it('reads one line of 100 times the read limit without reading it whole', async () => {
    const content = 'q'.repeat(10_000);
    const { read, calls } = fakeStore(content, 100);
    const page = await loadPage(read, 1, 1, opts);
    expect(page.lines).toEqual(['q'.repeat(10)]);
    expect(page.lengths).toEqual([10_000]);
    expect(page.offsets).toEqual([0]);
    expect(calls.length).toBeLessThan(5);
  });

  it('passes other errors on', async () => {
    const { read } = fakeStore('abc', 100);
    await expect(loadPage(() => Promise.reject(new Error('NOT_FOUND')), 1, 1, opts)).rejects.toThrow('NOT_FOUND');
    await expect(loadPage(read, 1, 1, opts)).resolves.toMatchObject({ lines: ['abc'] });
  });

  it('stops when its signal is aborted', async () => {
    const { read } = fakeStore(`a\n${'b'.repeat(500)}\nc`, 100);
    const ac = new AbortController();
    ac.abort(new Error('left the screen'));
    await expect(loadPage(read, 2, 3, { ...opts, signal: ac.signal })).rejects.toThrow('left the screen');
  });
});
