/**
 * The tools a model is given in a turn: the conversation's selection (absent: every usable
 * tool), plus the tools the message's `@tools` lines name, plus the model-only tools of
 * TOOL_BEHAVIOR (`stop_and_think`, `plan_next_steps`). Each carries its whole argSchema
 * (enum, items, nested objects), with `output`/`write_mode` added when the model may route
 * its results (routing/model-routing.ts).
 *
 * Names: providers accept letters, digits, `_` and `-` (at most 64). A tool is named by its
 * slug (or, for a built-in function in CALL_NAMES, by the name its design gives it); when two
 * tools share a name, each is named `bundle__name`. A call's name maps back through byName().
 *
 * Tool search (./deferred-tools.ts): given `toolSearch`, past its thresholds or past the
 * number of tools a provider accepts, the set also holds `tool_search`, and specs() lists
 * only the pinned, model-only and loaded tools; byName() still knows every tool.
 */
import type { ToolSelection } from '../../../shared/model/provider';
import type { Destination, WriteMode } from '../../../shared/model/routing';
import { isModelVisible, type ToolView } from '../../../shared/model/tool';
import type { ToolCandidate } from '../routing/directive-runner';
import type { ToolStore } from '../bundles/tool-store';
import type { ToolSearchSettings } from '../../../shared/model/tool-search';
import type { ModelWindow, ToolOutputSettings } from '../../../shared/model/settings';
import type { ModelRef } from '../../../shared/model/provider';
import { PROVIDER_MAX_TOOLS } from '../../../shared/model/tool-search';
import { compareVersions } from '../../../shared/versions';
import { DeferredTools, TOOL_SEARCH_NAME, deferralReason, isPinned, loadBudget, toolSearchTool, type DeferredOptions } from './deferred-tools';
import { modelArgSchema, routingFor, type ToolRouting } from '../routing/model-routing';
import { NON_FUNCTION_TOOLS, type ModelOnlyTool, type ToolKind } from './tool-behavior';
import type { ModelToolSpec } from './types';

export interface ModelTool {
  name: string;
  kind: ToolKind;
  spec: ModelToolSpec;
  /** A tool of the registry (kind function). */
  tool?: ToolView;
  bundleSlug?: string;
  /** The bundle's display name (tool search reads it: "GitHub v3 REST API"). */
  bundleName?: string;
  routing: ToolRouting;
  /** A tool only the model has (kind non-function, ...). */
  modelOnly?: ModelOnlyTool;
}

export interface DirectiveTool {
  toolId: string;
  output?: Destination;
  writeMode?: WriteMode;
}

export interface ToolsForModelInput {
  usable: readonly ToolCandidate[];
  /** The conversation's selection; absent: every usable tool. */
  selection?: ToolSelection;
  directiveTools?: readonly DirectiveTool[];
  /** Settings' modelRouting. */
  modelRouting: readonly string[];
  /** Default: NON_FUNCTION_TOOLS. */
  modelOnly?: readonly ModelOnlyTool[];
  /** Settings' toolSearch and the model's window: absent, every tool's definition is sent. */
  toolSearch?: { settings: ToolSearchSettings; contextTokens: number; semantic?: DeferredOptions['semantic'] };
}

export const TOOL_NAME_MAX = 64;

/**
 * Built-in functions whose design names their tool with a character a slug cannot hold (`_`;
 * `block_edit`, docs/design/memory.md): the model (and an MCP client) calls them by that name;
 * the registry, the palette and the timeline show the slug.
 */
export const CALL_NAMES: Readonly<Record<string, string>> = { 'memory.block-edit': 'block_edit' };

/** The name a model calls a registry tool by, before two tools of one name are told apart. */
export function callName(tool: Pick<ToolView, 'slug' | 'local'>): string {
  return (tool.local && CALL_NAMES[tool.local.functionId]) || providerSafe(tool.slug);
}

/** The model's window: Settings' entry for `providerId/model`, then for `model`, then the default (as the tool-output gate reads it). */
export function windowOf(s: Pick<ToolOutputSettings, 'models' | 'defaultWindow'>, model: ModelRef): ModelWindow {
  return s.models[`${model.providerId}/${model.model}`] ?? s.models[model.model] ?? s.defaultWindow;
}

/**
 * The usable tools (tool, function and bundle enabled) a model may be offered, as a directive
 * finds them: an MCP tool its server shows to its own app only is left out.
 */
export function usableTools(store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById'>): ToolCandidate[] {
  return store
    .allTools()
    .filter((t) => store.isUsable(t.id) && isModelVisible(t))
    .map((tool) => {
      const bundle = store.bundleById(tool.bundleId);
      return { tool, bundleSlug: bundle?.slug ?? '', bundleName: bundle?.displayName ?? '' };
    });
}

export class ModelToolSet {
  private readonly byNameMap = new Map<string, ModelTool>();

  constructor(
    readonly tools: readonly ModelTool[],
    /** Set when the model searches for tools instead of getting every definition. */
    readonly deferred?: DeferredTools,
  ) {
    for (const t of tools) this.byNameMap.set(t.name, t);
  }

