/**
 * Benchmark of the tool registry's search index (electron/core/registry-index).
 *
 *   (a) our top-20 search with the full ranking vs a plain bm25-ordered FTS5 prefix query
 *       (`fts MATCH '"q"*' ORDER BY bm25(fts) LIMIT 20`) on the same 100k rows  — target 0.05
 *   (b) our search vs a linear scan in JS over the same records in memory, computing the
 *       same ranking (same classify()) and sorting                             — target 0.2
 *   (c) opening a present, fresh 10k-tool index (fingerprints + cached docs) vs a full
 *       rebuild from the records                                              — target 0.2
 *
 * Run: `npx tsx bench/search.bench.ts` (a table) or `... --json`.
 * Env: SEARCH_BENCH_TOOLS (default 100000), SEARCH_BENCH_REPS (default 15).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { toFts5Query } from '../electron/core/registry-index/query-escape';
import {
  classifiable,
  classify,
  compareRankKey,
  negModOf,
  prepareQuery,
  tierRank,
  type ClassifiableTool,
} from '../electron/core/registry-index/ranking';
import { ToolIndex } from '../electron/core/registry-index/tool-index';
import type { IndexedTool } from '../electron/core/registry-index/types';
import type { BenchResult } from './harness';

export type { BenchResult };

// ------------------------------------------------------------------ synthetic data

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VERBS = (
  'read write list get create update delete search fetch send parse convert resize translate summarize ' +
  'upload download sync merge split export import validate format render query count archive compress ' +
  'extract schedule cancel approve reject notify post publish lookup scan monitor check generate encode ' +
  'decode sign verify encrypt decrypt rename move copy tag label assign close open run deploy build test'
).split(' ');
const NOUNS = (
  'file files issue issues message messages channel image images pdf document weather forecast user users ' +
  'repo repository branch commit pull-request ticket invoice payment customer order orders product price ' +
  'email calendar event meeting contact note notes task tasks project board card comment page table row ' +
  'sheet cell chart report dashboard metric log logs alert incident server container pod cluster bucket ' +
  'object secret key token webhook subscription playlist track album video transcript caption translation ' +
  'currency stock quote news article feed tweet post profile address location route map place restaurant ' +
  'flight hotel booking recipe ingredient dataset model prompt embedding vector snippet gist release tag'
).split(' ');
const SERVICES = (
  'github gitlab jira slack discord notion google gmail drive sheets calendar stripe paypal shopify aws s3 ' +
  'azure gcp kubernetes docker sentry datadog pagerduty twilio sendgrid mailchimp hubspot salesforce zendesk ' +
  'trello asana linear figma dropbox box onedrive outlook teams zoom spotify youtube twitter reddit openweather ' +
  'alphavantage coinbase yelp maps airtable postgres mysql redis elastic algolia openai anthropic huggingface local'
).split(' ');
const TAGS = (
  'fs files http web api dev git chat email calendar finance payments crm support devops cloud storage ' +
  'monitoring alerts search media music video social news weather maps travel food data ai text images pdf ' +
  'docs productivity project tasks security crypto database analytics reports automation utility local network'
).split(' ');
const FILLER = (
  'the a an of to from with for and or in on by using via into its their your this that each all any new ' +
  'returns given optional required list single multiple remote local current latest recent selected specified ' +
  'contents details metadata status result results data value values fields json text url id ids name names ' +
  'page limit cursor filter query range date time zone format language size width height quality version ' +
  'account workspace organization team owner member permission scope access credentials request response ' +
  'error errors retry timeout rate quickly safely securely automatically incrementally asynchronously'
).split(' ');

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

function hex(r: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16);
  return s;
}

function uuidV7Like(r: () => number, ms: number): string {
  const t = ms.toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${hex(r, 3)}-${pick(r, ['8', '9', 'a', 'b'])}${hex(r, 3)}-${hex(r, 12)}`;
}

const title = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** `n` realistic tools, the same for the same seed. */
export function syntheticTools(n: number, seed = 42): IndexedTool[] {
  const r = mulberry32(seed);
  const start = Date.parse('2022-01-01T00:00:00Z');
  const span = 3 * 365 * 24 * 3600 * 1000;
  const bundles = Array.from({ length: Math.max(1, Math.ceil(n / 200)) }, (_, i) => ({
    id: uuidV7Like(r, start + Math.floor(r() * span)),
    service: i < SERVICES.length ? SERVICES[i] : `${pick(r, SERVICES)}-${i}`,
    enabled: r() < 0.95,
  }));
  const out: IndexedTool[] = [];
  for (let i = 0; i < n; i++) {
    const b = bundles[i % bundles.length];
    const verb = pick(r, VERBS);
    const noun = pick(r, NOUNS);
    const style = r();
    const slug =
      style < 0.5 ? `${verb}-${noun}` : style < 0.8 ? `${b.service.split('-')[0]}-${verb}-${noun}` : `${verb}${noun.replace(/-/g, '')}`;
    const displayName = slug.includes('-') ? slug.split('-').map(title).join(' ') : title(verb) + title(noun.replace(/-/g, ''));
    const words: string[] = [`${title(verb)}s`, 'the', noun.replace(/-/g, ' ')];
    const extra = 8 + Math.floor(r() * 16);
    for (let k = 0; k < extra; k++) {
      const x = r();
      words.push(x < 0.7 ? pick(r, FILLER) : x < 0.85 ? pick(r, NOUNS) : x < 0.95 ? pick(r, SERVICES) : pick(r, VERBS));
    }
    const description = words.join(' ') + '.';
    const tagCount = 1 + Math.floor(r() * 4);
    const tags = [...new Set(Array.from({ length: tagCount }, () => pick(r, TAGS)))];
    const modMs = start + Math.floor(r() * span);
    const id = uuidV7Like(r, modMs);
    const version = `1.${Math.floor(r() * 5)}.${Math.floor(r() * 20)}`;
    const enabled = b.enabled && r() < 0.92;
    const modifiedAt = new Date(modMs).toISOString();
    const doc = JSON.stringify({
      id,
      bundleId: b.id,
      slug,
      version,
      displayName,
      description,
      tags,
      type: r() < 0.7 ? 'http' : 'local',
      isEnabled: enabled,
      createdAt: modifiedAt,
      modifiedAt,
      argSchema: {
        type: 'object',
        properties: { [noun.replace(/-/g, '')]: { type: 'string', description: `The ${noun} to ${verb}` }, limit: { type: 'integer' } },
        required: [noun.replace(/-/g, '')],
      },
      http: { method: 'POST', urlTemplate: `https://api.${b.service.split('-')[0]}.example.com/v1/${noun}/\${id}/${verb}` },
    });
    out.push({
      id,
      bundleId: b.id,
      slug,
      version,
      displayName,
      description,
      tags,
      enabled,
      modifiedAt,
      source: { path: `/data/tools/${b.id}/${id}.json`, mtimeMs: modMs, size: doc.length },
      doc,
    });
  }
  return out;
}

