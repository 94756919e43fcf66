/**
 * Under the buffer viewer, for a line longer than one drawn window: which characters are
 * drawn, and buttons that move the window (to the line's start, a window earlier or later,
 * to the line's end, back to the search match). The keyboard's way to read a long line; the
 * markers inside the line do the same with the mouse.
 */
import { inspectStrings as s } from '../../i18n/inspect-strings';
import type { LineWindow, WindowMove } from './line-window';
import { MAX_DRAWN_CHARS } from './viewport';

type Props =
  | { line: number; length: number; window: LineWindow; matchAway: boolean; onMove(to: WindowMove | 'match'): void }
  /** No long line on screen (one was before): the bar stays, saying so. */
  | { line: null };

export function LineWindowBar(props: Props) {
  if (props.line === null) {
    return (
      <div className="line-window-bar" data-testid="line-window-bar">
        <span className="muted small">{s.viewer.window.none(MAX_DRAWN_CHARS)}</span>
      </div>
    );
  }
  const { line, length, window: win, matchAway, onMove } = props;
  const w = s.viewer.window;
  // aria-disabled rather than disabled: the focus stays on a button that reached the end.
  const button = (to: WindowMove, text: string, title: string, off: boolean) => (
    <button type="button" className="small-button" data-testid={`line-window-${to}`} title={title} aria-disabled={off} onClick={() => !off && onMove(to)}>
      {text}
    </button>
  );
  return (
    <div className="line-window-bar" role="group" aria-label={w.label} data-testid="line-window-bar">
      <span className="small" data-testid="line-window-range" aria-live="polite">
        {w.range(line, win.start + 1, win.end, length)}
      </span>
      {button('start', w.start, w.startTitle, win.before === 0)}
      {button('earlier', w.earlier, w.earlierTitle(Math.min(MAX_DRAWN_CHARS, win.before)), win.before === 0)}
      {button('later', w.later, w.laterTitle(Math.min(MAX_DRAWN_CHARS, win.after)), win.after === 0)}
      {button('end', w.end, w.endTitle, win.after === 0)}
      {matchAway && (
        <button type="button" className="small-button" data-testid="line-window-match" title={w.matchTitle} onClick={() => onMove('match')}>
          {w.match}
        </button>
      )}
    </div>
  );
}
