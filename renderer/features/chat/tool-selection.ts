/**
 * Which tools a conversation's model may use: null is every enabled tool; otherwise the
 * tools of the chosen bundles and the chosen tools.
 */
import type { ToolSelection } from '../../../shared/model/provider';
import { compareVersions } from '../../../shared/versions';

export interface SelectableTool {
  id: string;
  bundleId: string;
}

export function isToolChosen(selection: ToolSelection | null | undefined, tool: SelectableTool): boolean {
  if (!selection) return true;
  return selection.bundleIds.includes(tool.bundleId) || selection.toolIds.includes(tool.id);
}

/** Switching from "every tool" to a choice starts from nothing chosen. */
export function startChoice(): ToolSelection {
  return { bundleIds: [], toolIds: [] };
}

export function toggleBundle(selection: ToolSelection, bundleId: string, on: boolean): ToolSelection {
  const bundleIds = selection.bundleIds.filter((b) => b !== bundleId);
  if (on) bundleIds.push(bundleId);
  return { ...selection, bundleIds };
}

export function toggleTool(selection: ToolSelection, toolId: string, on: boolean): ToolSelection {
  const toolIds = selection.toolIds.filter((t) => t !== toolId);
  if (on) toolIds.push(toolId);
  return { ...selection, toolIds };
}

/** How many of the given tools the selection lets the model use. */
export function countChosen(selection: ToolSelection | null | undefined, tools: readonly SelectableTool[]): number {
  return tools.filter((t) => isToolChosen(selection, t)).length;
}

/** The model sees one version of each tool (the highest): the others are left out of the list. */
export function latestVersions<T extends SelectableTool & { slug: string; version: string }>(tools: readonly T[]): T[] {
  const best = new Map<string, T>();
  for (const t of tools) {
    const key = `${t.bundleId}/${t.slug}`;
    const seen = best.get(key);
    if (!seen || compareVersions(seen.version, t.version) < 0) best.set(key, t);
  }
  return tools.filter((t) => best.get(`${t.bundleId}/${t.slug}`) === t);
}
