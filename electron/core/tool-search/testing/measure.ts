/**
 * The figures of tool search on the realistic registry, taken the way a turn searches
 * (toolsForModel with Settings' toolSearch, then `tool_search`): the share of needs whose tool
 * is in the top 5, and the tokens of tool definitions in a request. Shared by
 * agent/tool-search-measure.test.ts and bench/tool-search.bench.ts.
 */
import { countTokens } from 'gpt-tokenizer';
import { DEFAULT_TOOL_SEARCH_SETTINGS, LOADED_TOKENS_MAX, type ToolSearchSettings } from '../../../../shared/model/tool-search';
import { toolsForModel, type ModelToolSet } from '../../agent/tools-for-model';
import { searchableTool } from '../document';
import { ToolRanker, type RankOptions } from '../ranker';
import { readRealRegistry, realTools, type RealTool } from './real-registry';
import type { SearchTask } from './tasks';

export interface Registry {
  tools: RealTool[];
  /** A fresh tool set of a turn over the registry, with tool search on (Settings' defaults, or these changes to them). */
  searchSet(patch?: Partial<ToolSearchSettings>): ModelToolSet;
  /** Every tool's definition, as a turn without search would send them. */
  allSet(): ModelToolSet;
  /** The model's name of a task's tool (`bundle/slug`) in a set. */
  nameOf(set: ModelToolSet, key: string): string;
}

export function realRegistry(): Registry {
  const tools = realTools(readRealRegistry());
  const usable = tools.map((t) => ({ tool: t.tool, bundleSlug: t.bundleSlug, bundleName: t.bundleName }));
  const ids = new Map(tools.map((t) => [t.key, t.tool.id]));
  return {
    tools,
    searchSet: (patch = {}) => toolsForModel({ usable, modelRouting: [], toolSearch: { settings: { ...DEFAULT_TOOL_SEARCH_SETTINGS, ...patch }, contextTokens: 128_000 } }),
    allSet: () => toolsForModel({ usable, modelRouting: [] }),
    nameOf: (set, key) => set.tools.find((t) => t.tool?.id === ids.get(key))!.name,
  };
}

/** Tokens of a request's tool definitions (o200k_base). Text that looks like a special token counts as the plain text a provider reads. */
export function definitionTokens(set: ModelToolSet): number {
  return countTokens(JSON.stringify(set.specs()), { disallowedSpecial: new Set() });
}

/** The share of tasks whose tool is in the top 5 of tool_search, and the ones missed. */
export async function top5Share(reg: Registry, tasks: readonly SearchTask[]): Promise<{ share: number; missed: string[] }> {
  const missed: string[] = [];
  for (const task of tasks) {
    const set = reg.searchSet();
    await set.deferred!.prepare();
    const value = set.deferred!.search({ query: task.need, limit: 5 });
    if (!value.tools.some((t) => t.name === reg.nameOf(set, task.tool))) missed.push(`${task.tool}: ${task.need}`);
  }
  return { share: (tasks.length - missed.length) / tasks.length, missed };
}

/** The same share for a plain BM25 over name, title and description (same words and stems; no synonyms, actions or other fields). */
export function baselineTop5Share(reg: Registry, tasks: readonly SearchTask[]): number {
  const off = { weight: 0, b: 0 };
  const opts: RankOptions = {
    expand: false,
    actions: false,
    coverage: 0,
    k1: 1.2,
    fieldWeights: { name: { weight: 1, b: 0.75 }, title: { weight: 1, b: 0.75 }, description: { weight: 1, b: 0.75 }, lead: off, args: off, argDocs: off, tags: off, bundle: off, path: off },
  };
  const r = new ToolRanker(reg.tools.map((t) => searchableTool(t.key, { tool: t.tool, bundleSlug: t.bundleSlug })), opts);
  return tasks.filter((t) => r.rank(t.need, 5).some((h) => h.key === t.tool)).length / tasks.length;
}

/** Tokens of tool definitions per request: every schema; with search, before a search and after one (mean over the tasks). */
export async function tokenFigures(reg: Registry, tasks: readonly SearchTask[]): Promise<{ all: number; before: number; after: number; loaded: number }> {
  const all = definitionTokens(reg.allSet());
  let before = 0;
  let after = 0;
  let loaded = 0;
  for (const task of tasks) {
    const set = reg.searchSet();
    before += definitionTokens(set);
    await set.deferred!.prepare();
    loaded += set.deferred!.search({ query: task.need }).loaded.length;
    after += definitionTokens(set);
  }
  return { all, before: before / tasks.length, after: after / tasks.length, loaded: loaded / tasks.length };
}

/**
 * Tokens of tool definitions in a request after several searches in one turn (the needs in
 * order, each with the default number of results or `limit`).
 */
export async function turnTokens(reg: Registry, needs: readonly string[], opts: { patch?: Partial<ToolSearchSettings>; limit?: number } = {}): Promise<{ tokens: number; loaded: number; notLoaded: number }> {
  const set = reg.searchSet(opts.patch);
  await set.deferred!.prepare();
  let notLoaded = 0;
  for (const need of needs) notLoaded += set.deferred!.search({ query: need, ...(opts.limit ? { limit: opts.limit } : {}) }).notLoaded?.length ?? 0;
  return { tokens: definitionTokens(set), loaded: set.specs().length - 3, notLoaded };
}

/** Settings under which a turn's budget (the whole 128k window) binds none of these turns: tool search as it was before the budget. */
export const UNBOUNDED: Partial<ToolSearchSettings> = { maxLoadedTokens: LOADED_TOKENS_MAX, maxSchemaPercent: 100 };

/** The `n` needs whose search alone loads the most definition tokens: the heaviest turn of `n` searches. */
export async function heaviestNeeds(reg: Registry, tasks: readonly SearchTask[], n: number, limit?: number): Promise<string[]> {
  const per: { need: string; tokens: number }[] = [];
  for (const t of tasks) per.push({ need: t.need, tokens: (await turnTokens(reg, [t.need], { patch: UNBOUNDED, ...(limit ? { limit } : {}) })).tokens });
  per.sort((a, b) => b.tokens - a.tokens || (a.need < b.need ? -1 : 1));
  return per.slice(0, n).map((p) => p.need);
}
