/**
 * The divider between the tool editor and the tester on wide windows: drag it, or focus it
 * and use the arrow keys (Shift for bigger steps, Home/End for the limits). The editor's
 * share of the width is remembered in this browser profile (localStorage).
 */
import { useCallback, useState, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import { editorStrings } from '../../../i18n/editor-strings';

const KEY = 'toolsmith.tools.editorShare';
export const MIN_SHARE = 25;
export const MAX_SHARE = 75;
const DEFAULT_SHARE = 55;

const clamp = (n: number) => Math.min(MAX_SHARE, Math.max(MIN_SHARE, Math.round(n)));

function stored(): number {
  try {
    const n = Number(localStorage.getItem(KEY));
    return Number.isFinite(n) && n > 0 ? clamp(n) : DEFAULT_SHARE;
  } catch {
    return DEFAULT_SHARE;
  }
}

/** The editor's share of the width (percent), kept across visits. */
export function useEditorShare(): [number, (n: number) => void] {
  const [share, setShare] = useState(stored);
  const set = useCallback((n: number) => {
    const v = clamp(n);
    setShare(v);
    try {
      localStorage.setItem(KEY, String(v));
    } catch {
      // A profile without storage keeps the width for this visit only.
    }
  }, []);
  return [share, set];
}

export function SplitDivider({ share, onShare, container, controls }: { share: number; onShare: (n: number) => void; container: RefObject<HTMLElement | null>; controls: string }) {
  const [dragging, setDragging] = useState(false);
  const shareAt = (clientX: number) => {
    const box = container.current?.getBoundingClientRect();
    return box && box.width > 0 ? ((clientX - box.left) / box.width) * 100 : share;
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    e.currentTarget.focus();
    setDragging(true);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (dragging) onShare(shareAt(e.clientX));
  };
  const stop = (e: PointerEvent<HTMLDivElement>) => {
    if (!dragging) return;
    setDragging(false);
    e.currentTarget.releasePointerCapture(e.pointerId);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? 10 : 2;
    const next = e.key === 'ArrowLeft' ? share - step : e.key === 'ArrowRight' ? share + step : e.key === 'Home' ? MIN_SHARE : e.key === 'End' ? MAX_SHARE : null;
    if (next === null) return;
    e.preventDefault();
    onShare(next);
  };
  return (
    <div
      role="separator"
      tabIndex={0}
      aria-orientation="vertical"
      aria-label={editorStrings.workbench.resize}
      aria-controls={controls}
      aria-valuenow={share}
      aria-valuemin={MIN_SHARE}
      aria-valuemax={MAX_SHARE}
      aria-valuetext={editorStrings.workbench.resizeValue(share)}
      title={editorStrings.workbench.resizeHelp}
      className={dragging ? 'workbench-divider dragging' : 'workbench-divider'}
      data-testid="workbench-divider"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={stop}
      onPointerCancel={stop}
      onKeyDown={onKeyDown}
    />
  );
}
