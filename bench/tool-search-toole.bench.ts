/**
 * Tool search (docs/tool-search.md) on MetaTool's ToolE (electron/core/tool-search/testing/toole.ts):
 * 199 tools, each question searched the way a turn searches (toolsForModel with tool search on,
 * then `tool_search`). Quality figures, not timings, apart from the last line:
 *
 *   (a) single-tool questions, test split: the right tool first / in the top 5
 *   (b) the same on the dev split (the one that may be read while tuning)
 *   (c) two-tool questions, one search each: both tools in the top 5, and each tool's share
 *   (d) a turn's first tool_search over the 199 tools vs building the turn's tool set without search
 *
 * The baseline is BM25 (k1 1.2, b 0.75) over name and description with the ranking's own words
 * and stems; the notes also give a bare BM25 (no stems, no stop words). On the dev split the
 * tools most often missed and some missed questions are printed (stderr), for tuning.
 * Needs ../shared/tool-retrieval/metatool beside the repository; without it nothing is reported.
 */
import {
  TOOLE_BUNDLE,
  TOOLE_MISSING,
  bareBm25,
  bm25Multi,
  bm25Ranker,
  bm25Single,
  loadToolE,
  missReport,
  scoreMulti,
  scoreSingle,
  searchAsTurn,
  splitToolE,
  toolEDir,
  toolERegistry,
} from '../electron/core/tool-search/testing/toole';
import { toolsForModel } from '../electron/core/agent/tools-for-model';
import { result, timeMedian, type BenchResult } from './harness';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export async function run(): Promise<BenchResult[]> {
  const dir = toolEDir();
  if (!dir) {
    console.error(`tool-search-toole: ${TOOLE_MISSING}; skipped`);
    return [];
  }
  const data = loadToolE(dir);
  const reg = toolERegistry(data);
  const stemmed = bm25Ranker(data);
  const bare = bareBm25(data);
  const single = splitToolE(data.single);
  const multi = splitToolE(data.multi);
  const results: BenchResult[] = [];

  for (const [name, qs] of [['test', single.test], ['dev', single.dev]] as const) {
    const ours = await scoreSingle(reg, qs);
    const base = bm25Single(stemmed, qs);
    const plain = bm25Single(bare, qs);
    const refused = ours.refused ? `; ${ours.refused} over tool_search's query length, counted as misses` : '';
    results.push(result(`ToolE single-tool, ${name} split (${qs.length}): right tool in the top 5 of tool_search vs BM25`, '%', ours.top5 * 100, base.top5 * 100, undefined, `bare BM25 ${pct(plain.top5)}${refused}`));
    results.push(result(`ToolE single-tool, ${name} split (${qs.length}): right tool first vs BM25`, '%', ours.top1 * 100, base.top1 * 100, undefined, `bare BM25 ${pct(plain.top1)}; mean tool_search call ${ours.msPerSearch.toFixed(3)} ms`));
    if (name === 'dev') console.error(`\nToolE dev split, what tool_search missed:\n${missReport(qs, ours.misses)}\n`);
  }

  const m = await scoreMulti(reg, data.multi);
  const mBase = bm25Multi(stemmed, data.multi);
  const mBare = bm25Multi(bare, data.multi);
  const mTest = await scoreMulti(reg, multi.test);
  const mDev = await scoreMulti(reg, multi.dev);
  results.push(
    result(
      `ToolE two-tool (${data.multi.length}): both tools in the top 5 of one tool_search vs BM25`,
      '%',
      m.both5 * 100,
      mBase.both5 * 100,
      undefined,
      `bare BM25 ${pct(mBare.both5)}; test split (${mTest.n}) ${pct(mTest.both5)}, dev split (${mDev.n}) ${pct(mDev.both5)}; at least one in the top 5: ours ${pct(m.either5)}, BM25 ${pct(mBase.either5)}`,
    ),
  );
  results.push(result(`ToolE two-tool (${data.multi.length}): each tool in the top 5 (share of ${2 * m.n}) vs BM25`, '%', m.each5 * 100, mBase.each5 * 100, undefined, `bare BM25 ${pct(mBare.each5)}`));

  // (d) a turn's first search (tool set, index from cached analyses, the call) vs the tool set a turn without search builds.
  let i = 0;
  const search = () => searchAsTurn(reg, single.test[i++ % single.test.length]!.query);
  const usable = reg.views.map((tool) => ({ tool, bundleSlug: TOOLE_BUNDLE }));
  const toolSet = () => toolsForModel({ usable, modelRouting: [] }).specs();
  results.push(result("a turn's first tool_search over ToolE's 199 tools vs building the turn's tool set without search", 'ms', await timeMedian(search, 200, 20), await timeMedian(toolSet, 200, 20)));
  return results;
}
