/**
 * The maths of the buffer viewer: lines of a fixed height in a scroll container, only the
 * visible ones rendered, their text read in pages of lines. Pure functions, unit-tested.
 *
 * Browsers cap an element's height (Chromium near 33.5 million px, Firefox near 17.9
 * million), so past MAX_SCROLL_PX the scrollbar is scaled: the content is MAX_SCROLL_PX
 * tall and a scroll position maps proportionally onto the lines (`ratio`).
 */

/** Height of one line in px; the CSS of `.buffer-line` uses the same. */
export const LINE_HEIGHT = 20;
/** Lines rendered above and below the visible ones, so a small scroll shows no gap. */
export const OVERSCAN_LINES = 30;
/** At most this many lines are read at once. */
export const MAX_PAGE_LINES = 500;
/** A page aims at this many characters, so buffers of long lines are read in fewer lines at a time. */
export const PAGE_CHAR_BUDGET = 250_000;
/** Pages kept after they leave the screen (those on screen are always kept). */
export const MAX_CACHED_PAGES = 8;
/** The tallest scroll content we make; below every browser's cap. */
export const MAX_SCROLL_PX = 15_000_000;
/**
 * Characters of one line drawn at once: a window on the line (line-window.ts), at its head
 * unless moved or opened around a search match; the characters before and after are counted.
 */
export const MAX_DRAWN_CHARS = 4_000;

export interface Geometry {
  totalLines: number;
  lineHeight: number;
  /** Height of the scroll container's visible area, in px. */
  viewportHeight: number;
  /** Defaults to MAX_SCROLL_PX. */
  maxScrollPx?: number;
}

