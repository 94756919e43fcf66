import { describe, expect, it } from 'vitest';
import { clampStart, currentLongLine, lineLength, markInWindow, moveWindow, windowOf, windowStartFor, windowText } from './line-window';
import { MAX_DRAWN_CHARS } from './viewport';

/** A one-line JSON buffer's length, as in Inspect's end-to-end test. */
const LONG = 73_664;

describe('lineLength', () => {
  it('counts a whole line without its trailing CR, and a head by the full length', () => {
    expect(lineLength('abc')).toBe(3);
    expect(lineLength('abc\r')).toBe(3);
    expect(lineLength('x'.repeat(10), 5000)).toBe(5000);
    expect(lineLength('xyz', 3)).toBe(3);
  });
});

describe('windowStartFor', () => {
  it('keeps the head for a match inside it', () => {
    expect(windowStartFor(0, 6, LONG)).toBe(0);
    expect(windowStartFor(2_350, 6, LONG)).toBe(0);
    expect(windowStartFor(MAX_DRAWN_CHARS - 6, 6, LONG)).toBe(0);
  });

  it('puts a match past the head in the middle of the window', () => {
    const start = windowStartFor(50_000, 6, LONG);
    const win = windowOf(start, LONG);
    expect(win.end - win.start).toBe(MAX_DRAWN_CHARS);
    expect(win.start).toBeLessThan(50_000);
    expect(win.end).toBeGreaterThanOrEqual(50_006);
    // Centred: as much room before the match as after it, to a character.
    expect(Math.abs(50_000 - win.start - (win.end - 50_006))).toBeLessThanOrEqual(1);
  });

  it('keeps a full window at the line end, and starts one at a match longer than a window', () => {
    expect(windowStartFor(LONG - 6, 6, LONG)).toBe(LONG - MAX_DRAWN_CHARS);
    expect(windowStartFor(10_000, 9_000, LONG)).toBe(10_000);
    expect(windowStartFor(70_000, 9_000, LONG)).toBe(LONG - MAX_DRAWN_CHARS);
    // Any window size: 95..100 in 92..102, three characters before and two after.
    expect(windowStartFor(95, 5, 1000, 10)).toBe(92);
  });
});

describe('moving the window', () => {
  it('steps by a whole window and stops at both ends', () => {
    expect(moveWindow(0, 'later', LONG)).toBe(MAX_DRAWN_CHARS);
    expect(moveWindow(MAX_DRAWN_CHARS, 'earlier', LONG)).toBe(0);
    expect(moveWindow(1_000, 'earlier', LONG)).toBe(0);
    expect(moveWindow(LONG - MAX_DRAWN_CHARS - 10, 'later', LONG)).toBe(LONG - MAX_DRAWN_CHARS);
    expect(moveWindow(12_345, 'start', LONG)).toBe(0);
    expect(moveWindow(12_345, 'end', LONG)).toBe(LONG - MAX_DRAWN_CHARS);
    // A line that fits one window never moves.
    for (const move of ['start', 'earlier', 'later', 'end'] as const) expect(moveWindow(0, move, 3_000)).toBe(0);
  });

  it('walks a long line in windows that join up, from head to end', () => {
    let start = 0;
    let covered = 0;
    for (let i = 0; i < 100; i++) {
      const win = windowOf(start, LONG);
      expect(win.start).toBeLessThanOrEqual(covered);
      covered = win.end;
      expect(win.before + (win.end - win.start) + win.after).toBe(LONG);
      const next = moveWindow(start, 'later', LONG);
      if (next === start) break;
      start = next;
    }
    expect(covered).toBe(LONG);
  });

  it('moves a start that lies outside the line back into it', () => {
    expect(clampStart(-5, LONG)).toBe(0);
    expect(clampStart(1e9, LONG)).toBe(LONG - MAX_DRAWN_CHARS);
    expect(clampStart(1e9, 100)).toBe(0);
    expect(clampStart(10.7, LONG)).toBe(10);
  });
});

describe('windowOf and windowText', () => {
  it('counts the characters before and after the window', () => {
    expect(windowOf(0, 3)).toEqual({ start: 0, end: 3, before: 0, after: 0 });
    expect(windowOf(0, LONG)).toEqual({ start: 0, end: MAX_DRAWN_CHARS, before: 0, after: LONG - MAX_DRAWN_CHARS });
    expect(windowOf(20_000, LONG)).toEqual({ start: 20_000, end: 24_000, before: 20_000, after: LONG - 24_000 });
  });

  it('cuts a window from a whole line, never more than a window long', () => {
    const line = Array.from({ length: 10_000 }, (_, i) => String(i % 10)).join('');
    const win = windowOf(5_003, line.length);
    const text = windowText(line, win)!;
    expect(text).toHaveLength(MAX_DRAWN_CHARS);
    expect(text.startsWith('3456')).toBe(true);
    expect(windowText('abc\r', windowOf(0, lineLength('abc\r')))).toBe('abc');
  });

  it('says when a window lies past the head that was read', () => {
    const head = 'h'.repeat(MAX_DRAWN_CHARS);
    expect(windowText(head, windowOf(0, 5_000_000), 5_000_000)).toBe(head);
    expect(windowText(head, windowOf(10, 5_000_000), 5_000_000)).toBeNull();
    expect(windowText(head, windowOf(3_000_000, 5_000_000), 5_000_000)).toBeNull();
  });
});

describe('markInWindow', () => {
  const win = windowOf(20_000, LONG);
  it('places a match inside the window relative to its start', () => {
    expect(markInWindow({ column: 21_000, length: 6 }, win)).toEqual({ from: 1_000, to: 1_006 });
    // An empty match marks one character.
    expect(markInWindow({ column: 20_000, length: 0 }, win)).toEqual({ from: 0, to: 1 });
  });

  it('marks the part of a match that crosses an edge, and nothing outside', () => {
    expect(markInWindow({ column: 19_998, length: 6 }, win)).toEqual({ from: 0, to: 4 });
    expect(markInWindow({ column: 23_998, length: 6 }, win)).toEqual({ from: 3_998, to: 4_000 });
    expect(markInWindow({ column: 19_000, length: 6 }, win)).toBeNull();
    expect(markInWindow({ column: 24_000, length: 6 }, win)).toBeNull();
  });
});

describe('currentLongLine', () => {
  const long = new Set([3, 7, 40]);
  const isLong = (line: number) => long.has(line);
  it('prefers the line last moved, then the highlighted one, when on screen and long', () => {
    expect(currentLongLine([7, 3], 1, 30, isLong)).toBe(7);
    expect(currentLongLine([null, 7], 1, 30, isLong)).toBe(7);
    expect(currentLongLine([5, null], 1, 30, isLong)).toBe(3);
  });

  it('falls back to the first long line on screen, or none', () => {
    expect(currentLongLine([40], 1, 30, isLong)).toBe(3);
    expect(currentLongLine([null, null], 4, 30, isLong)).toBe(7);
    expect(currentLongLine([null, null], 8, 30, isLong)).toBeNull();
  });
});
