/**
 * "Edit and run again" on a palette run's card: the tool and arguments handed to the
 * composer, which opens the run form prefilled with them. A new request object each time.
 */
import { create } from 'zustand';

export interface RerunRequest {
  bundleId: string;
  slug: string;
  version: string;
  args: unknown;
}

interface RerunState {
  request: RerunRequest | null;
  rerun(request: RerunRequest): void;
  done(): void;
}

export const useRerun = create<RerunState>((set) => ({
  request: null,
  rerun: (request) => set({ request: { ...request } }),
  done: () => set({ request: null }),
}));
