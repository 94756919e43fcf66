/**
 * Tool search on a realistic registry: 500 tools imported from eight real OpenAPI documents
 * (../tool-search/testing/real-registry.ts). Through the same path a turn takes
 * (toolsForModel with Settings' toolSearch, then `tool_search` calls):
 * - the share of the fifty needs of ../tool-search/testing/tasks.ts whose tool is in the top 5
 *   of tool_search (goal >= 95%), and of the thirty fresh ones (a guard, >= 85%);
 * - the tokens of tool definitions in a request after a search vs every schema (goal <= 0.15).
 * bench/tool-search.bench.ts prints the same figures.
 */
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SEARCH_SETTINGS } from '../../../shared/model/tool-search';
import { readRealRegistry, realTools } from '../tool-search/testing/real-registry';
import { FRESH_TASKS, TASKS, type SearchTask } from '../tool-search/testing/tasks';
import { TOOL_SEARCH_NAME, type ToolSearchValue } from './deferred-tools';
import { toolsForModel, type ModelToolSet } from './tools-for-model';

const tools = realTools(readRealRegistry());
const usable = tools.map((t) => ({ tool: t.tool, bundleSlug: t.bundleSlug }));
const nameOf = (set: ModelToolSet, key: string) => {
  const id = tools.find((t) => t.key === key)!.tool.id;
  return set.tools.find((t) => t.tool?.id === id)!.name;
};
const searchSet = () => toolsForModel({ usable, modelRouting: [], toolSearch: { settings: DEFAULT_TOOL_SEARCH_SETTINGS, contextTokens: 128_000 } });
// Text that looks like a special token ("<|endoftext|>" in a description) counts as the plain text a provider reads it as.
const tokens = (set: ModelToolSet) => countTokens(JSON.stringify(set.specs()), { disallowedSpecial: new Set() });

function top5Share(tasks: readonly SearchTask[]): { share: number; missed: string[] } {
  const missed: string[] = [];
  for (const task of tasks) {
    const set = searchSet();
    const value = set.deferred!.search({ query: task.need, limit: 5 });
    if (!value.tools.some((t) => t.name === nameOf(set, task.tool))) missed.push(`${task.tool}: ${task.need}`);
  }
  return { share: (tasks.length - missed.length) / tasks.length, missed };
}

describe('tool search over 500 tools from real OpenAPI documents', () => {
  it('the registry holds 500 distinct tools from the eight documents, and every task names one of them', () => {
    expect(tools).toHaveLength(500);
    expect(new Set(tools.map((t) => t.key)).size).toBe(500);
    expect(new Set(tools.map((t) => t.bundleSlug))).toEqual(new Set(['github', 'jira', 'stripe', 'twilio', 'box', 'openai', 'discord', 'asana']));
    expect(TASKS).toHaveLength(50);
    expect(FRESH_TASKS).toHaveLength(30);
    const keys = new Set(tools.map((t) => t.key));
    for (const t of [...TASKS, ...FRESH_TASKS]) expect(keys.has(t.tool), t.tool).toBe(true);
    expect(new Set([...TASKS, ...FRESH_TASKS].map((t) => t.tool)).size).toBe(80);
  });

  it('the right tool is in the top 5 of tool_search for at least 95% of the fifty needs', () => {
    const { share, missed } = top5Share(TASKS);
    console.log(`top 5 of tool_search: ${(share * 100).toFixed(0)}% of ${TASKS.length} needs; missed: ${JSON.stringify(missed)}`);
    expect(share).toBeGreaterThanOrEqual(0.95);
  });

  it('and for at least 85% of thirty needs nothing was tuned against', () => {
    const { share, missed } = top5Share(FRESH_TASKS);
    console.log(`top 5 of tool_search: ${(share * 100).toFixed(0)}% of ${FRESH_TASKS.length} fresh needs; missed: ${JSON.stringify(missed)}`);
    expect(share).toBeGreaterThanOrEqual(0.85);
  });

  it('a request after a search carries at most 0.15x the tokens of every schema', () => {
    const all = toolsForModel({ usable, modelRouting: [] });
    expect(all.specs()).toHaveLength(502);
    const allTokens = tokens(all);
    let before = 0;
    let after = 0;
    for (const task of TASKS) {
      const set = searchSet();
      const first = set.specs();
      expect(first.map((s) => s.name)).toEqual(['stop_and_think', 'plan_next_steps', TOOL_SEARCH_NAME]);
      before += tokens(set);
      const value: ToolSearchValue = set.deferred!.search({ query: task.need });
      expect(value.loaded).toHaveLength(DEFAULT_TOOL_SEARCH_SETTINGS.results);
      // The next step's request: the loaded tools with their whole schemas.
      for (const name of value.loaded) expect(set.specs().find((s) => s.name === name)!.parameters).toEqual(all.byName(name)!.spec.parameters);
      after += tokens(set);
    }
    const ratio = after / TASKS.length / allTokens;
    console.log(`tool definitions: ${allTokens} tokens for every schema; with search ${Math.round(before / TASKS.length)} before a search, ${Math.round(after / TASKS.length)} after (ratio ${ratio.toFixed(4)})`);
    expect(ratio).toBeLessThanOrEqual(0.15);
  });
});