  /** The definitions the model is given now (with tool search: the visible ones). */
  specs(): ModelToolSpec[] {
    const d = this.deferred;
    return (d ? this.tools.filter((t) => d.visible(t.name)) : this.tools).map((t) => t.spec);
  }

  byName(name: string): ModelTool | undefined {
    return this.byNameMap.get(name);
  }

  names(): string[] {
    return this.tools.map((t) => t.name);
  }
}

/** Letters, digits, `_` and `-` only; anything else becomes `_`. */
export function providerSafe(text: string): string {
  const s = text.normalize('NFC').replace(/[^A-Za-z0-9_-]+/g, '_');
  return (s || 'tool').slice(0, TOOL_NAME_MAX);
}

const byVersion = (a: ToolView, b: ToolView): number =>
  compareVersions(a.version, b.version) || a.modifiedAt.localeCompare(b.modifiedAt);

export function toolsForModel(input: ToolsForModelInput): ModelToolSet {
  // One entry per tool; a later one's output= and write-mode= win (as @tools lines aggregate).
  const directives = new Map<string, DirectiveTool>();
  for (const d of input.directiveTools ?? []) {
    const prev = directives.get(d.toolId);
    directives.set(d.toolId, prev ? { ...prev, ...(d.output ? { output: d.output } : {}), ...(d.writeMode ? { writeMode: d.writeMode } : {}) } : d);
  }
  const { selection } = input;
  const chosen = (c: ToolCandidate) =>
    directives.has(c.tool.id) || !selection || selection.bundleIds.includes(c.tool.bundleId) || selection.toolIds.includes(c.tool.id);

  // One version per bundle and slug: the highest (as a directive resolves it), unless a directive names another.
  const picked = new Map<string, ToolCandidate>();
  for (const c of input.usable) {
    if (!chosen(c)) continue;
    const key = `${c.tool.bundleId}\u0000${c.tool.slug.normalize('NFC')}`;
    const prev = picked.get(key);
    if (!prev || (!directives.has(prev.tool.id) && (directives.has(c.tool.id) || byVersion(prev.tool, c.tool) < 0))) picked.set(key, c);
  }
  const candidates = [...picked.values()].sort((a, b) => a.tool.slug.localeCompare(b.tool.slug) || a.bundleSlug.localeCompare(b.bundleSlug));

  const slugCount = new Map<string, number>();
  for (const c of candidates) slugCount.set(callName(c.tool), (slugCount.get(callName(c.tool)) ?? 0) + 1);

  const taken = new Set<string>();
  const unique = (base: string) => {
    let name = base.slice(0, TOOL_NAME_MAX);
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, TOOL_NAME_MAX - String(n).length - 1)}_${n}`;
    taken.add(name);
    return name;
  };

  const out: ModelTool[] = [];
  const modelOnly = input.modelOnly ?? NON_FUNCTION_TOOLS;
  for (const m of modelOnly) taken.add(m.spec.name);
  if (input.toolSearch) taken.add(TOOL_SEARCH_NAME);
  for (const c of candidates) {
    const slug = callName(c.tool);
    const name = unique((slugCount.get(slug) ?? 0) > 1 ? `${providerSafe(c.bundleSlug)}__${slug}` : slug);
    const routing = routingFor(c.tool, c.bundleSlug, directives.get(c.tool.id), input.modelRouting);
    out.push({
      name,
      kind: 'function',
      tool: c.tool,
      bundleSlug: c.bundleSlug,
      ...(c.bundleName ? { bundleName: c.bundleName } : {}),
      routing,
      spec: { name, description: describe(c.tool), parameters: modelArgSchema(c.tool.argSchema, routing) },
    });
  }
  const registryCount = out.length;
  for (const m of modelOnly) out.push({ name: m.spec.name, kind: m.kind, spec: m.spec, routing: { kind: 'inline' }, modelOnly: m });
  if (!input.toolSearch) return new ModelToolSet(out);

  const registry = out.slice(0, registryCount);
  const reason = deferralReason({ tools: registry, settings: input.toolSearch.settings, contextTokens: input.toolSearch.contextTokens, others: modelOnly.length });
  if (!reason) return new ModelToolSet(out);
  // Beside the model-only tools and tool_search.
  const room = PROVIDER_MAX_TOOLS - modelOnly.length - 1;
  const directiveIds = new Set(directives.keys());
  const pinned = new Set(registry.filter((t) => isPinned(t, input.toolSearch!.settings.pinned, directiveIds)).slice(0, room).map((t) => t.name));
  const results = input.toolSearch.settings.results;
  const search = toolSearchTool(registry.length - pinned.size, results);
  out.push({ name: search.spec.name, kind: search.kind, spec: search.spec, routing: { kind: 'inline' }, modelOnly: search });
  const budget = loadBudget(input.toolSearch.settings, input.toolSearch.contextTokens);
  return new ModelToolSet(out, new DeferredTools(registry, pinned, reason, { room, results, budget, ...(input.toolSearch.semantic ? { semantic: input.toolSearch.semantic } : {}) }));
}

function describe(tool: ToolView): string {
  const d = tool.description.trim();
  return d || tool.displayName;
}
