/**
 * Evals to open on the Tools screen, handed over from elsewhere (a case just saved from the
 * chat, the findability report's "Evals" of a tool): the workbench takes it once and shows
 * the bundle's evals, with that case open or only the cases of that tool.
 */
import { create } from 'zustand';

export interface EvalsTarget {
  bundleId: string;
  /** A case to open in the editor. */
  caseId?: string;
  /** Only the cases that expect this tool (a slug of the bundle, or bundle/slug). */
  tool?: string;
}

interface EvalsOpenState {
  toOpen: EvalsTarget | null;
  open(target: EvalsTarget): void;
  /** The evals to open, once. */
  take(): EvalsTarget | null;
}

export const useEvalsOpen = create<EvalsOpenState>((set, get) => ({
  toOpen: null,
  open: (target) => set({ toOpen: target }),
  take() {
    const target = get().toOpen;
    if (target) set({ toOpen: null });
    return target;
  },
}));