// ------------------------------------------------------------------ baselines

function buildFts(file: string, tools: IndexedTool[]): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE VIRTUAL TABLE fts USING fts5(id UNINDEXED, slug, display_name, description, tags)`);
  const ins = db.prepare(`INSERT INTO fts (id, slug, display_name, description, tags) VALUES (?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (const t of tools) {
      if (t.enabled) ins.run(t.id, t.slug, t.displayName, t.description, t.tags.join(' '));
    }
  })();
  return db;
}

interface LinearRecord extends ClassifiableTool {
  id: string;
  negMod: number;
  enabled: boolean;
}

function linearSearch(records: readonly LinearRecord[], q: string, limit: number): string[] {
  const pq = prepareQuery(q);
  const hits: { rank: number; negMod: number; id: string }[] = [];
  for (const r of records) {
    if (!r.enabled) continue;
    const tier = classify(r, pq);
    if (tier) hits.push({ rank: tierRank(tier), negMod: r.negMod, id: r.id });
  }
  hits.sort((a, b) => a.rank - b.rank || compareRankKey(a, b));
  return hits.slice(0, limit).map((h) => h.id);
}

// ------------------------------------------------------------------ timing

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function timeOnce(fn: () => unknown): number {
  const t0 = now();
  fn();
  return now() - t0;
}

