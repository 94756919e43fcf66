/**
 * MetaTool's ToolE (../shared/tool-retrieval/metatool beside the repository, see its README):
 * 199 tools described in one line each, 20,614 questions that each need one of them and 497
 * that need two. Each tool becomes a registry tool (its name as slug and display name, its
 * description, no arguments) and each question is searched the way a turn searches
 * (toolsForModel with Settings' toolSearch, then `tool_search`), as ./measure.ts does.
 *
 * The questions are split once, by a hash of their text: `dev` (about one in ten) may be read
 * while tuning the ranking; `test` (the rest) is what is reported. Shared by
 * ./toole.test.ts and bench/tool-search-toole.bench.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { ToolView } from '../../../../shared/model/tool';
import { DEFAULT_TOOL_SEARCH_SETTINGS } from '../../../../shared/model/tool-search';
import { TOOL_SEARCH_MAX_QUERY } from '../../agent/deferred-tools';
import { toolsForModel, type ModelToolSet } from '../../agent/tools-for-model';
import { searchableTool } from '../document';
import { ToolRanker, type RankOptions } from '../ranker';

/** Where the dataset is, relative to the folder that holds the repository. */
const DATA_UNDER_PARENT = ['shared', 'tool-retrieval', 'metatool'];

/** Said by what skips when the dataset is not there. */
export const TOOLE_MISSING = 'MetaTool ToolE not found: it is read from ../shared/tool-retrieval/metatool beside the repository';

/**
 * The repository's folder: the nearest one holding package.json, walking up from this module
 * (as a source file) or, once bundled into .bench-dist, from there or the working folder.
 */
function repoRoot(): string | undefined {
  for (const start of [import.meta.dirname, process.cwd()]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (existsSync(path.join(dir, 'package.json'))) return dir;
      if (path.dirname(dir) === dir) break;
    }
  }
  return undefined;
}

/** The dataset's folder, or undefined when it is not beside the repository. */
export function toolEDir(): string | undefined {
  const root = repoRoot();
  const dir = root && path.join(path.dirname(root), ...DATA_UNDER_PARENT);
  return dir && existsSync(path.join(dir, 'all_clean_data.csv')) ? dir : undefined;
}

// ---- reading ----------------------------------------------------------------------------

/**
 * RFC 4180 CSV: fields separated by commas, records by CRLF (a bare LF is taken too), a field
 * in double quotes may hold commas, line breaks and `""` for a quote. A quote inside an
 * unquoted field, text after a closing quote or a quote left open is an error: a reader that
 * guessed would shift the columns of every record after it.
 */
