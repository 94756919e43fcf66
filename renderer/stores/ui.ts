import { create } from 'zustand';

export const SCREENS = ['chat', 'tools', 'inspect', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

function screenFromHash(): Screen {
  const h = location.hash.replace(/^#\/?/, '').split('/')[0];
  return (SCREENS as readonly string[]).includes(h ?? '') ? (h as Screen) : 'chat';
}

interface UiState {
  screen: Screen;
  go(screen: Screen): void;
  syncFromHash(): void;
  /** Tools screen: the bundle whose tools are listed (null: all), and the disabled filter. */
  toolsBundleId: string | null;
  toolsIncludeDisabled: boolean;
  selectBundle(id: string | null): void;
  setIncludeDisabled(on: boolean): void;
}

/** UI state only; server state lives in React Query. The screen is mirrored in the URL hash. */
export const useUi = create<UiState>((set) => ({
  screen: screenFromHash(),
  go(screen) {
    if (location.hash !== `#/${screen}`) location.hash = `#/${screen}`;
    set({ screen });
  },
  syncFromHash() {
    set({ screen: screenFromHash() });
  },
  toolsBundleId: null,
  toolsIncludeDisabled: true,
  selectBundle: (toolsBundleId) => set({ toolsBundleId }),
  setIncludeDisabled: (toolsIncludeDisabled) => set({ toolsIncludeDisabled }),
}));
