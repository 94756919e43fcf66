/**
 * The tools served over MCP: the usable tools (tool, function and bundle switched on) of the
 * bundles Settings → MCP server names, one version per bundle and slug (the highest), named
 * as a model in the chat would name them (the slug; `bundle__slug` where two share one).
 * `tool_output` is served beside them and its name is never given to a registry tool.
 *
 * Each carries whether it asks before it runs, computed with the list (shared/model/tool-approval.ts).
 * The list is kept until the store or the settings change, so a call does not rebuild it.
 */
import type { McpServerSettings } from '../../../shared/model/mcp-serve';
import type { ToolView } from '../../../shared/model/tool';
import { approvalContext, approvalOf, type ApprovalInfo } from '../../../shared/model/tool-approval';
import { TOOL_OUTPUT_TOOL } from '../agent/tool-behavior';
import { toolsForModel, usableTools } from '../agent/tools-for-model';
import type { ToolStore } from '../bundles/tool-store';
import { TOOL_OUTPUT_NAME } from '../tool-output/messages';

export interface ServedTool {
  /** The name MCP clients call it by. */
  name: string;
  tool: ToolView;
  bundleSlug: string;
  description: string;
  /** The tool's argSchema, always with an object at its root (MCP requires it). */
  inputSchema: { type: 'object'; [k: string]: unknown };
  /** Why a call waits for approval in the app (shared/model/tool-approval.ts), or null when it runs at once. */
  approval: ApprovalInfo | null;
}

export interface ServedList {
  tools: readonly ServedTool[];
  byName: ReadonlyMap<string, ServedTool>;
}

const EMPTY: ServedList = { tools: [], byName: new Map() };

export class ServedTools {
  private cached: ServedList | undefined;

  constructor(
    private readonly store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById'>,
    private readonly settings: () => McpServerSettings,
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
    const set = toolsForModel({ usable, modelRouting: [], modelOnly: [TOOL_OUTPUT_TOOL] });
    const tools: ServedTool[] = [];
    // Over every tool, served or not: a built-in tool declares which functions ask, a sequence's steps may be anywhere.
    const approvals = approvalContext(() => this.store.allTools());
    for (const mt of set.tools) {
      if (!mt.tool || mt.name === TOOL_OUTPUT_NAME) continue;
      const approval = approvalOf(mt.tool, approvals);
      tools.push({ name: mt.name, tool: mt.tool, bundleSlug: mt.bundleSlug ?? '', description: mt.spec.description, inputSchema: objectSchema(mt.spec.parameters), approval });
    }
    this.cached = { tools, byName: new Map(tools.map((t) => [t.name, t])) };
    return this.cached;
  }
}

/** MCP wants an object schema at the root; a tool's argSchema always describes an object of arguments. */
function objectSchema(schema: unknown): ServedTool['inputSchema'] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { type: 'object' };
  const s = schema as Record<string, unknown>;
  return s.type === 'object' ? (s as ServedTool['inputSchema']) : { ...s, type: 'object' };
}
