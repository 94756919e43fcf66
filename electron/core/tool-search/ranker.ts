/**
 * BM25F over the fields of ./document.ts: a term's frequency in each field is normalised by
 * that field's length against its average, weighted by the field, and summed before the one
 * saturation (k1) of BM25; each query term counts by its idf. Query terms are stemmed like the
 * tools' (./text.ts) and expanded with ./synonyms.ts at a lower weight. A tool that matches
 * more of the query's own terms is preferred over one that matches one term many times
 * (`coverage`), and one whose name the query says over one that only mentions its words
 * (`NAME_SAID`). A query asking for several things is also ranked part by part (`rank`).
 */
import { actionFactor, isActionVerb, needAction, needScope, scopeFactor, type Action, type Scope } from './action';
import { FIELDS, type FieldName, type SearchableTool } from './document';
import { BROADER, BROADER_WEIGHT, EXPANSION_WEIGHT, EXPANSIONS } from './synonyms';
import { KIND_WEIGHT, LIGHT_WEIGHT, LIGHT_WORDS, PAYLOAD_WEIGHT, needParts, splitNeeds } from './need';
import { nameTerms, stem, terms } from './text';

/**
 * A tool of a service the need names ("… in Jira") counts this much more: naming the service
 * scopes the search (its tools first) rather than adding one more word to match.
 */
export const SERVICE_NAMED = 3;
/** A name is a service's only when few tools of other services use the word (at most this share, or two tools). */
const SERVICE_NAME_MAX_SHARE = 0.02;

export interface FieldWeight {
  /** How much a match in this field counts. */
  weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  b: number;
}

export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<FieldName, FieldWeight>> = {
  name: { weight: 3, b: 0.3 },
  title: { weight: 3, b: 0.3 },
  lead: { weight: 2, b: 0.5 },
  description: { weight: 1, b: 0.75 },
  args: { weight: 0.6, b: 0.5 },
  argDocs: { weight: 0.25, b: 0.75 },
  tags: { weight: 1.5, b: 0.3 },
  bundle: { weight: 2, b: 0 },
  path: { weight: 1.5, b: 0.3 },
};

export interface RankOptions {
  fieldWeights?: Partial<Record<FieldName, FieldWeight>>;
  /** BM25's saturation; default 2. */
  k1?: number;
  /** How much matching every term of the query counts, 0 (not at all) to 1; default 0.5. */
  coverage?: number;
  /** Expand the query with ./synonyms.ts; default true. */
  expand?: boolean;
  /** Prefer tools whose kind of action (./action.ts) agrees with the need's; default true. */
  actions?: boolean;
}

export interface RankedTool {
  key: string;
  score: number;
  /** The query's terms (stems) the tool matched, its own and expanded ones. */
  matched: string[];
}

/** A tool's terms per field: term -> count in each field (FIELDS order), and each field's length. */
interface Analysed {
  key: string;
  action: Action | undefined;
  scope: Scope | undefined;
  service: SearchableTool['service'];
  counts: Map<string, Float64Array>;
  lengths: Float64Array;
  /** The terms of the tool's name as a person reads it (its display name, else its slug). */
  head: string[];
}

/** A tool to rank, or how to make it when the cache does not hold it under `cacheKey`. */
export type ToolSource = SearchableTool | { cacheKey: string; make: () => SearchableTool };

/** Reading a tool's fields and analysing them costs more than ranking it: analysed tools are kept by a caller-chosen key. */
export class AnalysisCache {
  private readonly map = new Map<string, Analysed>();
  constructor(private readonly max = 5_000) {}

  has(cacheKey: string): boolean {
    return this.map.has(cacheKey);
  }

  get(cacheKey: string, make: () => SearchableTool): Analysed {
    const hit = this.map.get(cacheKey);
    if (hit) return hit;
    const a = analyse(make());
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(cacheKey, a);
    return a;
  }
}

function analysed(t: ToolSource, cache: AnalysisCache | undefined): Analysed {
  if (!('make' in t)) return analyse(t);
  return cache ? cache.get(t.cacheKey, t.make) : analyse(t.make());
}

