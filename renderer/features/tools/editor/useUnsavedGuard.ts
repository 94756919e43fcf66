import { useCallback, useEffect, useRef } from 'react';
import { editorStrings } from '../../../i18n/editor-strings';

const SCREEN_COUNT = 4;

/**
 * Unsaved changes are never lost silently. While `dirty`:
 * - closing or reloading the window asks (beforeunload);
 * - leaving the screen asks: a click on a sidebar entry, the Alt/Ctrl+1…4 shortcuts and
 *   the browser's back button (hashchange). Our listeners run in the capture phase, before
 *   the shell's own, and stop the event when the person chooses to stay.
 * `confirmLeave()` asks the same question for moves inside the screen (opening another
 * tool); it returns true when there is nothing to lose or the person agrees.
 */
export function useUnsavedGuard(dirty: boolean, message: string = editorStrings.unsaved.confirm): { confirmLeave(): boolean } {
  const dirtyRef = useRef(dirty);
  useEffect(() => {
    dirtyRef.current = dirty;
  }, [dirty]);

  useEffect(() => {
    if (!dirty) return;
    /** Once the person agreed to leave, the rest of the same navigation must not ask again. */
    let agreed = false;
    const stay = (): boolean => {
      if (agreed) return false;
      if (window.confirm(message)) {
        agreed = true;
        return false;
      }
      return true;
    };

    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older engines (and Electron) need returnValue set to show the prompt.
      e.returnValue = '';
    };
    const onClick = (e: MouseEvent) => {
      const target = e.target instanceof Element ? e.target.closest('[data-testid^="nav-"]') : null;
      if (!target || target.getAttribute('aria-current') === 'page') return;
      if (stay()) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (!(e.altKey || e.ctrlKey || e.metaKey) || e.shiftKey) return;
      const n = Number(e.key);
      if (!Number.isInteger(n) || n < 1 || n > SCREEN_COUNT) return;
      const current = document.querySelector('[data-testid^="nav-"][aria-current="page"]');
      const next = document.querySelectorAll('[data-testid^="nav-"]')[n - 1];
      if (next && next === current) return;
      if (stay()) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    const onHashChange = (e: HashChangeEvent) => {
      if (new URL(e.newURL).hash === new URL(e.oldURL).hash) return;
      if (stay()) {
        e.stopImmediatePropagation();
        history.replaceState(history.state, '', e.oldURL);
      }
    };

    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    window.addEventListener('keydown', onKeyDown, true);
    window.addEventListener('hashchange', onHashChange, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('keydown', onKeyDown, true);
      window.removeEventListener('hashchange', onHashChange, true);
    };
  }, [dirty, message]);

  const confirmLeave = useCallback(() => !dirtyRef.current || window.confirm(message), [message]);
  return { confirmLeave };
}
