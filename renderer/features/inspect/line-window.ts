/**
 * The part of a long line the buffer viewer draws: a window of at most MAX_DRAWN_CHARS
 * characters, at the line's head unless it was moved (Earlier, Later, Line start, Line end)
 * or opened around a search match. What lies before and after the window is counted, not
 * drawn, so no line is ever drawn whole however long it is. Pure functions, unit-tested.
 */
import { MAX_DRAWN_CHARS } from './viewport';

/** A window on a line: characters start..end (end excluded), and how many lie before and after it. */
export interface LineWindow {
  start: number;
  end: number;
  before: number;
  after: number;
}

export type WindowMove = 'start' | 'earlier' | 'later' | 'end';

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/**
 * The length of a line as drawn. `text` is the line, or only its head when `fullLength`
 * (the whole line's length) is longer; a whole line's trailing '\r' is not drawn.
 */
export function lineLength(text: string, fullLength?: number): number {
  if (fullLength !== undefined && fullLength > text.length) return fullLength;
  return text.endsWith('\r') ? text.length - 1 : text.length;
}

/** A window start moved into the line: from 0 to the last start that still fills a window. */
export function clampStart(start: number, length: number, max = MAX_DRAWN_CHARS): number {
  return clamp(Math.floor(start), 0, Math.max(0, length - max));
}

/**
 * Where a window starts that shows a match (column, length in characters): at the line's
 * head when the match lies there, else with the match in the middle (a match longer than
 * the window starts it).
 */
export function windowStartFor(column: number, matchLength: number, length: number, max = MAX_DRAWN_CHARS): number {
  const len = Math.max(1, matchLength);
  if (column + len <= max) return 0;
  if (len >= max) return clampStart(column, length, max);
  return clampStart(column + len / 2 - max / 2, length, max);
}

/** The start after a move: a whole window earlier or later, or to either end of the line. */
export function moveWindow(start: number, move: WindowMove, length: number, max = MAX_DRAWN_CHARS): number {
  const at = clampStart(start, length, max);
  if (move === 'start') return 0;
  if (move === 'end') return clampStart(length, length, max);
  return clampStart(move === 'earlier' ? at - max : at + max, length, max);
}

/** The window of a line of `length` characters that starts at `start` (moved into the line). */
export function windowOf(start: number, length: number, max = MAX_DRAWN_CHARS): LineWindow {
  const from = clampStart(start, length, max);
  const end = Math.min(length, from + max);
  return { start: from, end, before: from, after: length - end };
}

/**
 * The text of a window, from what is known of the line: the line itself, or its head when
 * `fullLength` says it goes on. Null when the window reaches past the head: that part has
 * to be read from the buffer.
 */
export function windowText(text: string, win: LineWindow, fullLength?: number): string | null {
  const headOnly = fullLength !== undefined && fullLength > text.length;
  if (headOnly && win.end > text.length) return null;
  return text.slice(win.start, win.end);
}

/**
 * The part of a match inside a window, in characters from the window's start (an empty
 * match marks one character); null when the match lies outside the window.
 */
export function markInWindow(match: { column: number; length: number }, win: LineWindow): { from: number; to: number } | null {
  const start = match.column;
  const end = match.column + Math.max(1, match.length);
  if (end <= win.start || start >= win.end) return null;
  return { from: Math.max(start, win.start) - win.start, to: Math.min(end, win.end) - win.start };
}

/**
 * The line the window controls act on: the first of `preferred` (the line last moved, the
 * highlighted line) that is on screen (first..last) and long, else the first long line on
 * screen; null when no line on screen is longer than a window.
 */
export function currentLongLine(preferred: readonly (number | null)[], first: number, last: number, isLong: (line: number) => boolean): number | null {
  for (const line of preferred) {
    if (line !== null && line >= first && line <= last && isLong(line)) return line;
  }
  for (let line = first; line <= last; line++) if (isLong(line)) return line;
  return null;
}