function analyse(tool: SearchableTool): Analysed {
  const counts = new Map<string, Float64Array>();
  const lengths = new Float64Array(FIELDS.length);
  FIELDS.forEach((f, i) => {
    const ts = terms(tool.fields[f], true);
    lengths[i] = ts.length;
    for (const t of ts) {
      let c = counts.get(t);
      if (!c) counts.set(t, (c = new Float64Array(FIELDS.length)));
      c[i]! += 1;
    }
  });
  const head = nameTerms(tool.fields.title.trim() || tool.fields.name, isActionVerb);
  return { key: tool.key, action: tool.action, scope: tool.scope, service: tool.service, counts, lengths, head };
}

export interface QueryTerm {
  term: string;
  weight: number;
  /** The word of the query it stands for (an index into the query's own terms). */
  of: number;
  /** A word of the query itself (not an expansion). */
  own: boolean;
}

/**
 * The query's stems, each once, and the expansions of each (./synonyms.ts) at a lower
 * weight. A query word counts through its best form: itself or one of its expansions. Words in
 * quotes are payload (./need.ts): they count at PAYLOAD_WEIGHT and are not expanded.
 */
export function queryTerms(query: string, expand = true, known?: (term: string) => boolean): QueryTerm[] {
  const parts = needParts(query);
  const own = [...new Set(terms(parts.text).map((t) => (known ? undone(t, known) ?? t : t)))];
  const kinds = [...new Set(terms(parts.kinds.join(' ')))].filter((t) => !own.includes(t));
  // A value some tool names ("oauth2", "s3") is a word of the request; others are payload.
  const values = [...new Set(terms(parts.values))].filter((t) => !own.includes(t) && !kinds.includes(t));
  for (const t of values) if (/\p{L}/u.test(t) && known?.(t)) own.push(t);
  const payload = [...new Set([...terms(parts.payload), ...values])].filter((t) => !own.includes(t) && !kinds.includes(t));
  const out: QueryTerm[] = own.map((t, i) => ({ term: t, weight: LIGHT_WORDS.has(t) ? LIGHT_WEIGHT : 1, of: i, own: true }));
  kinds.forEach((t, i) => out.push({ term: t, weight: KIND_WEIGHT, of: own.length + i, own: true }));
  payload.forEach((t, i) => out.push({ term: t, weight: PAYLOAD_WEIGHT, of: own.length + kinds.length + i, own: true }));
  if (expand) {
    const seen = new Set([...own, ...payload]);
    own.forEach((t, i) => {
      for (const e of EXPANSIONS.get(t) ?? []) {
        if (seen.has(e)) continue;
        seen.add(e);
        out.push({ term: e, weight: EXPANSION_WEIGHT * out[i]!.weight, of: i, own: false });
      }
      for (const e of BROADER.get(t) ?? []) {
        if (seen.has(e)) continue;
        seen.add(e);
        out.push({ term: e, weight: BROADER_WEIGHT * out[i]!.weight, of: i, own: false });
      }
    });
  }
  return out;
}

/**
 * A word that undoes another ("untag", "unlink", "unstar"), unknown to the tools but whose
 * rest is known: the rest (the need is then to remove it; see ToolRanker.rank).
 */
/**
 * Whether two words are one edit apart (a letter added, dropped, changed, or two neighbours
 * swapped): "refnd" and "refund", "chanel" and "channel".
 */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * How much saying a tool's name counts, 0 to 1: a tool's score is multiplied by
 * 1 - NAME_SAID + NAME_SAID × the share of its name's words (by idf, its verbs left out: the
 * action factor reads them) the request has. "the news about Tesla" prefers a tool named "News"
 * over one that mentions news in a long description.
 */
export const NAME_SAID = 0.15;

/** How deep each part's ranking is read when the parts of a request are fused (`rank`). */
export const SPLIT_DEPTH = 20;
/** How much serving each part of a request counts against the whole request's ranking, 0 to 1 (xQuAD's lambda). */
export const SPLIT_DIVERSITY = 0.5;