export interface VisibleWindow {
  /** First and last line to render, 1-based and inclusive (overscan included). */
  first: number;
  last: number;
  /** Where the first line's top goes in the scroll content, in px. */
  top: number;
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** Height of all lines at full size. */
export function virtualHeight(g: Geometry): number {
  return Math.max(0, g.totalLines) * g.lineHeight;
}

/** Height given to the scroll content. */
export function scrollHeight(g: Geometry): number {
  return Math.min(virtualHeight(g), g.maxScrollPx ?? MAX_SCROLL_PX);
}

/** Virtual px per scrolled px: 1 unless the content had to be scaled down. */
export function ratio(g: Geometry): number {
  const virtualRange = virtualHeight(g) - g.viewportHeight;
  const realRange = scrollHeight(g) - g.viewportHeight;
  if (virtualRange <= 0 || realRange <= 0 || virtualRange === realRange) return 1;
  return virtualRange / realRange;
}

/** The virtual y (px from the first line's top) at the top of the viewport for a scrollTop. */
export function toVirtualTop(scrollTop: number, g: Geometry): number {
  const maxScroll = Math.max(0, scrollHeight(g) - g.viewportHeight);
  return clamp(scrollTop, 0, maxScroll) * ratio(g);
}

/** The scrollTop that puts virtual y `virtualTop` at the top of the viewport. */
export function toScrollTop(virtualTop: number, g: Geometry): number {
  const maxVirtual = Math.max(0, virtualHeight(g) - g.viewportHeight);
  return clamp(virtualTop, 0, maxVirtual) / ratio(g);
}

/** The scrollTop that shows `line` in the middle of the viewport. */
export function scrollTopForLine(line: number, g: Geometry): number {
  const y = (clamp(line, 1, Math.max(1, g.totalLines)) - 1) * g.lineHeight;
  return toScrollTop(y - (g.viewportHeight - g.lineHeight) / 2, g);
}

/** The lines to render for a scroll position, and where they go; null for an empty buffer. */
export function visibleWindow(scrollTop: number, g: Geometry, overscan = OVERSCAN_LINES): VisibleWindow | null {
  if (g.totalLines <= 0) return null;
  const maxScroll = Math.max(0, scrollHeight(g) - g.viewportHeight);
  const clamped = clamp(scrollTop, 0, maxScroll);
  const vTop = toVirtualTop(clamped, g);
  const firstVisible = clamp(Math.floor(vTop / g.lineHeight) + 1, 1, g.totalLines);
  const lastVisible = clamp(Math.ceil((vTop + g.viewportHeight) / g.lineHeight), firstVisible, g.totalLines);
  const first = Math.max(1, firstVisible - overscan);
  const last = Math.min(g.totalLines, lastVisible + overscan);
  return { first, last, top: clamped + (first - 1) * g.lineHeight - vTop };
}

/** Lines per page: MAX_PAGE_LINES, fewer when lines are long on average (at least 1). */
export function pageLinesFor(totalChars: number, totalLines: number, budget = PAGE_CHAR_BUDGET, max = MAX_PAGE_LINES): number {
  if (totalLines <= 0) return max;
  const average = Math.max(1, totalChars / totalLines);
  return clamp(Math.floor(budget / average), 1, max);
}

/** The 0-based page holding a 1-based line. */
export function pageOf(line: number, pageLines: number): number {
  return Math.floor((Math.max(1, line) - 1) / pageLines);
}

/** The lines of a page, 1-based and inclusive, cut at the buffer's end. */
export function pageRange(page: number, pageLines: number, totalLines: number): { startLine: number; endLine: number } {
  const startLine = page * pageLines + 1;
  return { startLine, endLine: Math.max(startLine, Math.min(totalLines, startLine + pageLines - 1)) };
}

/** The pages that hold lines first..last. */
export function pagesFor(first: number, last: number, pageLines: number): number[] {
  if (last < first) return [];
  const pages: number[] = [];
  for (let p = pageOf(first, pageLines); p <= pageOf(last, pageLines); p++) pages.push(p);
  return pages;
}

/**
 * The pages to keep, most recently needed first: every needed page, then previously kept
 * ones up to `max` in all. Whatever falls off is dropped from the cache.
 */
export function retainPages(previous: readonly number[], needed: readonly number[], max = MAX_CACHED_PAGES): number[] {
  const kept = [...new Set(needed)];
  for (const p of previous) {
    if (kept.length >= max) break;
    if (!kept.includes(p)) kept.push(p);
  }
  return kept;
}

/**
 * A line as drawn: its first `max` characters and how many are left out. `fullLength` is
 * the line's length when `text` is only its head.
 */
export function drawnLine(text: string, max = MAX_DRAWN_CHARS, fullLength?: number): { text: string; hidden: number } {
  const whole = fullLength === undefined || fullLength <= text.length;
  const line = whole && text.endsWith('\r') ? text.slice(0, -1) : text;
  const length = whole ? line.length : fullLength;
  const shown = line.slice(0, max);
  return { text: shown, hidden: Math.max(0, length - shown.length) };
}

/**
 * A search match cut to at most about `max` characters around it: up to `lead` characters
 * before (with an ellipsis flag when cut), the match, the text after. The core sends long lines cut with a
 * trailing '…' while the column counts in the whole line: a match past the cut is reported
 * as `beyond` (the line's head is shown, with the column).
 */
export function matchSnippet(
  text: string,
  column: number,
  length: number,
  max = 240,
  lead = 30,
): { before: string; match: string; after: string; cutBefore: boolean; cutAfter: boolean; beyond: boolean } {
  const cutByCore = text.endsWith('\u2026');
  const known = cutByCore ? text.slice(0, -1) : text;
  if (column >= known.length && length > 0 && (cutByCore || column > known.length)) {
    return { before: known.slice(0, max), match: '', after: '', cutBefore: false, cutAfter: true, beyond: true };
  }
  const start = clamp(column, 0, known.length);
  const end = clamp(start + length, start, known.length);
  const room = Math.max(0, max - (end - start));
  // A little context before the match, so it stays in view in a narrow results list.
  const from = Math.max(0, start - Math.min(lead, Math.floor(room / 3)));
  const to = Math.min(known.length, end + (room - (start - from)));
  const matchEnd = Math.min(end, start + max);
  return {
    before: known.slice(from, start),
    match: known.slice(start, matchEnd),
    after: matchEnd < end ? '' : known.slice(end, Math.max(end, to)),
    cutBefore: from > 0,
    cutAfter: matchEnd < end || to < known.length || cutByCore,
    beyond: false,
  };
}
