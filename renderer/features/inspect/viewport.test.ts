import { describe, expect, it } from 'vitest';
import {
  drawnLine,
  matchSnippet,
  pageLinesFor,
  pageOf,
  pageRange,
  pagesFor,
  ratio,
  retainPages,
  scrollHeight,
  scrollTopForLine,
  toScrollTop,
  toVirtualTop,
  visibleWindow,
  type Geometry,
} from './viewport';

const small: Geometry = { totalLines: 1000, lineHeight: 20, viewportHeight: 400 };
/** 10 million lines: 200 million px at full size, far past any browser's cap. */
const huge: Geometry = { totalLines: 10_000_000, lineHeight: 20, viewportHeight: 400, maxScrollPx: 8_000_000 };

describe('scroll geometry', () => {
  it('uses the full height when it fits', () => {
    expect(scrollHeight(small)).toBe(20_000);
    expect(ratio(small)).toBe(1);
    expect(toVirtualTop(1234, small)).toBe(1234);
    expect(toScrollTop(1234, small)).toBe(1234);
  });

  it('scales a buffer taller than the cap, and maps both ends exactly', () => {
    expect(scrollHeight(huge)).toBe(8_000_000);
    expect(ratio(huge)).toBeGreaterThan(24);
    expect(toVirtualTop(0, huge)).toBe(0);
    // The bottom of the scrollbar is the last line.
    expect(toVirtualTop(8_000_000 - 400, huge)).toBeCloseTo(200_000_000 - 400, 3);
    expect(toScrollTop(200_000_000 - 400, huge)).toBeCloseTo(8_000_000 - 400, 3);
    // Round trip in the middle.
    expect(toVirtualTop(toScrollTop(123_456_780, huge), huge)).toBeCloseTo(123_456_780, 3);
  });

  it('clamps scroll positions out of range (elastic scrolling, a shrunk buffer)', () => {
    expect(toVirtualTop(-50, small)).toBe(0);
    expect(toVirtualTop(1e9, small)).toBe(20_000 - 400);
    expect(toScrollTop(-5, huge)).toBe(0);
  });
});

describe('visibleWindow', () => {
  it('is null for an empty buffer', () => {
    expect(visibleWindow(0, { ...small, totalLines: 0 })).toBeNull();
  });

  it('renders the visible lines plus overscan from the top', () => {
    expect(visibleWindow(0, small, 10)).toEqual({ first: 1, last: 30, top: 0 });
  });

  it('places the first rendered line where it belongs mid-buffer', () => {
    // scrollTop 10,010 px: line 501 is partly hidden at the top.
    const w = visibleWindow(10_010, small, 10)!;
    expect(w.first).toBe(491);
    expect(w.last).toBe(531);
    expect(w.top).toBe(490 * 20);
  });

  it('reaches the last line at the bottom of a scaled scrollbar', () => {
    const w = visibleWindow(8_000_000 - 400, huge, 5)!;
    expect(w.last).toBe(10_000_000);
    // The last line's bottom is the bottom of the scroll content.
    expect(w.top + (w.last - w.first + 1) * 20).toBeCloseTo(8_000_000, 3);
    const visibleFirst = w.first + 5;
    expect(visibleFirst).toBe(10_000_000 - 20 + 1);
  });

  it('shows the line asked for by scrollTopForLine, in a small and a scaled buffer', () => {
    for (const [g, line] of [
      [small, 500],
      [huge, 7_654_321],
      [huge, 1],
      [huge, 10_000_000],
    ] as const) {
      const top = scrollTopForLine(line, g);
      const w = visibleWindow(top, g, 0)!;
      expect(w.first).toBeLessThanOrEqual(line);
      expect(w.last).toBeGreaterThanOrEqual(line);
      // Drawn inside the viewport.
      const y = w.top + (line - w.first) * 20 - top;
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y + 20).toBeLessThanOrEqual(400 + 1e-6);
    }
  });
});