/** Interleaved: each rep runs every query once with ours and once with the baseline. */
function compare(
  queries: readonly string[],
  reps: number,
  ours: (q: string) => unknown,
  base: (q: string) => unknown,
): { ours: number; baseline: number; worst: { q: string; ratio: number }; hot: number } {
  for (const q of queries) {
    ours(q);
    base(q);
  }
  const o: number[] = [];
  const b: number[] = [];
  const perQ = new Map<string, { o: number[]; b: number[] }>();
  for (let i = 0; i < reps; i++) {
    for (const q of queries) {
      const to = timeOnce(() => ours(q));
      const tb = timeOnce(() => base(q));
      o.push(to);
      b.push(tb);
      const e = perQ.get(q) ?? { o: [], b: [] };
      e.o.push(to);
      e.b.push(tb);
      perQ.set(q, e);
    }
  }
  let worst = { q: '', ratio: 0 };
  for (const [q, e] of perQ) {
    const ratio = median(e.o) / median(e.b);
    if (ratio > worst.ratio) worst = { q, ratio };
  }
  // The interleaved figures are "cold": each of our calls follows 5-300 ms of other work,
  // as a search does after a keystroke. Back to back ("hot") shows the CPU cost alone.
  const hot: number[] = [];
  for (const q of queries) for (let i = 0; i < 30; i++) hot.push(timeOnce(() => ours(q)));
  return { ours: median(o), baseline: median(b), worst, hot: median(hot) };
}

const round = (x: number, d = 4) => Number(x.toPrecision(d));

function result(name: string, ours: number, baseline: number, target: number | undefined, note?: string): BenchResult {
  const r: BenchResult = { name, unit: 'ms/op', ours: round(ours), baseline: round(baseline), ratio: round(ours / baseline, 3) };
  if (target !== undefined) r.target = target;
  if (note) r.note = note;
  return r;
}

export const QUERY_SETS: Record<string, string[]> = {
  '1-char': ['r', 's', 'g', 'c', 'f', 'u', 'd', 'l'],
  '2-char': ['re', 'ge', 'se', 'fi', 'up', 'co', 'li', 'de'],
  '3-char': ['rea', 'get', 'sen', 'fil', 'upd', 'con', 'lis', 'del', '+re'],
};
/** Typo queries (3-4 characters) that no prefix or whole word matches: the fuzzy tier has to be read. */
export const SPARSE_QUERIES = ['fiel', 'raed', 'isue', 'xqz', 'slak'];

