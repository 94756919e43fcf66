/**
 * Tool search (docs/tool-search.md) on 500 tools imported from eight real OpenAPI documents
 * (electron/core/tool-search/testing/real-registry.ts), searched the way a turn searches:
 *
 *   (a) tokens of tool definitions in a request after one search vs every schema   — target 0.15
 *   (b) the same before the first search (tool_search and the model-only tools)
 *   (c) the fifty needs of testing/tasks.ts: share with the right tool in the top 5 of
 *       tool_search vs a plain BM25 over name, title and description (goal: ours >= 95%)
 *   (d) the same on thirty fresh needs nothing was tuned against
 *   (e) a turn's first tool_search over the 500 tools (analyses cached) vs building the turn's
 *       tool set without search (what every turn does anyway)
 *   (f) analysing the 500 tools, as the first search after the app starts does, vs the same
 *
 * Tokens are o200k_base (gpt-tokenizer); times are medians.
 */
import { searchableTool } from '../electron/core/tool-search/document';
import { AnalysisCache, ToolRanker } from '../electron/core/tool-search/ranker';
import { baselineTop5Share, realRegistry, tokenFigures, top5Share } from '../electron/core/tool-search/testing/measure';
import { FRESH_TASKS, TASKS } from '../electron/core/tool-search/testing/tasks';
import { result, timeMedian, type BenchResult } from './harness';

export async function run(): Promise<BenchResult[]> {
  const reg = realRegistry();
  const results: BenchResult[] = [];
  const t = await tokenFigures(reg, TASKS);
  results.push(result('tool definitions per request, 500 tools: after a search vs every schema', 'tokens', t.after, t.all, 0.15, `${t.loaded} tools loaded by the search; mean over ${TASKS.length} needs`));
  results.push(result('tool definitions per request, 500 tools: before the first search vs every schema', 'tokens', t.before, t.all, 0.15, 'tool_search, stop_and_think, plan_next_steps'));

  const ours = await top5Share(reg, TASKS);
  results.push(result(`right tool in the top 5 of tool_search, ${TASKS.length} needs: ours vs plain BM25`, '%', ours.share * 100, baselineTop5Share(reg, TASKS) * 100, undefined, `goal: ours >= 95%; missed: ${ours.missed.join(' | ') || 'none'}`));
  const fresh = await top5Share(reg, FRESH_TASKS);
  results.push(result(`right tool in the top 5 of tool_search, ${FRESH_TASKS.length} fresh needs: ours vs plain BM25`, '%', fresh.share * 100, baselineTop5Share(reg, FRESH_TASKS) * 100, undefined, `missed: ${fresh.missed.join(' | ') || 'none'}`));

  // (e) a turn's first search: its tool set and index (analyses cached) and the ranking, vs the tool set a turn builds anyway.
  let i = 0;
  const search = async () => {
    const d = reg.searchSet().deferred!;
    await d.prepare();
    return d.search({ query: TASKS[i++ % TASKS.length]!.need });
  };
  const toolSet = () => reg.allSet().specs();
  results.push(result('a turn\'s first tool_search over 500 tools (analyses cached) vs building the turn\'s tool set without search', 'ms', await timeMedian(search, 30, 5), await timeMedian(toolSet, 30, 5)));
  // (f) the first search after the app starts: every tool analysed (in slices, the event loop free between them).
  const sources = reg.tools.map((x) => ({ cacheKey: x.key, make: () => searchableTool(x.key, { tool: x.tool, bundleSlug: x.bundleSlug }) }));
  const analyseAll = () => ToolRanker.build(sources, { cache: new AnalysisCache() });
  results.push(result('analysing 500 tools (the first search after start) vs building the turn\'s tool set without search', 'ms', await timeMedian(analyseAll, 5, 1), await timeMedian(toolSet, 30, 5)));
  return results;
}