/** Words a misspelt query word may stand for: this long at least. */
export const TYPO_MIN_LENGTH = 5;
/** The weight of the word a misspelt one stands for. */
export const TYPO_WEIGHT = 0.8;

export function undone(term: string, known: (term: string) => boolean): string | undefined {
  if (term.length < 5 || !term.startsWith('un') || known(term) || EXPANSIONS.has(term)) return undefined;
  const rest = term.slice(2);
  return known(rest) ? rest : undefined;
}

export class ToolRanker {
  private readonly docs: Analysed[];
  private readonly avg: Float64Array;
  private readonly df = new Map<string, number>();
  private readonly weights: Record<FieldName, FieldWeight>;
  private readonly k1: number;
  private readonly coverage: number;
  private readonly expand: boolean;
  private readonly actions: boolean;
  /** A service name's stem -> the services (bundle slugs) it names. */
  private readonly serviceNames = new Map<string, Set<string>>();
  /** What a word no tool has stands for (`spelling`), or null for nothing: the parts of a request ask again. */
  private readonly spelt = new Map<string, string | null>();

  constructor(tools: readonly ToolSource[], opts: RankOptions & { cache?: AnalysisCache } = {}) {
    this.docs = tools.map((t) => analysed(t, opts.cache));
    this.weights = { ...DEFAULT_FIELD_WEIGHTS, ...opts.fieldWeights };
    this.k1 = opts.k1 ?? 2;
    this.coverage = opts.coverage ?? 0.5;
    this.expand = opts.expand ?? true;
    this.actions = opts.actions ?? true;
    this.avg = new Float64Array(FIELDS.length);
    for (const d of this.docs) {
      for (let i = 0; i < FIELDS.length; i++) this.avg[i]! += d.lengths[i]!;
      for (const t of d.counts.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    }
    for (let i = 0; i < FIELDS.length; i++) this.avg[i] = this.docs.length ? this.avg[i]! / this.docs.length || 1 : 1;
    this.readServiceNames();
  }

  /** The names that name one service: a word many tools of other services use ("files", "time") only counts as a word. */
  private readServiceNames(): void {
    const toolsOf = new Map<string, number>();
    const candidates = new Map<string, Set<string>>();
    /** A name's stem -> how many tools of the services it names use the word. */
    const inside = new Map<string, number>();
    for (const d of this.docs) {
      if (!d.service) continue;
      toolsOf.set(d.service.id, (toolsOf.get(d.service.id) ?? 0) + 1);
      for (const s of new Set(d.service.names.map((n) => stem(n)))) {
        let set = candidates.get(s);
        if (!set) candidates.set(s, (set = new Set()));
        set.add(d.service.id);
        if (d.counts.has(s)) inside.set(s, (inside.get(s) ?? 0) + 1);
      }
    }
    for (const [s, ids] of candidates) {
      let theirs = 0;
      for (const id of ids) theirs += toolsOf.get(id) ?? 0;
      const others = this.docs.length - theirs;
      const outside = (this.df.get(s) ?? 0) - (inside.get(s) ?? 0);
      if (outside <= Math.max(2, SERVICE_NAME_MAX_SHARE * others)) this.serviceNames.set(s, ids);
    }
  }

  /**
   * The same, analysing the tools the cache does not hold in slices of `slice`, with the
   * event loop free between them (a first search over hundreds of tools reads a lot of text).
   */
  static async build(tools: readonly ToolSource[], opts: RankOptions & { cache: AnalysisCache; slice?: number }): Promise<ToolRanker> {
    const slice = opts.slice ?? 25;
    let since = 0;
    for (const t of tools) {
      if (!('make' in t) || opts.cache.has(t.cacheKey)) continue;
      opts.cache.get(t.cacheKey, t.make);
      if (++since >= slice) {
        since = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    return new ToolRanker(tools, opts);
  }

  /** The known term one edit away from a word no tool has, the most used if several. */
  private spelling(term: string): string | undefined {
    const known = this.spelt.get(term);
    if (known !== undefined) return known ?? undefined;
    let best: string | undefined;
    let bestDf = 0;
    for (const [t, df] of this.df) {
      if (df > bestDf && oneEditApart(term, t)) {
        best = t;
        bestDf = df;
      }
    }
    if (this.spelt.size >= 2_000) this.spelt.clear();
    this.spelt.set(term, best ?? null);
    return best;
  }

  get size(): number {
    return this.docs.length;
  }

  private idf(term: string): number {
    const df = this.df.get(term) ?? 0;
    return Math.log(1 + (this.docs.length - df + 0.5) / (df + 0.5));
  }

  /** The factor for how much of a tool's name the request says (NAME_SAID); `said`: each term of the request and how much it says it. */
  private nameSaid(d: Analysed, said: ReadonlyMap<string, number>): number {
    let all = 0;
    let hit = 0;
    for (const t of d.head) {
      const w = this.idf(t);
      all += w;
      hit += w * Math.min(1, said.get(t) ?? 0);
    }
    return all > 0 ? 1 - NAME_SAID + (NAME_SAID * hit) / all : 1 - NAME_SAID;
  }

  /**
   * The best `limit` tools for the query, best first; ties by key. Tools that match nothing are
   * left out. A request that asks for several things ("find a hotel in Lisbon and book a taxi
   * from the airport") is also cut into its parts (./need.ts `splitNeeds`), each ranked on its
   * own, and the first tools are chosen so that each part is served (xQuAD): a tool counts by
   * its place in the whole request's ranking and in each part's, a part's places counting less
   * once a tool for that part is chosen. `split: false` ranks the whole text only.
   */
  rank(query: string, limit: number, opts: { split?: boolean } = {}): RankedTool[] {
    const whole = this.rankOne(query, Math.max(limit, SPLIT_DEPTH));
    if (opts.split === false || limit <= 0) return whole.slice(0, Math.max(0, limit));
    const parts = splitNeeds(query).filter((p) => this.says(p));
    if (parts.length < 2) return whole.slice(0, limit);
    // How well a tool serves a ranking, by its place: 1 first, 2/3 second, 1/2 third ...
    const served = (list: readonly RankedTool[]) => new Map(list.slice(0, SPLIT_DEPTH).map((h, r) => [h.key, 2 / (r + 2)]));
    const partLists = parts.map((p) => this.rankOne(p, SPLIT_DEPTH));
    const byWhole = served(whole);
    const byPart = partLists.map(served);
    const hits = new Map<string, RankedTool>();
    for (const list of [whole, ...partLists]) for (const h of list.slice(0, SPLIT_DEPTH)) if (!hits.has(h.key)) hits.set(h.key, h);
    /** How much each part still wants a tool: 1, less for each tool chosen that serves it. */
    const wanting = byPart.map(() => 1);
    const out: RankedTool[] = [];
    while (out.length < limit && hits.size) {
      let best: RankedTool | undefined;
      let bestValue = -1;
      for (const h of hits.values()) {
        let value = (1 - SPLIT_DIVERSITY) * (byWhole.get(h.key) ?? 0);
        byPart.forEach((p, i) => (value += (SPLIT_DIVERSITY / byPart.length) * (p.get(h.key) ?? 0) * wanting[i]!));
        if (value > bestValue || (value === bestValue && best && h.key < best.key)) {
          best = h;
          bestValue = value;
        }
      }
      hits.delete(best!.key);
      byPart.forEach((p, i) => (wanting[i]! *= 1 - (p.get(best!.key) ?? 0)));
      out.push({ ...best!, score: bestValue });
    }
    return out;
  }

  /** Whether a part of a request says what to do: a word of its own that some tool has, not only "help", "find", "best". */
  private says(part: string): boolean {
    const known = (t: string) => this.df.has(t);
    return queryTerms(part, false, known).some((q) => q.own && q.weight === 1 && known(q.term));
  }

  /** One request's best tools. */
  private rankOne(query: string, limit: number): RankedTool[] {
    const known = (t: string) => this.df.has(t);
    const all = queryTerms(query, this.expand, known);
    // A service the need names scopes the search: its tools come first, and its name is not
    // matched in other services' tools (it still tells its own tools apart: "task" in a Tasks bundle).
    const named = new Set<string>();
    const nameWords = new Set<number>();
    for (const q of all) {
      const ids = q.own && q.weight === 1 ? this.serviceNames.get(q.term) : undefined;
      if (!ids) continue;
      for (const id of ids) named.add(id);
      nameWords.add(q.of);
    }
    // A need that is only a service's name is matched as words.
    if (!all.some((q) => q.own && !nameWords.has(q.of) && this.df.has(q.term))) {
      named.clear();
      nameWords.clear();
    }
    const ownWeight = new Float64Array(all.reduce((m, q) => Math.max(m, q.of + 1), 0));
    for (const q of all) if (q.own) ownWeight[q.of] = q.weight;
    let ownTotal = 0;
    for (const w of ownWeight) ownTotal += w;
    // A word no tool has may be misspelt: the known word one edit away stands for it (the most used, if several).
    for (const q of [...all]) {
      if (!q.own || q.weight < 1 || q.term.length < TYPO_MIN_LENGTH || this.df.has(q.term) || EXPANSIONS.has(q.term)) continue;
      const fix = this.spelling(q.term);
      if (fix && !all.some((o) => o.term === fix)) all.push({ term: fix, weight: q.weight * TYPO_WEIGHT, of: q.of, own: false });
    }
    const qs = all.filter((q) => this.df.has(q.term));
    if (!qs.length || limit <= 0) return [];
    const text = needParts(query).text;
    const undoes = terms(text).some((t) => undone(t, known) !== undefined);
    const action = this.actions ? (needAction(text) ?? (undoes ? 'delete' : undefined)) : undefined;
    const scope = this.actions ? needScope(text) : undefined;
    const idf = qs.map((q) => this.idf(q.term));
    // How much of each word the request says: 1 for its own words, less for the words they stand for.
    const said = new Map<string, number>();
    for (const q of qs) if (!nameWords.has(q.of)) said.set(q.term, Math.max(said.get(q.term) ?? 0, q.own ? 1 : q.weight / (ownWeight[q.of] || 1)));
    const fw = FIELDS.map((f) => this.weights[f]);
    const best = new Float64Array(ownWeight.length);
    const bestOwn = new Uint8Array(ownWeight.length);
    const hits: RankedTool[] = [];
    for (const d of this.docs) {
      best.fill(0);
      bestOwn.fill(0);
      const matched: string[] = [];
      const inNamed = named.size > 0 && !!d.service && named.has(d.service.id);
      qs.forEach((q, qi) => {
        if (nameWords.has(q.of) && !inNamed) return;
        const c = d.counts.get(q.term);
        if (!c) return;
        let tf = 0;
        for (let i = 0; i < FIELDS.length; i++) {
          if (!c[i]) continue;
          const { weight, b } = fw[i]!;
          tf += (weight * c[i]!) / (1 - b + (b * d.lengths[i]!) / this.avg[i]!);
        }
        const s = q.weight * idf[qi]! * (tf / (this.k1 + tf));
        matched.push(q.term);
        if (s > best[q.of]!) {
          best[q.of] = s;
          bestOwn[q.of] = q.own ? 1 : 0;
        }
      });
      let score = 0;
      let covered = 0;
      for (let i = 0; i < ownWeight.length; i++) {
        score += best[i]!;
        if (best[i]! > 0) covered += ownWeight[i]! * (bestOwn[i] ? 1 : EXPANSION_WEIGHT);
      }
      if (score <= 0) continue;
      if (ownTotal) score *= 1 - this.coverage + this.coverage * (covered / ownTotal);
      score *= this.nameSaid(d, said);
      score *= actionFactor(action, d.action) * (d.action === 'read' ? scopeFactor(scope, d.scope) : 1);
      if (inNamed) score *= SERVICE_NAMED;
      hits.push({ key: d.key, score, matched });
    }
    hits.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return hits.slice(0, limit);
  }
}
