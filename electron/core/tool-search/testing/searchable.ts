/** The real registry as the ranking reads it. */
import { searchableTool, type SearchableTool } from '../document';
import type { RealTool } from './real-registry';

export function searchable(tools: readonly RealTool[]): SearchableTool[] {
  return tools.map((t) => searchableTool(t.key, { tool: t.tool, bundleSlug: t.bundleSlug }));
}
