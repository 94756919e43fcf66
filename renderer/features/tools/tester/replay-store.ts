/**
 * "Open in tester" on a chat's tool card: the call handed to the Tools screen, which opens
 * the call's exact tool version (`toOpen`, taken once) and whose tester loads the call's
 * arguments once (`argsLoaded`) and compares its runs with the chat's result for as long as
 * the call is `active` (until dismissed or another call is opened).
 */
import { create } from 'zustand';
import type { ReplaySource } from './replay';

interface ReplayState {
  /** The call whose tool the Tools screen should open; taken by the workbench. */
  toOpen: ReplaySource | null;
  /** The call the tester compares with. */
  active: (ReplaySource & { argsLoaded: boolean }) | null;
  open(source: ReplaySource): void;
  /** The call to open, once: the workbench opens its tool. */
  takeToOpen(): ReplaySource | null;
  /** The tester filled in the call's arguments. */
  markArgsLoaded(id: string): void;
  dismiss(): void;
}

export const useReplay = create<ReplayState>((set, get) => ({
  toOpen: null,
  active: null,
  open: (source) => set({ toOpen: source, active: { ...source, argsLoaded: false } }),
  takeToOpen() {
    const source = get().toOpen;
    if (source) set({ toOpen: null });
    return source;
  },
  markArgsLoaded: (id) => set((st) => (st.active?.id === id ? { active: { ...st.active, argsLoaded: true } } : st)),
  dismiss: () => set({ active: null, toOpen: null }),
}));
