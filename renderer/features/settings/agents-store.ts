/**
 * Settings → Agents: the profile being created, edited or viewed, with what is typed in it,
 * kept while the user visits other screens (the form is unmounted there).
 */
import { create } from 'zustand';
import type { AgentDraft } from './agent-form';

export type AgentEditing =
  | { kind: 'new'; draft: AgentDraft; original: AgentDraft }
  | { kind: 'edit'; name: string; draft: AgentDraft; original: AgentDraft }
  | { kind: 'view'; name: string };

interface AgentsUiState {
  editing: AgentEditing | null;
  /** Counts the forms opened: each a fresh form (no errors of the last one). */
  seq: number;
  /** The last profile saved or deleted, for the section's status line. */
  notice: string | null;
  start(editing: AgentEditing): void;
  setDraft(draft: AgentDraft): void;
  /** Where the focus goes once the form is gone: the agent whose item gets it (its first button), or null for "New agent". */
  focusAfter: { agent: string | null } | null;
  close(notice?: string | null, focus?: { agent: string | null }): void;
  focused(): void;
}

export const useAgentsUi = create<AgentsUiState>((set, get) => ({
  editing: null,
  seq: 0,
  notice: null,
  start: (editing) => set((s) => ({ editing, notice: null, focusAfter: null, seq: s.seq + 1 })),
  setDraft(draft) {
    const e = get().editing;
    if (e && e.kind !== 'view') set({ editing: { ...e, draft } });
  },
  focusAfter: null,
  close(notice = null, focus) {
    const e = get().editing;
    set({ editing: null, notice, focusAfter: focus ?? { agent: e && e.kind !== 'new' ? e.name : null } });
  },
  focused: () => set({ focusAfter: null }),
}));