export function parseCsv(text: string): string[][] {
  const s = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  let line = 1;
  const fail = (why: string) => {
    throw new Error(`CSV line ${line}: ${why}`);
  };
  if (!s.length) return records;
  for (;;) {
    // One field, from i.
    let field = '';
    if (s[i] === '"') {
      const opened = line;
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        if (q < 0) {
          line = opened;
          fail('a quoted field is never closed');
        }
        const chunk = s.slice(i, q);
        for (const c of chunk) if (c === '\n') line++;
        field += chunk;
        if (s[q + 1] === '"') {
          field += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      if (i < s.length && s[i] !== ',' && s[i] !== '\n' && !(s[i] === '\r' && s[i + 1] === '\n')) fail('text after a closing quote');
    } else {
      let j = i;
      while (j < s.length && s[j] !== ',' && s[j] !== '\n' && !(s[j] === '\r' && s[j + 1] === '\n')) {
        if (s[j] === '"') fail('a quote inside an unquoted field');
        j++;
      }
      field = s.slice(i, j);
      i = j;
    }
    record.push(field);
    if (s[i] === ',') {
      i++;
      continue;
    }
    // End of record: a line break or the end of the text (a final line break ends no empty record).
    records.push(record);
    record = [];
    if (i >= s.length) return records;
    i += s[i] === '\r' ? 2 : 1;
    line++;
    if (i >= s.length) return records;
  }
}

export interface ToolETool {
  name: string;
  description: string;
}
export interface SingleQuery {
  query: string;
  tool: string;
}
export interface MultiQuery {
  query: string;
  tools: [string, string];
}
export interface ToolE {
  tools: ToolETool[];
  single: SingleQuery[];
  multi: MultiQuery[];
}

/** Reads the dataset; every label must name one of the tools. */
export function loadToolE(dir: string): ToolE {
  const des = JSON.parse(readFileSync(path.join(dir, 'plugin_des.json'), 'utf8')) as Record<string, string>;
  const tools = Object.entries(des).map(([name, description]) => ({ name, description }));
  const known = new Set(Object.keys(des));
  const label = (t: unknown, where: string): string => {
    if (typeof t !== 'string' || !known.has(t)) throw new Error(`${where}: unknown tool ${JSON.stringify(t)}`);
    return t;
  };
  const [header, ...rows] = parseCsv(readFileSync(path.join(dir, 'all_clean_data.csv'), 'utf8'));
  if (header?.join(',') !== 'Query,Tool') throw new Error(`all_clean_data.csv: header ${JSON.stringify(header)}, expected Query,Tool`);
  const single = rows.map((r, n) => {
    if (r.length !== 2) throw new Error(`all_clean_data.csv record ${n + 1}: ${r.length} fields`);
    return { query: r[0]!, tool: label(r[1], `all_clean_data.csv record ${n + 1}`) };
  });
  const raw = JSON.parse(readFileSync(path.join(dir, 'multi_tool_query_golden.json'), 'utf8')) as { query: string; tool: unknown[] }[];
  const multi = raw.map((m, n): MultiQuery => {
    if (typeof m.query !== 'string' || m.tool.length !== 2) throw new Error(`multi_tool_query_golden.json item ${n}: expected a query and two tools`);
    return { query: m.query, tools: [label(m.tool[0], `item ${n}`), label(m.tool[1], `item ${n}`)] };
  });
  return { tools, single, multi };
}

// ---- the split --------------------------------------------------------------------------

/** FNV-1a (32 bits) over the text's UTF-8: the same on every machine and Node version. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Whether a question is in the dev split (one in ten by its hash; the same text always lands in the same split). */
export function isDev(query: string): boolean {
  return fnv1a(query) % 10 === 0;
}

export function splitToolE<T extends { query: string }>(items: readonly T[]): { dev: T[]; test: T[] } {
  const dev: T[] = [];
  const test: T[] = [];
  for (const x of items) (isDev(x.query) ? dev : test).push(x);
  return { dev, test };
}

/** `n` items taken at even steps (the file is ordered by tool, so every tool keeps its share). */
export function evenSample<T>(items: readonly T[], n: number): T[] {
  if (n >= items.length) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

// ---- the registry -----------------------------------------------------------------------

/** A slug may hold letters, digits and '-': `total_query_meta_search_engine` becomes `total-query-meta-search-engine`. */
export function toolESlug(name: string): string {
  return name.replace(/[^\p{L}\p{Nd}-]+/gu, '-');
}

export interface ToolERegistry {
  views: ToolView[];
  /** A fresh tool set of a turn over the 199 tools, with tool search on (Settings' defaults). */
  searchSet(): ModelToolSet;
  /** The model's name of a dataset tool in a set. */
  nameOf(set: ModelToolSet, tool: string): string;
  /** The dataset tool a model's name stands for. */
  toolOf(set: ModelToolSet, name: string): string;
}

export const TOOLE_BUNDLE = 'toole';

export function toolERegistry(data: ToolE): ToolERegistry {
  const at = '2026-01-01T00:00:00.000Z';
  const bundleId = uuidv7();
  const views = data.tools.map(
    (t): ToolView => ({
      id: uuidv7(),
      bundleId,
      slug: toolESlug(t.name),
      version: '1',
      displayName: t.name,
      description: t.description,
      tags: [],
      type: 'local',
      local: { functionId: `toole.${toolESlug(t.name)}` },
      argSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: { type: 'object' },
      isEnabled: true,
      isBuiltIn: false,
      createdAt: at,
      modifiedAt: at,
    }),
  );
  if (new Set(views.map((v) => v.slug)).size !== views.length) throw new Error('two ToolE tools share a slug');
  const idOf = new Map(views.map((v) => [v.displayName, v.id]));
  const nameById = new Map(views.map((v) => [v.id, v.displayName]));
  const usable = views.map((tool) => ({ tool, bundleSlug: TOOLE_BUNDLE }));
  return {
    views,
    searchSet: () => toolsForModel({ usable, modelRouting: [], toolSearch: { settings: DEFAULT_TOOL_SEARCH_SETTINGS, contextTokens: 128_000 } }),
    nameOf: (set, tool) => set.tools.find((t) => t.tool?.id === idOf.get(tool))!.name,
    toolOf: (set, name) => nameById.get(set.byName(name)!.tool!.id)!,
  };
}

// ---- scoring ----------------------------------------------------------------------------

/** What one question's search answered: the dataset tools, best first; `refused` when tool_search refused the query (longer than it takes). */
export interface Searched {
  ranked: string[];
  refused: boolean;
  /** Milliseconds of the tool_search call alone. */
  ms: number;
}

/** Searches a question as a turn's first tool_search does: a fresh tool set, its index built, then the call. */
export async function searchAsTurn(reg: ToolERegistry, query: string, limit = 5): Promise<Searched> {
  const set = reg.searchSet();
  const d = set.deferred;
  if (!d) throw new Error('tool search is off for the ToolE registry: Settings\u2019 defaults no longer defer 199 tools');
  await d.prepare();
  // A model's over-long query is refused (VALIDATION_FAILED), so it finds nothing: a miss.
  if (query.trim().length > TOOL_SEARCH_MAX_QUERY) return { ranked: [], refused: true, ms: 0 };
  const t0 = performance.now();
  const value = d.search({ query, limit });
  const ms = performance.now() - t0;
  return { ranked: value.tools.map((t) => reg.toolOf(set, t.name)), refused: false, ms };
}

export interface Miss {
  query: string;
  tool: string;
  /** What ranked first, if anything. */
  first?: string;
}

export interface SingleScore {
  n: number;
  top1: number;
  top5: number;
  /** Questions tool_search refused (over its query length): counted as misses. */
  refused: number;
  /** Questions whose tool was not in the top 5. */
  misses: Miss[];
  /** Mean milliseconds of one tool_search call. */
  msPerSearch: number;
}

export async function scoreSingle(reg: ToolERegistry, queries: readonly SingleQuery[]): Promise<SingleScore> {
  let top1 = 0;
  let top5 = 0;
  let refused = 0;
  let ms = 0;
  const misses: Miss[] = [];
  for (const q of queries) {
    const r = await searchAsTurn(reg, q.query);
    ms += r.ms;
    if (r.refused) refused++;
    if (r.ranked[0] === q.tool) top1++;
    if (r.ranked.includes(q.tool)) top5++;
    else misses.push({ query: q.query, tool: q.tool, ...(r.ranked[0] ? { first: r.ranked[0] } : {}) });
  }
  const n = queries.length;
  return { n, top1: top1 / n, top5: top5 / n, refused, misses, msPerSearch: ms / Math.max(1, n - refused) };
}

export interface MultiScore {
  n: number;
  /** Both tools in the top 5 of the one search. */
  both5: number;
  /** At least one of the two in the top 5. */
  either5: number;
  /** Of the 2n (question, tool) pairs, the share whose tool is in the top 5. */
  each5: number;
}

function multiScore(queries: readonly MultiQuery[], ranked: (q: MultiQuery) => string[]): MultiScore {
  let both = 0;
  let either = 0;
  let each = 0;
  for (const q of queries) {
    const top = ranked(q);
    const found = q.tools.filter((t) => top.includes(t)).length;
    if (found === 2) both++;
    if (found > 0) either++;
    each += found;
  }
  const n = queries.length;
  return { n, both5: both / n, either5: either / n, each5: each / (2 * n) };
}

export async function scoreMulti(reg: ToolERegistry, queries: readonly MultiQuery[]): Promise<MultiScore> {
  const ranked = new Map<MultiQuery, string[]>();
  for (const q of queries) ranked.set(q, (await searchAsTurn(reg, q.query)).ranked);
  return multiScore(queries, (q) => ranked.get(q)!);
}

/**
 * Plain BM25 (k1 1.2, b 0.75) over the tool's name and description, with the same words and
 * stems as ours and nothing else (no synonyms, actions, coverage or other fields), as
 * measure.ts's baseline; the display name is the name here, so it is not read twice.
 */
export function bm25Ranker(data: ToolE): ToolRanker {
  const off = { weight: 0, b: 0 };
  const on = { weight: 1, b: 0.75 };
  const opts: RankOptions = {
    expand: false,
    actions: false,
    coverage: 0,
    k1: 1.2,
    fieldWeights: { name: on, title: off, description: on, lead: off, args: off, argDocs: off, tags: off, bundle: off, path: off },
  };
  const sources = data.tools.map((t) =>
    searchableTool(t.name, { tool: { slug: toolESlug(t.name), displayName: t.name, description: t.description, tags: [], argSchema: {} }, bundleSlug: TOOLE_BUNDLE }),
  );
  return new ToolRanker(sources, opts);
}

/** Anything that answers a query's best tools by their dataset names. */
export interface Ranks {
  rank(query: string, limit: number): { key: string }[];
}

/**
 * BM25 (k1 1.2, b 0.75) over name and description with none of the ranking's reading: words
 * lower-cased (a name also split at case changes), no stems, no stop words. A floor that
 * shows what the shared words and stems alone are worth.
 */
export function bareBm25(data: ToolE): Ranks {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const docs = data.tools.map((t) => {
    const ws = words(`${t.name.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')} ${t.description}`);
    const tf = new Map<string, number>();
    for (const w of ws) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { key: t.name, tf, len: ws.length };
  });
  const avg = docs.reduce((s, d) => s + d.len, 0) / docs.length;
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = docs.length;
  return {
    rank(query, limit) {
      const qs = words(query).filter((w) => df.has(w));
      const scored = docs.map((d) => {
        let score = 0;
        for (const w of qs) {
          const f = d.tf.get(w);
          if (!f) continue;
          const idf = Math.log(1 + (n - df.get(w)! + 0.5) / (df.get(w)! + 0.5));
          score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.len) / avg));
        }
        return { key: d.key, score };
      });
      return scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score).slice(0, limit);
    },
  };
}

