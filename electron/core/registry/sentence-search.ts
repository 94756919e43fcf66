/**
 * The registry's sentence search ('tools.find'): the ranking the model's tool_search uses
 * (../tool-search), over the enabled tools. Analysing a tool's text costs far more than ranking
 * it, so analysed tools are kept between searches (an AnalysisCache, keyed by the tool's id,
 * stamp and a revision bumped at each change of it, and its bundle's slug and name), and the
 * ranker itself is kept until the registry changes: a palette asking at each keystroke ranks
 * and analyses nothing twice.
 *
 * With semantic search on (Settings → Tool search), the tools nearest the sentence's meaning
 * are fused with the word ranking (../tool-search/embeddings); when the embeddings do not come
 * within PALETTE_TIME_LIMIT_MS, or fail, the ranking is by words alone.
 */
import type { ToolView } from '../../../shared/model/tool';
import {
  AnalysisCache,
  PALETTE_TIME_LIMIT_MS,
  ToolRanker,
  fuse,
  queryTerms,
  searchableTool,
  terms,
  type SearchableTool,
  type SemanticDoc,
  type SemanticSearch,
  type ToolOfBundle,
  type ToolSource,
} from '../tool-search';

/** An enabled tool as the search reads it. */
export interface FindableTool {
  tool: ToolView;
  bundleSlug: string;
  bundleName: string;
}

export interface SentenceHit {
  id: string;
  /** The query's words the tool matched, by themselves or through a word of the same meaning. */
  words: string[];
}

/** The cache holds at least this many tools, and twice the enabled tools when there are more. */
const MIN_CACHE = 5_000;

export class SentenceSearch {
  private cache = new AnalysisCache(MIN_CACHE);
  private cacheSize = MIN_CACHE;
  private ranker: Promise<ToolRanker> | undefined;
  /** The tools the ranker was built over, as semantic search reads them. */
  private docs: SemanticDoc[] = [];
  private readonly revisions = new Map<string, number>();
  private semantic: Pick<SemanticSearch, 'enabled' | 'nearest'> | undefined;

  constructor(
    /** The enabled tools now. */
    private readonly usable: () => FindableTool[],
    /** How a tool is read (the tests count the calls). */
    private readonly analyse: (key: string, t: ToolOfBundle) => SearchableTool = searchableTool,
  ) {}

  /** The registry changed: the ranker is built again at the next search; a changed tool's analysis is made again. */
  changed(toolId?: string): void {
    if (toolId !== undefined) this.revisions.set(toolId, (this.revisions.get(toolId) ?? 0) + 1);
    this.ranker = undefined;
  }

  /** Semantic search, fused with the words when it is on (set by the tool-search module). */
  useSemantic(semantic: Pick<SemanticSearch, 'enabled' | 'nearest'>): void {
    this.semantic = semantic;
  }

  /** The best `limit` enabled tools for the sentence, best first. */
  async rank(query: string, limit: number): Promise<SentenceHit[]> {
    const ranker = await this.currentRanker();
    const wordsOf = matchedWords(query);
    const semantic = this.semantic;
    if (!semantic?.enabled()) return ranker.rank(query, limit).map((h) => ({ id: h.key, words: wordsOf(h.matched) }));
    const docs = this.docs;
    const lexical = ranker.rank(query, ranker.size);
    const near = await semantic.nearest(query, docs, { timeLimitMs: PALETTE_TIME_LIMIT_MS });
    if (!near.used) return lexical.slice(0, limit).map((h) => ({ id: h.key, words: wordsOf(h.matched) }));
    const matched = new Map(lexical.map((h) => [h.key, h.matched]));
    // A tool found by its meaning alone matched none of the words.
    return fuse(lexical.map((h) => h.key), near.keys, limit).map((id) => ({ id, words: wordsOf(matched.get(id) ?? []) }));
  }

  private currentRanker(): Promise<ToolRanker> {
    if (this.ranker) return this.ranker;
    const tools = this.usable();
    if (tools.length * 2 > this.cacheSize) {
      // Smaller, it would drop tools the next search needs again: a larger one, read afresh.
      this.cacheSize = tools.length * 2;
      this.cache = new AnalysisCache(this.cacheSize);
    }
    const cacheKey = (t: FindableTool) => `${t.tool.id}@${t.tool.modifiedAt}@${this.revisions.get(t.tool.id) ?? 0}@${t.bundleSlug}@${t.bundleName}`;
    const sources: ToolSource[] = tools.map((t) => ({
      cacheKey: cacheKey(t),
      make: () => this.analyse(t.tool.id, { tool: t.tool, bundleSlug: t.bundleSlug, bundleName: t.bundleName }),
    }));
    this.docs = tools.map((t) => ({ key: t.tool.id, cacheKey: cacheKey(t), make: () => ({ tool: t.tool, bundleSlug: t.bundleSlug, bundleName: t.bundleName }) }));
    const built = ToolRanker.build(sources, { cache: this.cache });
    this.ranker = built;
    // A failed build is not kept: the next search tries again.
    built.catch(() => {
      if (this.ranker === built) this.ranker = undefined;
    });
    return built;
  }
}

/**
 * From a hit's matched stems (the query's own and their expansions) to the words of the query
 * as typed: a word is listed when one of its stems, or an expansion of one, was matched.
 */
export function matchedWords(query: string): (matched: readonly string[]) => string[] {
  const of = new Map<string, number>();
  const qts = queryTerms(query);
  const own = qts.filter((q) => q.own).map((q) => q.term);
  for (const q of qts) of.set(q.term, q.of);
  const typed = [...new Set(query.split(/[^\p{L}\p{N}'_-]+/u).filter(Boolean))].map((w) => ({
    word: w,
    stems: new Set(terms(w).map((t) => own.indexOf(t)).filter((i) => i >= 0)),
  }));
  return (matched) => {
    const hit = new Set<number>();
    for (const m of matched) {
      const i = of.get(m);
      if (i !== undefined) hit.add(i);
    }
    return typed.filter((t) => [...t.stems].some((i) => hit.has(i))).map((t) => t.word);
  };
}
