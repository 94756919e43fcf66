/**
 * A tool an importer has just created, handed to the Tools screen's workbench, which opens it
 * in the editor with its tester beside it (taken once). The curl import hands over every tool
 * it makes: its arguments default to the command's values, so the tester's form starts filled
 * (tester/schema-form.ts `initialValue`) and "Run" sends the request as pasted.
 */
import { create } from 'zustand';
import type { ToolView } from '../../../../shared/model/tool';

interface CreatedToolState {
  /** The tool to open; taken by the workbench. */
  toOpen: ToolView | null;
  /** The notice shown above the opened tool. */
  notice?: string;
  open(tool: ToolView, notice?: string): void;
  /** The tool to open, once. */
  take(): { tool: ToolView; notice?: string } | null;
}

export const useCreatedTool = create<CreatedToolState>((set, get) => ({
  toOpen: null,
  open: (tool, notice) => set({ toOpen: tool, notice }),
  take() {
    const { toOpen: tool, notice } = get();
    if (!tool) return null;
    set({ toOpen: null, notice: undefined });
    return { tool, ...(notice !== undefined ? { notice } : {}) };
  },
}));
