/**
 * Tool search in a turn (docs/tool-search.md): past Settings' thresholds (or the number of
 * tools a provider accepts) the model is not given every tool's definition but the pinned
 * tools, the model-only tools and `tool_search`. A search ranks the conversation's tools
 * (electron/core/tool-search) and loads the best ones: from the next step on, their full
 * definitions are in the request. What was loaded, and why search is on, is on the call's card.
 *
 * A turn's searches load at most a budget of definition tokens, all searches together
 * (Settings' maxLoadedTokens, and never more than the share of the window that turns search
 * on): past it a search still answers what it found, but loads nothing more and names the
 * tools already loaded. With semantic search on, the word ranking is fused with the tools
 * nearest the query's meaning; when the embeddings fail or are late, the search answers by
 * words and says so on its card.
 */
import { countTokens } from 'gpt-tokenizer';
import { AppError } from '../../../shared/errors';
import { PROVIDER_MAX_TOOLS, type ToolSearchSettings } from '../../../shared/model/tool-search';
import { AnalysisCache, TURN_TIME_LIMIT_MS, ToolRanker, argsSummary, fuse, searchableTool, shortDescription, type SemanticDoc, type SemanticSearch, type ToolSource } from '../tool-search';
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
  /** Absent for a tool this turn's budget kept out: it cannot be called, its arguments would only cost tokens. */
  arguments?: string;
}

/** Tokens of a tool's definition as a request carries it (o200k_base, as the measurements count). */
export function definitionTokens(spec: object): number {
  return countTokens(JSON.stringify(spec), { disallowedSpecial: new Set() });
}

/** The most definition tokens a turn's searches load: Settings' budget, within the share of the window that turns search on. */
export function loadBudget(settings: Pick<ToolSearchSettings, 'maxLoadedTokens' | 'maxSchemaPercent'>, contextTokens: number): number {
  return Math.max(1, Math.min(settings.maxLoadedTokens, Math.floor((contextTokens * settings.maxSchemaPercent) / 100)));
}

/** A tool_search call's value: what the card shows and the model reads. */
export interface ToolSearchValue {
  /** Tools this call added to the model's list (first: the card shows it without unfolding). */
  loaded: string[];
  /** Found but not added: the request would carry more tools than a provider accepts, or the turn's budget of definition tokens is spent. */
  notLoaded?: string[];
  /** Why the model searches at all. */
  why: string;
  note?: string;
  /** With semantic search on: whether the ranking used meaning, or why it is by words only this time. */
  semantic?: { used: boolean; note?: string };
  /** Definition tokens this turn's searches have loaded, and the most they may. */
  budget?: { used: number; max: number };
  /** What the search found, best first. */
  tools: FoundTool[];
}

/** Analysed tools are kept across turns, by id, version and name. */
const analyses = new AnalysisCache();

export interface DeferredOptions {
  /** Registry tools one request may carry at most (the provider's limit less the other tools). */
  room: number;
  /** Tools a search returns unless the model asks for another number. */
  results: number;
  /** Definition tokens the turn's searches may load (loadBudget); default: no budget. */
  budget?: number;
  /** Semantic search, fused with the words when it is on. */
  semantic?: Pick<SemanticSearch, 'enabled' | 'nearest'>;
}

export class DeferredTools {
  private readonly loaded = new Set<string>();
  private readonly registry = new Map<string, ModelTool>();
  private ranker: ToolRanker | undefined;
  private loadedTokens = 0;
  private readonly room: number;
  private readonly results: number;
  private readonly budget: number;

  constructor(
    tools: readonly ModelTool[],
    private readonly pinned: ReadonlySet<string>,
    readonly reason: string,
    private readonly opts: DeferredOptions,
  ) {
    for (const t of tools) if (t.tool) this.registry.set(t.name, t);
    this.room = opts.room;
    this.results = opts.results;
    this.budget = opts.budget ?? Number.POSITIVE_INFINITY;
  }

  // The name is part of the key: the ranker answers names.
  private cacheKey(t: ModelTool): string {
    return `${t.tool!.id}@${t.tool!.modifiedAt}@${t.bundleSlug ?? ''}@${t.bundleName ?? ''}@${t.name}`;
  }

  private sources(): ToolSource[] {
    return [...this.registry.values()].map((t) => ({
      cacheKey: this.cacheKey(t),
      make: () => searchableTool(t.name, { tool: t.tool!, bundleSlug: t.bundleSlug ?? '', bundleName: t.bundleName ?? '' }),
    }));
  }