export async function run(opts: { tools?: number; reps?: number; log?: (s: string) => void } = {}): Promise<BenchResult[]> {
  const n = opts.tools ?? Number(process.env.SEARCH_BENCH_TOOLS ?? 100_000);
  const reps = opts.reps ?? Number(process.env.SEARCH_BENCH_REPS ?? 15);
  const log = opts.log ?? (() => {});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-search-bench-'));
  const results: BenchResult[] = [];
  try {
    let t0 = now();
    const tools = syntheticTools(n);
    log(`generated ${n} tools in ${(now() - t0).toFixed(0)} ms`);

    t0 = now();
    const index = ToolIndex.open(path.join(dir, 'index.db'));
    let longestBlock = 0;
    let lastTick = now();
    const ticker = setInterval(() => {
      const t = now();
      longestBlock = Math.max(longestBlock, t - lastTick);
      lastTick = t;
    }, 1);
    await index.rebuildInBatches(tools);
    clearInterval(ticker);
    const buildMs = now() - t0;
    const size = fs.statSync(path.join(dir, 'index.db')).size + (fs.statSync(path.join(dir, 'index.db-wal'), { throwIfNoEntry: false })?.size ?? 0);
    log(`built our index in ${(buildMs / 1000).toFixed(1)} s (${(size / 1e6).toFixed(0)} MB)`);

    t0 = now();
    const fts = buildFts(path.join(dir, 'fts.db'), tools);
    log(`built the FTS5 baseline in ${((now() - t0) / 1000).toFixed(1)} s`);
    const bm25 = fts.prepare(`SELECT id FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 20`).pluck();
    const bm25Search = (q: string) => {
      const m = toFts5Query(q, { prefix: true });
      return m === null ? [] : bm25.all(m);
    };

    const records: LinearRecord[] = tools.map((t) => ({
      ...classifiable(t),
      id: t.id,
      negMod: negModOf(t.modifiedAt),
      enabled: t.enabled,
    }));
    const ours = (q: string) => index.search({ q, pageSize: 20 }).items;
    const linear = (q: string) => linearSearch(records, q, 20);

    // sanity: same answers as the linear ranking
    for (const q of [...Object.values(QUERY_SETS).flat(), ...SPARSE_QUERIES]) {
      const a = ours(q).map((h) => h.id).join(',');
      const b = linear(q).join(',');
      if (a !== b) throw new Error(`search and the linear ranking disagree for ${JSON.stringify(q)}`);
    }

    for (const [label, queries] of Object.entries(QUERY_SETS)) {
      const a = compare(queries, reps, ours, bm25Search);
      results.push(
        result(
          `search top-20, ${label} queries, vs FTS5 bm25 prefix`,
          a.ours,
          a.baseline,
          0.05,
          `${n} tools; worst query ${JSON.stringify(a.worst.q)} ratio ${round(a.worst.ratio, 3)}; ours back-to-back ${round(a.hot, 3)} ms`,
        ),
      );
      log(`done (a) ${label}`);
      const b = compare(queries, Math.max(3, Math.ceil(reps / 3)), ours, linear);
      results.push(
        result(`search top-20, ${label} queries, vs linear JS ranking`, b.ours, b.baseline, 0.2, `${n} tools; worst query ${JSON.stringify(b.worst.q)} ratio ${round(b.worst.ratio, 3)}`),
      );
      log(`done (b) ${label}`);
    }
    {
      const a = compare(SPARSE_QUERIES, reps, ours, bm25Search);
      results.push(
        result('search top-20, queries only typos match (fuzzy tier), vs FTS5 bm25 prefix', a.ours, a.baseline, undefined, `informational: bm25 finds ~nothing for these, so it does far less work; queries ${SPARSE_QUERIES.join(' ')}`),
      );
      const b = compare(SPARSE_QUERIES, Math.max(3, Math.ceil(reps / 3)), ours, linear);
      results.push(result('search top-20, queries only typos match (fuzzy tier), vs linear JS ranking', b.ours, b.baseline, 0.2, `${n} tools`));
      log('done sparse');
    }
    index.close();
    fts.close();

    // (c) open a fresh 10k index vs rebuild from records
    {
      const small = tools.slice(0, 10_000);
      const file = path.join(dir, 'warm.db');
      const w = ToolIndex.open(file);
      w.rebuild(small);
      w.close();
      const openWarm = () => {
        const ix = ToolIndex.open(file);
        const fp = ix.fingerprints();
        let docs = 0;
        for (const d of ix.docs()) docs += d.doc.length > 0 ? 1 : 0;
        ix.close();
        if (fp.size !== small.length || docs !== small.length) throw new Error('warm open lost rows');
      };
      let k = 0;
      const rebuildCold = () => {
        const f = path.join(dir, `cold-${k++}.db`);
        const ix = ToolIndex.open(f);
        ix.rebuild(small);
        ix.close();
        for (const x of [f, `${f}-wal`, `${f}-shm`]) fs.rmSync(x, { force: true });
      };
      openWarm();
      rebuildCold();
      const o: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < Math.max(3, Math.ceil(reps / 3)); i++) {
        o.push(timeOnce(openWarm));
        b.push(timeOnce(rebuildCold));
      }
      results.push(
        result(
          'open a fresh 10k-tool index (fingerprints + docs) vs full rebuild from records',
          median(o),
          median(b),
          0.2,
          `ours excludes the stat() of the files, which the store does; for scale: ${n} tools built with rebuildInBatches in ` +
            `${(buildMs / 1000).toFixed(1)} s, ${(size / 1e6).toFixed(0)} MB, longest event-loop block ${longestBlock.toFixed(0)} ms`,
        ),
      );
      log('done (c)');
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

function printTable(rs: BenchResult[]): void {
  const rows = rs.map((r) => [
    r.name,
    `${r.ours} ${r.unit}`,
    `${r.baseline} ${r.unit}`,
    String(r.ratio),
    r.target === undefined ? '-' : `<= ${r.target}`,
    r.target === undefined ? '' : r.ratio <= r.target ? 'ok' : 'MISSED',
    r.note ?? '',
  ]);
  const head = ['benchmark', 'ours', 'baseline', 'ratio', 'target', '', 'note'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const json = process.argv.includes('--json');
  run({ log: json ? undefined : (s) => console.error(s) }).then(
    (rs) => (json ? console.log(JSON.stringify(rs, null, 2)) : printTable(rs)),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
