import { create } from 'zustand';

export const SCREENS = ['chat', 'tools', 'inspect', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

function screenFromHash(): Screen {
  const h = location.hash.replace(/^#\/?/, '').split('/')[0];
  return (SCREENS as readonly string[]).includes(h ?? '') ? (h as Screen) : 'chat';
}

/** What the Inspect screen shows: a buffer of a conversation or run, a workspace file, or a stored output. */
export type InspectTarget = { kind: 'buffer'; ownerId: string; name: string } | { kind: 'file'; path: string } | { kind: 'output'; handle: string };

interface UiState {
  screen: Screen;
  go(screen: Screen): void;
  syncFromHash(): void;
  /** Tools screen: the bundle whose tools are listed (null: all), and the disabled filter. */
  toolsBundleId: string | null;
  toolsIncludeDisabled: boolean;
  selectBundle(id: string | null): void;
  setIncludeDisabled(on: boolean): void;
  /** Chat screen: the open conversation (also whose buffers Inspect lists). */
  conversationId: string | null;
  /** Opens a conversation; with `messageId` (a search's match), the chat scrolls to that message. */
  selectConversation(id: string | null, messageId?: string): void;
  /** The message to bring into view once shown; cleared by the chat when it did. */
  messageFocus: string | null;
  clearMessageFocus(): void;
  /** Inspect screen: what to open; set by a manifest's link, then the screen switches. */
  inspectTarget: InspectTarget | null;
  openInspector(target: InspectTarget): void;
  /** Settings screen: what to bring into view when it opens (the first-run checklist's links); cleared once done. */
  settingsFocus: SettingsFocus | null;
  openSettings(focus: SettingsFocus): void;
  clearSettingsFocus(): void;
}

/** Places in Settings another screen can send the user to. */
export type SettingsFocus = 'add-provider' | 'allowed-hosts';

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
  conversationId: null,
  selectConversation: (conversationId, messageId) => set({ conversationId, messageFocus: messageId ?? null }),
  messageFocus: null,
  clearMessageFocus: () => set({ messageFocus: null }),
  inspectTarget: null,
  openInspector(target) {
    set({ inspectTarget: target });
    useUi.getState().go('inspect');
  },
  settingsFocus: null,
  openSettings(focus) {
    set({ settingsFocus: focus });
    useUi.getState().go('settings');
  },
  clearSettingsFocus: () => set({ settingsFocus: null }),
}));
