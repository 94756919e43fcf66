/**
 * A buffer's (or a stored output's) text, virtualised: lines of a fixed height, only those on screen (plus some
 * overscan) in the DOM, read page by page as they scroll into view (useBufferPages). Opens
 * a 100 MB buffer as fast as a small one. Long lines scroll sideways and are drawn a window
 * of MAX_DRAWN_CHARS at a time (line-window.ts): at the head, or around a search match, and
 * moved with the bar under the viewer (LineWindowBar) or the markers at the window's ends;
 * line numbers stay in view. A jump (go to line, a search result) scrolls the line to the
 * middle and highlights it.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type CSSProperties } from 'react';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { BufferLine, type LineMove } from './BufferLine';
import { useInspect } from './inspect-store';
import { currentLongLine, lineLength, markInWindow, moveWindow, windowOf, windowStartFor } from './line-window';
import { LineWindowBar } from './LineWindowBar';
import { useBufferPages, type PageSource } from './use-buffer-pages';
import { LINE_HEIGHT, MAX_DRAWN_CHARS, pageLinesFor, pageOf, scrollHeight, scrollTopForLine, visibleWindow, type Geometry } from './viewport';

interface BufferViewerProps {
  /** A buffer, or a stored output (Inspect → Stored outputs). */
  source: PageSource;
  /** The accessible name of the viewer. */
  label: string;
  /** From the buffer list; the pages read correct the line count if the buffer changed since. */
  totalLines: number;
  totalChars: number;
  /** Whether go-to-line and search results (useInspect().jump) scroll this viewer; default true. */
  followJump?: boolean;
  testId?: string;
}

/** Where to scroll sideways once the line is drawn: to the match, or to the drawn window's start or end. */
type Sideways = { to: 'mark'; line: number; column: number } | { to: 'start' } | { to: 'end'; line: number };

