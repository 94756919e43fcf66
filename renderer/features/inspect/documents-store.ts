/**
 * Inspect → Documents UI state, kept while the user visits other screens: the filters, the
 * document open, and what is typed in each document's description and tags until saved.
 */
import { create } from 'zustand';
import { emptyFilters, type DescribeDraft, type DocumentFilters } from './document-filters';

interface DocumentsUiState {
  filters: DocumentFilters;
  setFilters(patch: Partial<DocumentFilters>): void;
  clearFilters(): void;
  selected: string | null;
  select(path: string | null): void;
  /** Unsaved description and tags, by path. */
  drafts: Record<string, DescribeDraft>;
  setDraft(path: string, draft: DescribeDraft | null): void;
}

export const useDocumentsUi = create<DocumentsUiState>((set) => ({
  filters: emptyFilters(),
  setFilters: (patch) => set((s) => ({ filters: { ...s.filters, ...patch } })),
  clearFilters: () => set({ filters: emptyFilters() }),
  selected: null,
  select: (selected) => set({ selected }),
  drafts: {},
  setDraft: (path, draft) =>
    set((s) => {
      const drafts = { ...s.drafts };
      if (draft) drafts[path] = draft;
      else delete drafts[path];
      return { drafts };
    }),
}));
