/**
 * One line of the buffer viewer: its number and the window of its text that is drawn
 * (line-window.ts), with the search match marked and what lies before and after counted.
 * A window past the head of a line read by offsets (a page of huge lines) is read from the
 * buffer on its own (LineSlice).
 */
import { useEffect, type MutableRefObject } from 'react';
import { useOp } from '../../api/hooks';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { lineLength, markInWindow, windowOf, windowText, type LineWindow, type WindowMove } from './line-window';
import type { PageSource, PageState } from './use-buffer-pages';

/** Moves the window of `line` (of `length` characters, drawn from `from`); 'match' goes back to the search match. */
export type LineMove = (line: number, length: number, from: number, to: WindowMove | 'match') => void;

type Mark = { column: number; length: number } | null;

interface BufferLineProps {
  line: number;
  source: PageSource;
  state: PageState | undefined;
  pageStart: number;
  pageEnd: number;
  first: number;
  /** Where the drawn window starts (moved into the line). */
  start: number;
  highlighted: boolean;
  mark: Mark;
  markRef: MutableRefObject<HTMLElement | null>;
  onMove: LineMove;
  /** Called when a window read on its own has been drawn (the viewer renders nothing then). */
  onDrawn(): void;
}

export function BufferLine({ line, source, state, pageStart, pageEnd, first, start, highlighted, mark, markRef, onMove, onDrawn }: BufferLineProps) {
  let body;
  if (state?.status === 'ok') {
    const i = line - state.page.startLine;
    const text = state.page.lines[i] ?? '';
    const full = state.page.lengths?.[i];
    const length = lineLength(text, full);
    const win = windowOf(start, length);
    const drawn = windowText(text, win, full);
    const offset = state.page.offsets?.[i];
    const move = (to: WindowMove) => onMove(line, length, win.start, to);
    if (drawn !== null) body = <WindowText text={drawn} win={win} mark={mark} markRef={markRef} onMove={move} />;
    else if (source.kind === 'buffer' && offset !== undefined) body = <LineSlice source={source} offset={offset} onDrawn={onDrawn} win={win} mark={mark} markRef={markRef} onMove={move} />;
    else body = <span className="line-pending">{s.viewer.loadingLine}</span>;
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

interface WindowProps {
  win: LineWindow;
  mark: Mark;
  markRef: MutableRefObject<HTMLElement | null>;
  onMove(to: WindowMove): void;
}

/** A window read on its own: the part of a huge line past the head its page holds. */
function LineSlice({ source, offset, win, onDrawn, ...rest }: WindowProps & { source: Extract<PageSource, { kind: 'buffer' }>; offset: number; onDrawn(): void }) {
  const read = useOp('buffers.read', { ownerId: source.ownerId, name: source.name, offset: offset + win.start, length: Math.max(1, win.end - win.start) }, { staleTime: Infinity, retry: false });
  useEffect(() => {
    if (read.data) onDrawn();
  }, [read.data, onDrawn]);
  if (read.error) {
    return (
      <span className="line-error" role="alert">
        {s.viewer.sliceFailed(read.error.message)}
      </span>
    );
  }
  if (!read.data) return <span className="line-pending">{s.viewer.sliceLoading}</span>;
  // A read by offset can run into the next line when the buffer changed: draw this line's part only.
  const text = read.data.text.split('\n')[0]!.slice(0, win.end - win.start);
  return <WindowText text={win.after === 0 && text.endsWith('\r') ? text.slice(0, -1) : text} win={win} {...rest} />;
}

/** The drawn text, the match marked, and markers that count (and, clicked, show) the characters before and after. */
function WindowText({ text, win, mark, markRef, onMove }: WindowProps & { text: string }) {
  const at = mark ? markInWindow(mark, win) : null;
  return (
    <>
      {win.before > 0 && (
        <button type="button" className="line-cut" tabIndex={-1} title={s.viewer.showBefore} data-testid="buffer-chars-before" onClick={() => onMove('earlier')}>
          {s.viewer.charsBefore(win.before)}
        </button>
      )}
      {mark && at ? (
        <>
          {text.slice(0, at.from)}
          <mark className="jump-match" data-testid="buffer-jump-match" data-column={mark.column} ref={(el) => void (markRef.current = el)}>
            {text.slice(at.from, at.to)}
          </mark>
          {text.slice(at.to)}
        </>
      ) : (
        text
      )}
      {win.after > 0 && (
        <button type="button" className="line-cut" tabIndex={-1} title={s.viewer.showAfter} data-testid="buffer-chars-after" onClick={() => onMove('later')}>
          {s.viewer.charsAfter(win.after)}
        </button>
      )}
    </>
  );
}