export function BufferViewer({ source, label, totalLines: listedLines, totalChars, followJump = true, testId = 'buffer-viewer' }: BufferViewerProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(400);
  const [highlight, setHighlight] = useState<number | null>(null);
  /** The search match on the highlighted line: marked, and scrolled into view sideways. */
  const [mark, setMark] = useState<{ column: number; length: number } | null>(null);
  /** The window the user moved, on one line; other lines draw their head, the marked line its match. */
  const [moved, setMoved] = useState<{ line: number; start: number } | null>(null);
  /** Whether a long line was on screen: from then on the window bar stays, so the layout does not jump. */
  const [seenLong, setSeenLong] = useState(false);
  const [readLines, setReadLines] = useState<number | null>(null);
  const sideways = useRef<Sideways | null>(null);
  const jumpRequest = useInspect((st) => st.jump);
  const jump = followJump ? jumpRequest : null;
  // Opened from a link (a manifest in the chat): the viewer takes the focus, not <body>.
  const focusViewer = useInspect((st) => followJump && st.focusViewer);
  const viewerFocused = useInspect((st) => st.viewerFocused);
  useEffect(() => {
    if (!focusViewer || !scrollRef.current) return;
    scrollRef.current.focus({ preventScroll: true });
    viewerFocused();
  });

  const totalLines = readLines ?? listedLines;
  const geometry: Geometry = { totalLines, lineHeight: LINE_HEIGHT, viewportHeight };
  const pageLines = pageLinesFor(totalChars, totalLines);
  const win = visibleWindow(scrollTop, geometry);
  const pages = useBufferPages(source, totalLines, pageLines, win?.first ?? 1, win?.last ?? 0);

  // A page read tells the true line count (the list may be a moment behind the buffer).
  const firstLoaded = [...pages.values()].find((p) => p.status === 'ok' && !p.stale);
  const reportedLines = firstLoaded?.status === 'ok' ? firstLoaded.page.totalLines : null;
  useEffect(() => {
    if (reportedLines !== null) setReadLines(reportedLines);
  }, [reportedLines]);
  useEffect(() => setReadLines(null), [listedLines]);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const measure = () => setViewportHeight(el.clientHeight || 400);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // Only a new jump scrolls: a change in the line count keeps the position.
  const linesNow = useRef(totalLines);
  useLayoutEffect(() => {
    linesNow.current = totalLines;
  });
  useEffect(() => {
    const el = scrollRef.current;
    const total = linesNow.current;
    if (!jump || !el || total === 0) return;
    const line = Math.min(Math.max(1, jump.line), total);
    const top = scrollTopForLine(line, { totalLines: total, lineHeight: LINE_HEIGHT, viewportHeight: el.clientHeight || 400 });
    el.scrollTop = top;
    setScrollTop(el.scrollTop);
    setHighlight(line);
    setMark(jump.column !== undefined ? { column: jump.column, length: jump.length ?? 0 } : null);
    setMoved(null);
    sideways.current = jump.column !== undefined ? { to: 'mark', line, column: jump.column } : null;
  }, [jump]);
  // Once the match (or the moved window) is drawn, scroll sideways to it, once: the user may scroll away after.
  // Tried after each render, and when a line drew a window read on its own (LineSlice).
  const marked = useRef<HTMLElement | null>(null);
  const scrollSideways = useCallback(() => {
    const el = scrollRef.current;
    const want = sideways.current;
    if (!el || !want) return;
    if (want.to === 'start') {
      el.scrollLeft = 0;
    } else if (want.to === 'mark') {
      // The mark drawn for this match (in the commit of a new jump, the previous one is still there).
      const m = marked.current;
      if (!m || m.dataset.column !== String(want.column) || !m.closest(`[data-testid="buffer-line-${want.line}"]`)) return;
      el.scrollLeft = Math.max(0, m.offsetLeft - el.clientWidth / 2);
    } else {
      const text = el.querySelector<HTMLElement>(`[data-testid="buffer-line-${want.line}"] .line-text`);
      if (!text || text.querySelector('.line-pending')) return;
      el.scrollLeft = Math.max(0, text.offsetLeft + text.offsetWidth - el.clientWidth);
    }
    sideways.current = null;
  }, []);
  useEffect(scrollSideways);

  // What is known of a line: its text (or only its head) and its length.
  const known = (line: number) => {
    const state = pages.get(pageOf(line, pageLines));
    if (state?.status !== 'ok') return null;
    const i = line - state.page.startLine;
    const text = state.page.lines[i];
    if (text === undefined) return null;
    return { text, length: lineLength(text, state.page.lengths?.[i]) };
  };
  /** Where a line's window starts: as moved, around the match on the highlighted line, else the head. */
  const startOf = (line: number, length: number) => {
    if (moved?.line === line) return moved.start;
    if (line === highlight && mark) return windowStartFor(mark.column, mark.length, length);
    return 0;
  };
  const onScreen = visibleWindow(scrollTop, geometry, 0);
  const current = onScreen
    ? currentLongLine([moved?.line ?? null, highlight], onScreen.first, onScreen.last, (line) => (known(line)?.length ?? 0) > MAX_DRAWN_CHARS)
    : null;
  if (current !== null && !seenLong) setSeenLong(true);

  const move: LineMove = (line, length, from, to) => {
    const start = to === 'match' && mark ? windowStartFor(mark.column, mark.length, length) : moveWindow(from, to === 'match' ? 'start' : to, length);
    if (line !== highlight) {
      setHighlight(line);
      setMark(null);
    }
    setMoved({ line, start });
    sideways.current = to === 'match' && mark ? { to: 'mark', line, column: mark.column } : to === 'start' || to === 'later' ? { to: 'start' } : { to: 'end', line };
  };

  if (totalLines === 0) {
    return (
      <div className="buffer-viewer buffer-viewer-empty" data-testid={testId} role="region" aria-label={label}>
        <p className="muted">{s.viewer.emptyBuffer}</p>
      </div>
    );
  }

  const gutter = `${Math.max(3, String(totalLines).length) + 1}ch`;
  // A short buffer gets a short viewer (plus room for a horizontal scrollbar).
  const height = `min(60vh, ${scrollHeight(geometry) + 20}px)`;
  const rows = [];
  if (win) {
    for (let line = win.first; line <= win.last; line++) {
      const page = pageOf(line, pageLines);
      const length = known(line)?.length ?? 0;
      rows.push(
        <BufferLine
          key={line}
          line={line}
          source={source}
          state={pages.get(page)}
          pageStart={page * pageLines + 1}
          pageEnd={Math.min(totalLines, (page + 1) * pageLines)}
          first={win.first}
          start={startOf(line, length)}
          highlighted={line === highlight}
          mark={line === highlight ? mark : null}
          markRef={marked}
          onMove={move}
          onDrawn={scrollSideways}
        />,
      );
    }
  }

  let bar = null;
  if (current !== null) {
    const length = known(current)?.length ?? 0;
    const at = windowOf(startOf(current, length), length);
    const lineMark = current === highlight ? mark : null;
    bar = <LineWindowBar line={current} length={length} window={at} matchAway={lineMark !== null && markInWindow(lineMark, at) === null} onMove={(to) => move(current, length, at.start, to)} />;
  } else if (seenLong) {
    bar = <LineWindowBar line={null} />;
  }

  return (
    <>
      <div
        ref={scrollRef}
        className="buffer-viewer"
        data-testid={testId}
        role="region"
        aria-label={label}
        tabIndex={0}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        style={{ '--gutter': gutter, height } as CSSProperties}
      >
        <div className="buffer-content" style={{ height: scrollHeight(geometry) }}>
          <div className="buffer-lines" style={{ transform: `translateY(${win?.top ?? 0}px)` }}>
            {rows}
          </div>
        </div>
      </div>
      {bar}
    </>
  );
}
