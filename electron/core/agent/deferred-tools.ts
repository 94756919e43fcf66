/**
 * Tool search in a turn (docs/tool-search.md): past Settings' thresholds (or the number of
 * tools a provider accepts) the model is not given every tool's definition but the pinned
 * tools, the model-only tools and `tool_search`. A search ranks the conversation's tools
 * (electron/core/tool-search) and loads the best ones: from the next step on, their full
 * definitions are in the request. What was loaded, and why search is on, is on the call's card.
 */
import { AppError } from '../../../shared/errors';
import { PROVIDER_MAX_TOOLS, type ToolSearchSettings } from '../../../shared/model/tool-search';
import { AnalysisCache, ToolRanker, argsSummary, searchableTool, shortDescription, type ToolSource } from '../tool-search';
import type { ModelOnlyTool } from './tool-behavior';
import type { ModelTool } from './tools-for-model';

export const TOOL_SEARCH_NAME = 'tool_search';
export const TOOL_SEARCH_MAX_RESULTS = 20;
export const TOOL_SEARCH_MAX_QUERY = 1000;
/** Bytes a token, for sizing definitions against the window (the estimate tool-output uses too). */
const BYTES_PER_TOKEN = 4;

export const TOOL_SEARCH_SCHEMA = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: TOOL_SEARCH_MAX_QUERY,
      description: 'What you need to do, in a sentence, e.g. "send a text message to a customer". Name the service when you know it.',
    },
    limit: { type: 'integer', minimum: 1, maximum: TOOL_SEARCH_MAX_RESULTS, description: 'How many tools to return.' },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

/** The tool_search tool as the model sees it: how many tools wait behind it. */
export function toolSearchTool(hidden: number, results: number): ModelOnlyTool {
  return {
    kind: 'function',
    displayName: 'Tool search',
    spec: {
      name: TOOL_SEARCH_NAME,
      description:
        `Find tools for a task. ${hidden} more tools are available but not listed here. Describe what you need to do in a sentence; ` +
        `the ${results} best matching tools are returned with their arguments, and you can call them from your next step.`,
      parameters: TOOL_SEARCH_SCHEMA,
    },
  };
}

/** What the model is told when it calls a tool whose definition it was not given. */
export const notLoadedError = (name: string) =>
  `the tool '${name}' is not loaded in this turn: call ${TOOL_SEARCH_NAME} with what you need to do, then call one of the tools it returns`;

/** The user-facing reason search is on. */
export const searchReason = {
  forced: (n: number) => `${n} tools are enabled, more than the ${PROVIDER_MAX_TOOLS} a model accepts in one request: the model searches for the ones it needs`,
  count: (n: number, max: number) => `${n} tools are enabled, more than ${max} (Settings → Tool search): the model searches for the ones it needs`,
  tokens: (tokens: number, percent: number, window: number) =>
    `the tools' definitions take about ${tokens} tokens, more than ${percent}% of the model's ${window}-token window (Settings → Tool search): the model searches for the ones it needs`,
  always: (n: number) => `tool search is always on (Settings → Tool search): the model searches among ${n} tools`,
};

export interface DeferralInput {
  /** The registry tools the turn would give the model. */
  tools: readonly ModelTool[];
  settings: ToolSearchSettings;
  /** The model's window, in tokens. */
  contextTokens: number;
  /** The model-only tools the model has beside the registry's (tool_search not counted). */
  others: number;
}

/** Why the turn searches, or undefined when every definition is sent. */
export function deferralReason({ tools, settings, contextTokens, others }: DeferralInput): string | undefined {
  const n = tools.length;
  if (n === 0) return undefined;
  if (n + others > PROVIDER_MAX_TOOLS) return searchReason.forced(n);
  if (settings.mode === 'off') return undefined;
  if (settings.mode === 'always') return searchReason.always(n);
  if (n > settings.maxTools) return searchReason.count(n, settings.maxTools);
  const tokens = Math.ceil(Buffer.byteLength(JSON.stringify(tools.map((t) => t.spec))) / BYTES_PER_TOKEN);
  if (tokens > (contextTokens * settings.maxSchemaPercent) / 100) return searchReason.tokens(tokens, settings.maxSchemaPercent, contextTokens);
  return undefined;
}

/** Whether a tool is pinned: named by a directive, or in Settings' list as `slug` or `bundle/slug`. */
export function isPinned(t: ModelTool, pinned: readonly string[], directiveIds: ReadonlySet<string>): boolean {
  if (!t.tool) return false;
  if (directiveIds.has(t.tool.id)) return true;
  return pinned.some((p) => p === t.tool!.slug || p === `${t.bundleSlug ?? ''}/${t.tool!.slug}`);
}