describe('pages', () => {
  it('reads 500 lines a page, fewer when lines are long, never fewer than 1', () => {
    expect(pageLinesFor(80 * 1_000_000, 1_000_000)).toBe(500);
    expect(pageLinesFor(10_000 * 1000, 1000, 250_000)).toBe(25);
    expect(pageLinesFor(100_000_000, 1, 250_000)).toBe(1);
    expect(pageLinesFor(0, 0)).toBe(500);
  });

  it('maps lines to pages and pages to line ranges cut at the end', () => {
    expect(pageOf(1, 500)).toBe(0);
    expect(pageOf(500, 500)).toBe(0);
    expect(pageOf(501, 500)).toBe(1);
    expect(pageRange(0, 500, 1234)).toEqual({ startLine: 1, endLine: 500 });
    expect(pageRange(2, 500, 1234)).toEqual({ startLine: 1001, endLine: 1234 });
  });

  it('fetches only the pages under the visible window', () => {
    expect(pagesFor(1, 30, 500)).toEqual([0]);
    expect(pagesFor(480, 530, 500)).toEqual([0, 1]);
    expect(pagesFor(10, 9, 500)).toEqual([]);
    const w = visibleWindow(scrollTopForLine(9_999_990, huge), huge)!;
    expect(pagesFor(w.first, w.last, 500)).toEqual([19_999]);
  });

  it('keeps the pages needed first, then the most recent others, up to the bound', () => {
    let kept: number[] = [];
    for (let p = 0; p < 20; p++) kept = retainPages(kept, [p], 8);
    expect(kept).toEqual([19, 18, 17, 16, 15, 14, 13, 12]);
    kept = retainPages(kept, [3, 4], 8);
    expect(kept).toEqual([3, 4, 19, 18, 17, 16, 15, 14]);
    // Pages on screen are never dropped, even past the bound.
    expect(retainPages(kept, [1, 2, 3], 2)).toEqual([1, 2, 3]);
    expect(retainPages([5, 5, 6], [5], 8)).toEqual([5, 6]);
  });
});

describe('drawing lines and matches', () => {
  it('cuts a long line and says how much is left out', () => {
    expect(drawnLine('abc')).toEqual({ text: 'abc', hidden: 0 });
    expect(drawnLine('abc\r')).toEqual({ text: 'abc', hidden: 0 });
    expect(drawnLine('x'.repeat(10), 4)).toEqual({ text: 'xxxx', hidden: 6 });
    // Only the head of a line was read: the full length counts.
    expect(drawnLine('x'.repeat(10), 4, 5000)).toEqual({ text: 'xxxx', hidden: 4996 });
    expect(drawnLine('xyz', 10, 3)).toEqual({ text: 'xyz', hidden: 0 });
  });

  it('keeps a match and some context around it', () => {
    const text = `${'a'.repeat(1000)}NEEDLE${'b'.repeat(1000)}`;
    const s = matchSnippet(text, 1000, 6, 60);
    expect(s.match).toBe('NEEDLE');
    expect(s.cutBefore && s.cutAfter).toBe(true);
    expect(s.before.length + s.match.length + s.after.length).toBeLessThanOrEqual(60);
    expect(s.before.length).toBeGreaterThan(0);
    expect(matchSnippet('a NEEDLE b', 2, 6)).toEqual({ before: 'a ', match: 'NEEDLE', after: ' b', cutBefore: false, cutAfter: false, beyond: false });
    // Near the end of a long line: a short lead, so the match is not pushed out of view.
    const late = matchSnippet(`${'x'.repeat(94)}NEEDLE`, 94, 6);
    expect(late.before).toBe('x'.repeat(30));
    expect(late.cutBefore).toBe(true);
    // A match longer than the room is cut itself.
    const long = matchSnippet('z'.repeat(500), 0, 500, 50);
    expect(long.match.length).toBe(50);
    expect(long.cutAfter).toBe(true);
  });

  it('says so when the match lies past the part of a long line the core sent', () => {
    const sent = `${'a'.repeat(500)}\u2026`;
    const s = matchSnippet(sent, 20_000, 6, 60);
    expect(s.beyond).toBe(true);
    expect(s.before).toBe('a'.repeat(60));
    // A match inside the part sent is marked as usual; the core's '…' is not text.
    const inside = matchSnippet(`${'a'.repeat(10)}NEEDLE${'b'.repeat(484)}\u2026`, 10, 6, 40);
    expect(inside.match).toBe('NEEDLE');
    expect(inside.after).not.toContain('\u2026');
    expect(inside.cutAfter).toBe(true);
  });
});
