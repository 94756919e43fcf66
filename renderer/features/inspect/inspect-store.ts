/**
 * UI state of the Inspect screen, kept while the user visits other screens: the tab, the
 * buffer, the file and the stored output open, the folders expanded, and the last inspector target handled
 * (useUi().inspectTarget; a new target object is a new request, even for the same buffer).
 */
import { create } from 'zustand';
import type { InspectTarget } from '../../stores/ui';
import { parentPaths } from './file-tree';

export const INSPECT_TABS = ['buffers', 'files', 'documents', 'outputs', 'memory', 'tasks', 'timeline'] as const;
export type InspectTab = (typeof INSPECT_TABS)[number];

/** A line to show in the buffer viewer; `seq` makes asking for the same line again a new request. */
export interface LineRequest {
  line: number;
  seq: number;
  /** A search match on the line: its column and length, to scroll to and mark. */
  column?: number;
  length?: number;
}

interface InspectState {
  tab: InspectTab;
  setTab(tab: InspectTab): void;
  /** The buffer open in the viewer (of which owner: a target may name another than the open conversation). */
  buffer: { ownerId: string; name: string } | null;
  selectBuffer(buffer: { ownerId: string; name: string } | null): void;
  /** The line to bring into view and highlight in the buffer viewer. */
  jump: LineRequest | null;
  jumpTo(line: number, match?: { column: number; length: number }): void;
  /** The workspace file open in the Files tab, and the folders expanded in its tree. */
  file: string | null;
  expanded: ReadonlySet<string>;
  openFile(path: string | null): void;
  toggleFolder(path: string, open?: boolean): void;
  /** The stored output open in the Stored outputs tab, and whether that tab lists all conversations'. */
  output: string | null;
  selectOutput(handle: string | null): void;
  allOutputs: boolean;
  setAllOutputs(all: boolean): void;
  /** A buffer opened from a link waits for its viewer to take the focus (consumed by the viewer). */
  focusViewer: boolean;
  viewerFocused(): void;
  /**
   * The conversation picked here (Inspect's conversation bar): shown while the same conversation
   * stays open in Chat and no newer link asks for another owner. Null: the one open in Chat.
   */
  picked: PickedConversation | null;
  pickConversation(id: string, openInChat: string | null, target: InspectTarget | null): void;
  handledTarget: InspectTarget | null;
  /** Applies an inspector target once: switches the tab and opens the buffer or the file. */
  handleTarget(target: InspectTarget): void;
}

export interface PickedConversation {
  id: string;
  /** The conversation open in Chat, and the inspector target, when it was picked. */
  openInChat: string | null;
  target: InspectTarget | null;
}

/** The conversation the tabs show: the one picked here while Chat still has the same one open, else Chat's. */
export function inspectedConversation(picked: PickedConversation | null, openInChat: string | null): string | null {
  return picked && picked.openInChat === openInChat ? picked.id : openInChat;
}

/** Whose buffers the Buffers tab lists: a link's owner, unless a conversation was picked after it; else the inspected conversation. */
export function bufferOwner(target: InspectTarget | null, picked: PickedConversation | null, openInChat: string | null): string | null {
  if (target?.kind === 'buffer' && !(picked && picked.target === target && picked.openInChat === openInChat)) return target.ownerId;
  return inspectedConversation(picked, openInChat);
}

export const useInspect = create<InspectState>((set, get) => ({
  tab: 'buffers',
  setTab: (tab) => set({ tab }),
  buffer: null,
  selectBuffer: (buffer) => set({ buffer, jump: null }),
  jump: null,
  jumpTo: (line, match) => set((s) => ({ jump: { line, seq: (s.jump?.seq ?? 0) + 1, ...(match ?? {}) } })),
  file: null,
  expanded: new Set(),
  openFile(path) {
    if (path === null) return set({ file: null });
    const expanded = new Set(get().expanded);
    for (const p of parentPaths(path)) expanded.add(p);
    set({ file: path, expanded });
  },
  toggleFolder(path, open) {
    const expanded = new Set(get().expanded);
    const next = open ?? !expanded.has(path);
    if (next) expanded.add(path);
    else expanded.delete(path);
    set({ expanded });
  },
  output: null,
  selectOutput: (output) => set({ output }),
  allOutputs: false,
  setAllOutputs: (allOutputs) => set({ allOutputs }),
  focusViewer: false,
  viewerFocused: () => set({ focusViewer: false }),
  picked: null,
  pickConversation: (id, openInChat, target) => set({ picked: { id, openInChat, target } }),
  handledTarget: null,
  handleTarget(target) {
    if (get().handledTarget === target) return;
    set({ handledTarget: target });
    if (target.kind === 'buffer') {
      set({ tab: 'buffers', buffer: { ownerId: target.ownerId, name: target.name }, jump: null, focusViewer: true });
    } else if (target.kind === 'output') {
      set({ tab: 'outputs', output: target.handle });
    } else {
      set({ tab: 'files' });
      get().openFile(target.path);
    }
  },
}));
