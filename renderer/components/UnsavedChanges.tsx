/**
 * Unsaved changes are never lost silently, and the app asks about them itself (never with the
 * browser's confirm): a move that would drop them is stopped, a dialog asks "Discard unsaved
 * changes?" with Discard and Keep editing (the focus starts on Keep editing, Escape keeps, the
 * focus goes back where it was), and on Discard the same move is made, once.
 *
 *   const unsaved = useUnsavedChanges(dirty, { screen: true });
 *   <button onClick={() => unsaved.guard(() => open(other))}>…</button>
 *   {unsaved.prompt}
 *
 * `guard(move)` makes the move at once when nothing is unsaved. With `screen`, leaving the
 * screen is guarded too while there are changes: a click on a sidebar entry and the Alt/Ctrl+1…4
 * shortcuts are stopped before the shell sees them (capture phase), the browser's back button
 * (hashchange, which the shell asks about through `hashChangeHeld`: an event at the window
 * reaches its listeners in the order they were added) is undone; each is made again on Discard.
 * Closing or reloading the window cancels `beforeunload`: a browser then asks with its own prompt,
 * the only one a page may show there; the desktop app asks from its main process
 * (electron/host/shell/unsaved-prompt.ts, on `will-prevent-unload`).
 *
 * Test ids: the dialog `unsaved-changes`, its buttons `unsaved-discard` and `unsaved-keep`.
 */
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { formStrings } from '../i18n/form-strings';
import { Dialog } from './Dialog';
import './parts.css';

const s = formStrings.unsaved;
const SCREEN_COUNT = 4;

/** The screen guards active now, each answering whether it holds a hash change back. */
const hashGuards = new Set<(e: HashChangeEvent) => boolean>();

/**
 * Asked by the shell before it follows a hash change (the back button): true when unsaved
 * changes hold it back, the address already put back and the person being asked.
 */
export function hashChangeHeld(e: HashChangeEvent): boolean {
  for (const held of hashGuards) if (held(e)) return true;
  return false;
}

export interface UnsavedChangesDialogProps {
  open: boolean;
  /** A sentence under the question: what goes, where the title alone does not say it. */
  detail?: string;
  onDiscard(): void;
  /** Keep editing, Escape, or the browser closing the dialog. */
  onKeep(): void;
}

/** The question itself: an alert dialog, Keep editing focused first. */
export function UnsavedChangesDialog({ open, detail, onDiscard, onKeep }: UnsavedChangesDialogProps) {
  const detailId = useId();
  return (
    <Dialog open={open} title={s.question} role="alertdialog" describedBy={detail ? detailId : undefined} onClose={onKeep} data-testid="unsaved-changes">
      {detail && <p id={detailId}>{detail}</p>}
      <div className="form-actions">
        <button type="button" className="confirm-danger" data-testid="unsaved-discard" onClick={onDiscard}>
          {s.discard}
        </button>
        <button type="button" data-testid="unsaved-keep" data-autofocus onClick={onKeep}>
          {s.keep}
        </button>
      </div>
    </Dialog>
  );
}

export interface UnsavedChangesOptions {
  /** The sentence under the question (UnsavedChangesDialog's `detail`). */
  detail?: string;
  /** Also guard leaving the screen (sidebar, shortcuts, back button) and closing the window. */
  screen?: boolean;
}

export interface GuardOptions {
  /** This move's own sentence under the question. */
  detail?: string;
  /** Called when the person keeps editing: the move will not happen. */
  onKeep?: () => void;
}

export interface UnsavedChanges {
  /** Makes `move` now when nothing is unsaved, else asks first and makes it on Discard. */
  guard(move: () => void, opts?: GuardOptions): void;
  /** The question while it is asked (else nothing): render it anywhere in the component. */
  prompt: ReactNode;
}

interface Asking {
  move: () => void;
  detail?: string;
  onKeep?: () => void;
}

export function useUnsavedChanges(dirty: boolean, { detail, screen = false }: UnsavedChangesOptions = {}): UnsavedChanges {
  const dirtyRef = useRef(dirty);
  useEffect(() => {
    dirtyRef.current = dirty;
  }, [dirty]);
  const [asking, setAsking] = useState<Asking | null>(null);
  const askingRef = useRef<Asking | null>(null);
  /** The move agreed to, made once the dialog has closed and given the focus back. */
  const agreedMove = useRef<(() => void) | null>(null);

  const ask = useCallback((next: Asking) => {
    // A question already open keeps its move; the later one is dropped, as the page is inert meanwhile.
    if (askingRef.current) return;
    askingRef.current = next;
    setAsking(next);
  }, []);

  const guard = useCallback(
    (move: () => void, opts: GuardOptions = {}) => {
      if (!dirtyRef.current) return move();
      ask({ move, detail: opts.detail ?? detail, onKeep: opts.onKeep });
    },
    [ask, detail],
  );

  const keep = () => {
    const current = askingRef.current;
    askingRef.current = null;
    setAsking(null);
    current?.onKeep?.();
  };
  const discard = () => {
    agreedMove.current = askingRef.current?.move ?? null;
    askingRef.current = null;
    setAsking(null);
  };
  // The dialog's own cleanup (a child's) has given the focus back before this runs: the move
  // then puts it where it goes, as it would have without the question.
  useEffect(() => {
    if (asking) return;
    const move = agreedMove.current;
    agreedMove.current = null;
    move?.();
  }, [asking]);

  useEffect(() => {
    if (!screen || !dirty) return;
    /** Once the person agreed to leave, the rest of the same navigation is not asked about again. */
    let agreed = false;
    const stop = (e: Event, replay: () => void) => {
      e.preventDefault();
      e.stopImmediatePropagation();
      ask({
        detail,
        move: () => {
          agreed = true;
          replay();
        },
      });
    };

    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older engines (and Electron) need returnValue set to show the prompt.
      e.returnValue = '';
    };
    const onClick = (e: MouseEvent) => {
      if (agreed) return;
      const target = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-testid^="nav-"]') : null;
      if (!target || target.getAttribute('aria-current') === 'page') return;
      stop(e, () => {
        if (target.isConnected) target.click();
      });
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (agreed || !(e.altKey || e.ctrlKey || e.metaKey) || e.shiftKey) return;
      const n = Number(e.key);
      if (!Number.isInteger(n) || n < 1 || n > SCREEN_COUNT) return;
      const current = document.querySelector('[data-testid^="nav-"][aria-current="page"]');
      const next = document.querySelectorAll('[data-testid^="nav-"]')[n - 1];
      if (next && next === current) return;
      const init: KeyboardEventInit = { key: e.key, code: e.code, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey, bubbles: true, cancelable: true };
      stop(e, () => window.dispatchEvent(new KeyboardEvent('keydown', init)));
    };
    const holdHash = (e: HashChangeEvent): boolean => {
      if (agreed || new URL(e.newURL).hash === new URL(e.oldURL).hash) return false;
      // The address goes back to the screen still shown while the person is asked.
      history.replaceState(history.state, '', e.oldURL);
      const { oldURL, newURL } = e;
      stop(e, () => {
        history.replaceState(history.state, '', newURL);
        window.dispatchEvent(new HashChangeEvent('hashchange', { oldURL, newURL }));
      });
      return true;
    };

    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    window.addEventListener('keydown', onKeyDown, true);
    hashGuards.add(holdHash);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('keydown', onKeyDown, true);
      hashGuards.delete(holdHash);
    };
  }, [screen, dirty, detail, ask]);

  const prompt = asking ? <UnsavedChangesDialog open detail={asking.detail} onDiscard={discard} onKeep={keep} /> : null;
  return { guard, prompt };
}
