/**
 * Whether the chat's side panel (Workflows and Context) is folded away to a narrow rail,
 * remembered in localStorage across reloads. A storage that cannot be read or written
 * (private mode, quota) only loses the memory, never the toggle.
 */
import { useCallback, useState } from 'react';

export const SIDE_COLLAPSED_KEY = 'toolsmith.chat.sideCollapsed';

function read(): boolean {
  try {
    return globalThis.localStorage?.getItem(SIDE_COLLAPSED_KEY) === '1';
  } catch {
    return false;
  }
}

export function useSideCollapsed(): [boolean, (collapsed: boolean) => void] {
  const [collapsed, setState] = useState(read);
  const set = useCallback((next: boolean) => {
    setState(next);
    try {
      globalThis.localStorage?.setItem(SIDE_COLLAPSED_KEY, next ? '1' : '0');
    } catch {
      // Not remembered; the panel still folds.
    }
  }, []);
  return [collapsed, set];
}