export interface FoundTool {
  name: string;
  description: string;
  arguments: string;
}

/** A tool_search call's value: what the card shows and the model reads. */
export interface ToolSearchValue {
  /** Tools this call added to the model's list (first: the card shows it without unfolding). */
  loaded: string[];
  /** Found but not added: the request would carry more tools than a provider accepts. */
  notLoaded?: string[];
  /** Why the model searches at all. */
  why: string;
  note?: string;
  /** What the search found, best first. */
  tools: FoundTool[];
}

/** Analysed tools are kept across turns, by id, version and name. */
const analyses = new AnalysisCache();

export class DeferredTools {
  private readonly loaded = new Set<string>();
  private readonly registry = new Map<string, ModelTool>();
  private ranker: ToolRanker | undefined;

  constructor(
    tools: readonly ModelTool[],
    private readonly pinned: ReadonlySet<string>,
    readonly reason: string,
    /** Registry tools one request may carry at most (the provider's limit less the other tools). */
    private readonly room: number,
    private readonly results: number,
  ) {
    for (const t of tools) if (t.tool) this.registry.set(t.name, t);
  }

  private sources(): ToolSource[] {
    return [...this.registry.values()].map((t) => ({
      // The name is part of the key: the ranker answers names.
      cacheKey: `${t.tool!.id}@${t.tool!.modifiedAt}@${t.bundleSlug ?? ''}@${t.bundleName ?? ''}@${t.name}`,
      make: () => searchableTool(t.name, { tool: t.tool!, bundleSlug: t.bundleSlug ?? '', bundleName: t.bundleName ?? '' }),
    }));
  }

  /** Whether the model has this tool's definition now. */
  visible(name: string): boolean {
    return !this.registry.has(name) || this.pinned.has(name) || this.loaded.has(name);
  }

  /** Registry tools waiting behind tool_search. */
  get hidden(): number {
    return this.registry.size - this.pinned.size - this.loaded.size;
  }

  /**
   * Builds the turn's index, analysing the tools not analysed yet in slices with the event
   * loop free between them (the first search after the app starts reads every tool's text).
   */
  async prepare(): Promise<void> {
    this.ranker ??= await ToolRanker.build(this.sources(), { cache: analyses });
  }

  /** Runs a search: the best tools, loaded for the following steps while there is room. Throws VALIDATION_FAILED for bad arguments. */
  search(args: unknown): ToolSearchValue {
    const { query, limit } = readArgs(args, this.results);
    this.ranker ??= new ToolRanker(this.sources(), { cache: analyses });
    const hits = this.ranker.rank(query, limit);
    const tools: FoundTool[] = [];
    const loaded: string[] = [];
    const notLoaded: string[] = [];
    for (const h of hits) {
      const t = this.registry.get(h.key)!;
      tools.push({ name: t.name, description: shortDescription(t.spec.description || t.tool!.displayName), arguments: argsSummary(t.spec.parameters) });
      if (this.visible(t.name)) continue;
      if (this.pinned.size + this.loaded.size >= this.room) {
        notLoaded.push(t.name);
        continue;
      }
      this.loaded.add(t.name);
      loaded.push(t.name);
    }
    const note = notLoaded.length
      ? `${notLoaded.length} of these could not be added: a request may carry at most ${PROVIDER_MAX_TOOLS} tools, and this turn has loaded as many as fit`
      : !tools.length
        ? 'no tool matches: try other words, or describe the task differently'
        : undefined;
    return { loaded, ...(notLoaded.length ? { notLoaded } : {}), why: this.reason, ...(note ? { note } : {}), tools };
  }
}

function readArgs(args: unknown, defaultLimit: number): { query: string; limit: number } {
  const a = (args ?? {}) as { query?: unknown; limit?: unknown };
  if (typeof a.query !== 'string' || !a.query.trim()) throw new AppError('VALIDATION_FAILED', 'tool_search needs a "query": what you need to do, in a sentence', { phase: 'args' });
  if (a.query.length > TOOL_SEARCH_MAX_QUERY) throw new AppError('VALIDATION_FAILED', `the query is too long: at most ${TOOL_SEARCH_MAX_QUERY} characters`, { phase: 'args' });
  if (a.limit !== undefined && (typeof a.limit !== 'number' || !Number.isInteger(a.limit) || a.limit < 1 || a.limit > TOOL_SEARCH_MAX_RESULTS)) {
    throw new AppError('VALIDATION_FAILED', `"limit" must be a whole number from 1 to ${TOOL_SEARCH_MAX_RESULTS}`, { phase: 'args' });
  }
  return { query: a.query.trim(), limit: (a.limit as number | undefined) ?? defaultLimit };
}
