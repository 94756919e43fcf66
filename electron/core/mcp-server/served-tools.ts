/**
 * The tools served over MCP: the usable tools (tool, function and bundle switched on) of the
 * bundles Settings → MCP server names, one version per bundle and slug (the highest), named
 * as a model in the chat would name them (the slug; `bundle__slug` where two share one).
 * `tool_output` and `tool_usage` (./tool-usage.ts) are served beside them and their names are
 * never given to a registry tool (a user's tool of either name is served as `…_2`); nor is
 * `tool_search` while progressive discovery may be on (./discovery.ts), so a user's tool of that
 * name is served as `tool_search_2` then, and under its own name when discovery is off.
 *
 * Each carries whether it asks before it runs, computed with the list (shared/model/tool-approval.ts).
 * The list is kept until the store or the settings change, so a call does not rebuild it.
 */
import type { McpServerSettings } from '../../../shared/model/mcp-serve';
import type { ToolView } from '../../../shared/model/tool';
import { approvalContext, approvalOf, type ApprovalInfo } from '../../../shared/model/tool-approval';
import { DEFAULT_TOOL_SEARCH_SETTINGS, type ToolSearchSettings } from '../../../shared/model/tool-search';
import { toolSearchTool } from '../agent/deferred-tools';
import { TOOL_OUTPUT_TOOL } from '../agent/tool-behavior';
import { toolsForModel, usableTools } from '../agent/tools-for-model';
import type { ToolStore } from '../bundles/tool-store';
import { TOOL_OUTPUT_NAME } from '../tool-output/messages';
import { servedOutputSchema } from './annotations';
import { ServedSearch, searching } from './discovery';
import { TOOL_USAGE_NAME, TOOL_USAGE_TOOL } from './tool-usage';

export interface ServedTool {
  /** The name MCP clients call it by. */
  name: string;
  tool: ToolView;
  bundleSlug: string;
  /** The bundle's display name (tool_search reads it). */
  bundleName: string;
  description: string;
  /** The tool's argSchema, always with an object at its root (MCP requires it). */
  inputSchema: { type: 'object'; [k: string]: unknown };
  /** Why a call waits for approval in the app (shared/model/tool-approval.ts), or null when it runs at once. */
  approval: ApprovalInfo | null;
  /** The tool's output schema as served (./annotations.ts); its results then carry structuredContent. */
  outputSchema?: { type: 'object'; [k: string]: unknown };
}

export interface ServedList {
  tools: readonly ServedTool[];
  byName: ReadonlyMap<string, ServedTool>;
  /** Set when clients search for tools instead of getting every one (./discovery.ts). */
  search?: ServedSearch;
}

const EMPTY: ServedList = { tools: [], byName: new Map() };

export class ServedTools {
  private cached: ServedList | undefined;

  constructor(
    private readonly store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById'> & Partial<Pick<ToolStore, 'approvals'>>,
    private readonly settings: () => McpServerSettings,
    /** Settings → Tool search: the pinned tools and how many tools a search returns. */
    private readonly toolSearch: () => Pick<ToolSearchSettings, 'pinned' | 'results'> = () => DEFAULT_TOOL_SEARCH_SETTINGS,
    /** The served tools listed beside tool_search while clients search: tool_output, and tool_usage when served. */
    private readonly extras = 1,
  ) {}

  /** Forget the list: the store or the settings changed. */
  invalidate(): void {
    this.cached = undefined;
  }

  enabled(): boolean {
    return this.settings().enabled;
  }

  list(): ServedList {
    if (this.cached) return this.cached;
    const s = this.settings();
    if (!s.enabled || s.bundleIds.length === 0) return (this.cached = EMPTY);
    const bundles = new Set(s.bundleIds);
    const usable = usableTools(this.store).filter((c) => bundles.has(c.tool.bundleId));
    // tool_search's name is kept free whenever discovery may be on, so a tool's name does not change with the count.
    const reserved = s.toolSearch.mode === 'off' ? [TOOL_OUTPUT_TOOL, TOOL_USAGE_TOOL] : [TOOL_OUTPUT_TOOL, TOOL_USAGE_TOOL, toolSearchTool(0, 0)];
    const set = toolsForModel({ usable, modelRouting: [], modelOnly: reserved });
    const tools: ServedTool[] = [];
    // Over every tool, served or not: a built-in tool declares which functions ask, a sequence's steps may be anywhere.
    const approvals = this.store.approvals?.() ?? approvalContext(() => this.store.allTools());
    for (const mt of set.tools) {
      if (!mt.tool || mt.modelOnly || mt.name === TOOL_OUTPUT_NAME || mt.name === TOOL_USAGE_NAME) continue;
      const approval = approvalOf(mt.tool, approvals);
      const outputSchema = servedOutputSchema(mt.tool.outputSchema, mt.tool);
      tools.push({ name: mt.name, tool: mt.tool, bundleSlug: mt.bundleSlug ?? '', bundleName: mt.bundleName ?? '', description: mt.spec.description, inputSchema: objectSchema(mt.spec.parameters), approval, ...(outputSchema ? { outputSchema } : {}) });
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    this.cached = { tools, byName, ...(searching(s.toolSearch, tools.length) ? { search: new ServedSearch(tools, byName, this.toolSearch(), this.extras) } : {}) };
    return this.cached;
  }
}

/** MCP wants an object schema at the root; a tool's argSchema always describes an object of arguments. */
function objectSchema(schema: unknown): ServedTool['inputSchema'] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { type: 'object' };
  const s = schema as Record<string, unknown>;
  return s.type === 'object' ? (s as ServedTool['inputSchema']) : { ...s, type: 'object' };
}