  private docs(): SemanticDoc[] {
    return [...this.registry.values()].map((t) => ({ key: t.name, cacheKey: this.cacheKey(t), make: () => ({ tool: t.tool!, bundleSlug: t.bundleSlug ?? '', bundleName: t.bundleName ?? '' }) }));
  }

  /** Definition tokens this turn's searches have loaded. */
  get loadedDefinitionTokens(): number {
    return this.loadedTokens;
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

  /** Runs a search by words: the best tools, loaded for the following steps while there is room. Throws VALIDATION_FAILED for bad arguments. */
  search(args: unknown): ToolSearchValue {
    const { query, limit } = readArgs(args, this.results);
    this.ranker ??= new ToolRanker(this.sources(), { cache: analyses });
    return this.answer(this.ranker.rank(query, limit).map((h) => h.key));
  }

  /**
   * A turn's search: by words, fused with meaning when semantic search is on. Embeddings that
   * fail or are late leave the answer by words, said on the card; only a cancelled turn throws.
   */
  async find(args: unknown, signal?: AbortSignal): Promise<ToolSearchValue> {
    const { query, limit } = readArgs(args, this.results);
    const semantic = this.opts.semantic;
    if (!semantic?.enabled()) return this.search(args);
    await this.prepare();
    const lexical = this.ranker!.rank(query, this.ranker!.size).map((h) => h.key);
    const near = await semantic.nearest(query, this.docs(), { timeLimitMs: TURN_TIME_LIMIT_MS, ...(signal ? { signal } : {}) });
    if (!near.used) return { ...this.answer(lexical.slice(0, limit)), semantic: { used: false, note: `${near.reason}: ranked by words only` } };
    return { ...this.answer(fuse(lexical, near.keys, limit)), semantic: { used: true } };
  }

  /** The found tools (best first), loaded while there is room in the request and in the turn's budget. */
  private answer(keys: readonly string[]): ToolSearchValue {
    const tools: FoundTool[] = [];
    const loaded: string[] = [];
    const full: string[] = [];
    const spent: string[] = [];
    for (const key of keys) {
      const t = this.registry.get(key)!;
      const found: FoundTool = { name: t.name, description: shortDescription(t.spec.description || t.tool!.displayName), arguments: argsSummary(t.spec.parameters) };
      tools.push(found);
      if (this.visible(t.name)) continue;
      if (this.pinned.size + this.loaded.size >= this.room) {
        full.push(t.name);
        continue;
      }
      const cost = definitionTokens(t.spec);
      // The turn's first tool is loaded whatever it costs: a search that can load nothing is no use.
      if (this.loadedTokens + cost > this.budget && this.loaded.size > 0) {
        spent.push(t.name);
        delete found.arguments;
        continue;
      }
      this.loaded.add(t.name);
      this.loadedTokens += cost;
      loaded.push(t.name);
    }
    const notLoaded = [...full, ...spent];
    const notes: string[] = [];
    if (full.length) notes.push(`${full.length} of these could not be added: a request may carry at most ${PROVIDER_MAX_TOOLS} tools, and this turn has loaded as many as fit`);
    if (spent.length) notes.push(budgetNote(spent.length, this.loadedTokens, this.budget, tools.filter((f) => this.visible(f.name)).map((f) => f.name), [...this.loaded]));
    if (!tools.length) notes.push('no tool matches: try other words, or describe the task differently');
    const note = notes.join('. ');
    return {
      loaded,
      ...(notLoaded.length ? { notLoaded } : {}),
      why: this.reason,
      ...(note ? { note } : {}),
      tools,
      ...(Number.isFinite(this.budget) ? { budget: { used: this.loadedTokens, max: this.budget } } : {}),
    };
  }
}

/** What a search past the turn's budget says: what it did not load, and which loaded tools to use instead. */
function budgetNote(skipped: number, used: number, max: number, foundVisible: readonly string[], loaded: readonly string[]): string {
  const list = (names: readonly string[]) => `${names.slice(0, 40).join(', ')}${names.length > 40 ? ', …' : ''}`;
  return (
    `${skipped} of these were not loaded: this turn's searches have loaded ${used} tokens of tool definitions, and a turn loads at most ${max} (Settings → Tool search). ` +
    (foundVisible.length ? `Of the tools found you can call ${list(foundVisible)}; ` : '') +
    `the tools loaded in this turn are ${list(loaded)}`
  );
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
