/**
 * Tool search on a realistic registry: 500 tools imported from eight real OpenAPI documents
 * (../tool-search/testing/real-registry.ts), searched the way a turn searches
 * (../tool-search/testing/measure.ts):
 * - the share of the fifty needs of ../tool-search/testing/tasks.ts whose tool is in the top 5
 *   of tool_search (goal >= 95%), and of the thirty fresh ones (a guard, >= 85%);
 * - the tokens of tool definitions in a request after a search vs every schema (goal <= 0.15);
 * - the same after eight searches in one turn, the heaviest eight needs (goal <= 0.15: the
 *   turn's budget of loaded definitions, Settings' maxLoadedTokens).
 * bench/tool-search.bench.ts prints the same figures.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SEARCH_SETTINGS } from '../../../shared/model/tool-search';
import { UNBOUNDED, definitionTokens, heaviestNeeds, realRegistry, tokenFigures, top5Share, turnTokens } from '../tool-search/testing/measure';
import { FRESH_TASKS, TASKS } from '../tool-search/testing/tasks';
import { TOOL_SEARCH_NAME } from './deferred-tools';

const reg = realRegistry();

// Hundreds of searches over 500 tools: seconds alone, far longer beside a loaded suite (a hang guard, not a time bound).
describe('tool search over 500 tools from real OpenAPI documents', { timeout: 120_000 }, () => {
  it('the registry holds 500 distinct tools from the eight documents, and every task names one of them', () => {
    expect(reg.tools).toHaveLength(500);
    expect(new Set(reg.tools.map((t) => t.key)).size).toBe(500);
    expect(new Set(reg.tools.map((t) => t.bundleSlug))).toEqual(new Set(['github', 'jira', 'stripe', 'twilio', 'box', 'openai', 'discord', 'asana']));
    expect(TASKS).toHaveLength(50);
    expect(FRESH_TASKS).toHaveLength(30);
    const keys = new Set(reg.tools.map((t) => t.key));
    for (const t of [...TASKS, ...FRESH_TASKS]) expect(keys.has(t.tool), t.tool).toBe(true);
    expect(new Set([...TASKS, ...FRESH_TASKS].map((t) => t.tool)).size).toBe(80);
  });

  it('the right tool is in the top 5 of tool_search for at least 95% of the fifty needs', async () => {
    const { share, missed } = await top5Share(reg, TASKS);
    console.log(`top 5 of tool_search: ${(share * 100).toFixed(0)}% of ${TASKS.length} needs; missed: ${JSON.stringify(missed)}`);
    expect(share).toBeGreaterThanOrEqual(0.95);
  });

  it('and for at least 85% of thirty needs nothing was tuned against', async () => {
    const { share, missed } = await top5Share(reg, FRESH_TASKS);
    console.log(`top 5 of tool_search: ${(share * 100).toFixed(0)}% of ${FRESH_TASKS.length} fresh needs; missed: ${JSON.stringify(missed)}`);
    expect(share).toBeGreaterThanOrEqual(0.85);
  });

  it('a turn with search starts with three definitions; a search adds the found tools whole', async () => {
    const all = reg.allSet();
    expect(all.specs()).toHaveLength(502);
    const set = reg.searchSet();
    expect(set.specs().map((s) => s.name)).toEqual(['stop_and_think', 'plan_next_steps', TOOL_SEARCH_NAME]);
    await set.deferred!.prepare();
    const value = set.deferred!.search({ query: TASKS[0]!.need });
    expect(value.loaded).toHaveLength(DEFAULT_TOOL_SEARCH_SETTINGS.results);
    for (const name of value.loaded) expect(set.specs().find((s) => s.name === name)!.parameters).toEqual(all.byName(name)!.spec.parameters);
    expect(set.specs()).toHaveLength(3 + DEFAULT_TOOL_SEARCH_SETTINGS.results);
  });

  it('a request after a search carries at most 0.15x the tokens of every schema', async () => {
    const t = await tokenFigures(reg, TASKS);
    const ratio = t.after / t.all;
    console.log(`tool definitions: ${t.all} tokens for every schema; with search ${Math.round(t.before)} before a search, ${Math.round(t.after)} after (${t.loaded} loaded; ratio ${ratio.toFixed(4)})`);
    expect(t.loaded).toBe(DEFAULT_TOOL_SEARCH_SETTINGS.results);
    expect(ratio).toBeLessThanOrEqual(0.15);
  });

  it('eight searches in one turn load at most the budget: at most 0.15x the tokens of every schema', async () => {
    const all = definitionTokens(reg.allSet());
    const tasks = [...TASKS, ...FRESH_TASKS];
    for (const limit of [undefined, 10]) {
      const needs = await heaviestNeeds(reg, tasks, 8, limit);
      const uncapped = await turnTokens(reg, needs, { patch: UNBOUNDED, ...(limit ? { limit } : {}) });
      const capped = await turnTokens(reg, needs, limit ? { limit } : {});
      console.log(
        `eight searches (${limit ?? DEFAULT_TOOL_SEARCH_SETTINGS.results} results each), heaviest needs: without a budget ${uncapped.tokens} tokens (${uncapped.loaded} tools, ${(uncapped.tokens / all).toFixed(3)}x); ` +
          `with the default budget ${capped.tokens} tokens (${capped.loaded} tools, ${capped.notLoaded} found but not loaded, ${(capped.tokens / all).toFixed(3)}x)`,
      );
      expect(uncapped.notLoaded).toBe(0);
      expect(uncapped.tokens / all).toBeGreaterThan(0.15);
      expect(capped.tokens / all).toBeLessThanOrEqual(0.15);
      expect(capped.notLoaded).toBeGreaterThan(0);
    }
  });
});
