/**
 * A buffer's (or a stored output's) text, virtualised: lines of a fixed height, only those on screen (plus some
 * overscan) in the DOM, read page by page as they scroll into view (useBufferPages). Opens
 * a 100 MB buffer as fast as a small one. Long lines scroll sideways and are drawn up to
 * MAX_DRAWN_CHARS; line numbers stay in view. A jump (go to line, a search result) scrolls
 * the line to the middle and highlights it.
 */
import { useEffect, useLayoutEffect, useRef, useState, type CSSProperties } from 'react';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { useInspect } from './inspect-store';
import { useBufferPages, type PageSource, type PageState } from './use-buffer-pages';
import { drawnLine, LINE_HEIGHT, MAX_DRAWN_CHARS, pageLinesFor, pageOf, scrollHeight, scrollTopForLine, visibleWindow, type Geometry } from './viewport';

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

export function BufferViewer({ source, label, totalLines: listedLines, totalChars, followJump = true, testId = 'buffer-viewer' }: BufferViewerProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(400);
  const [highlight, setHighlight] = useState<number | null>(null);
  /** The search match on the highlighted line: marked, and scrolled into view sideways. */
  const [mark, setMark] = useState<{ column: number; length: number } | null>(null);
  const [readLines, setReadLines] = useState<number | null>(null);
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
  }, [jump]);
  // Once the marked match is drawn, bring it into view sideways (long lines scroll sideways).
  const marked = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const el = scrollRef.current;
    const m = marked.current;
    if (!el || !m || !mark) return;
    const left = m.offsetLeft - el.clientWidth / 2;
    el.scrollLeft = Math.max(0, left);
  });

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
      rows.push(<Line key={line} line={line} state={pages.get(page)} pageStart={page * pageLines + 1} pageEnd={Math.min(totalLines, (page + 1) * pageLines)} first={win.first} highlighted={line === highlight} mark={line === highlight ? mark : null} markRef={marked} />);
    }
  }

  return (
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
  );
}

interface LineProps {
  line: number;
  state: PageState | undefined;
  pageStart: number;
  pageEnd: number;
  first: number;
  highlighted: boolean;
  mark: { column: number; length: number } | null;
  markRef: React.MutableRefObject<HTMLElement | null>;
}

function Line({ line, state, pageStart, pageEnd, first, highlighted, mark, markRef }: LineProps) {
  let body;
  if (state?.status === 'ok') {
    const i = line - state.page.startLine;
    const { text, hidden } = drawnLine(state.page.lines[i] ?? '', MAX_DRAWN_CHARS, state.page.lengths?.[i]);
    const drawnMark = mark && mark.column < text.length ? mark : null;
    body = (
      <>
        {drawnMark ? (
          <>
            {text.slice(0, drawnMark.column)}
            <mark className="jump-match" data-testid="buffer-jump-match" ref={(el) => void (markRef.current = el)}>
              {text.slice(drawnMark.column, drawnMark.column + Math.max(1, drawnMark.length))}
            </mark>
            {text.slice(drawnMark.column + Math.max(1, drawnMark.length))}
          </>
        ) : (
          text
        )}
        {hidden > 0 && <span className="line-cut">{s.viewer.hiddenChars(hidden)}</span>}
        {mark && !drawnMark && (
          <span className="line-cut" data-testid="buffer-jump-beyond">
            {s.viewer.matchBeyond(mark.column + 1)}
          </span>
        )}
      </>
    );
  } else if (state?.status === 'error' && line === Math.max(pageStart, first)) {
    body = (
      <span className="line-error" role="alert">
        {s.viewer.pageFailed(pageStart, pageEnd, state.error.message)}
      </span>
    );
  } else {
    body = <span className="line-pending">{s.viewer.loadingLine}</span>;
  }
  return (
    <div className={highlighted ? 'buffer-line highlighted' : 'buffer-line'} data-testid={`buffer-line-${line}`} aria-current={highlighted ? 'location' : undefined}>
      <span className="line-number" aria-hidden="true">
        {line}
      </span>
      <span className="line-text">{body}</span>
    </div>
  );
}