export function bm25Single(r: Ranks, queries: readonly SingleQuery[]): { top1: number; top5: number } {
  let top1 = 0;
  let top5 = 0;
  for (const q of queries) {
    const keys = r.rank(q.query, 5).map((h) => h.key);
    if (keys[0] === q.tool) top1++;
    if (keys.includes(q.tool)) top5++;
  }
  return { top1: top1 / queries.length, top5: top5 / queries.length };
}

export function bm25Multi(r: Ranks, queries: readonly MultiQuery[]): MultiScore {
  return multiScore(queries, (q) => r.rank(q.query, 5).map((h) => h.key));
}

// ---- what was missed (for tuning: the dev split only) ------------------------------------

/** The tools most often missed (with how many of their questions were), and a few missed questions with what ranked first. */
export function missReport(queries: readonly SingleQuery[], misses: readonly Miss[], tools = 15, examples = 20): string {
  const asked = new Map<string, number>();
  for (const q of queries) asked.set(q.tool, (asked.get(q.tool) ?? 0) + 1);
  const missed = new Map<string, number>();
  const firsts = new Map<string, Map<string, number>>();
  for (const m of misses) {
    missed.set(m.tool, (missed.get(m.tool) ?? 0) + 1);
    const f = firsts.get(m.tool) ?? new Map<string, number>();
    f.set(m.first ?? '(nothing)', (f.get(m.first ?? '(nothing)') ?? 0) + 1);
    firsts.set(m.tool, f);
  }
  const lines = [`${misses.length} of ${queries.length} dev questions missed (tool not in the top 5)`, `the ${tools} tools most often missed (missed/asked; what ranked first instead, most often):`];
  const worst = [...missed].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, tools);
  for (const [tool, n] of worst) {
    const instead = [...firsts.get(tool)!].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([t, c]) => `${t} ${c}`).join(', ');
    lines.push(`  ${tool} ${n}/${asked.get(tool)} — ${instead}`);
  }
  lines.push(`${examples} missed dev questions (even steps through the misses), wanted -> ranked first:`);
  for (const m of evenSample(misses, examples)) lines.push(`  ${m.tool} -> ${m.first ?? '(nothing)'}: ${m.query.replace(/\s+/g, ' ').slice(0, 200)}`);
  return lines.join('\n');
}
