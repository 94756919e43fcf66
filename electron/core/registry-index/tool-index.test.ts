import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { classifiable, classify, compareRankKey, negModOf, prepareQuery, tierRank } from './ranking';
import { SCHEMA_VERSION } from './schema';
import { ToolIndex } from './tool-index';
import type { IndexedTool, SearchHit, SearchRequest } from './types';

let dir: string;
const opened: ToolIndex[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-search-test-'));
});
afterEach(() => {
  for (const ix of opened.splice(0)) ix.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(file: string | ':memory:' = ':memory:'): ToolIndex {
  const ix = ToolIndex.open(file);
  opened.push(ix);
  return ix;
}

let seq = 0;
function tool(p: Partial<IndexedTool> & { slug: string }): IndexedTool {
  seq++;
  return {
    id: p.id ?? `id-${String(seq).padStart(4, '0')}`,
    bundleId: 'bundle-1',
    version: '1.0',
    displayName: p.slug,
    description: '',
    tags: [],
    enabled: true,
    modifiedAt: '2024-01-01T00:00:00.000Z',
    ...p,
  };
}

const day = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString();

function ids(items: SearchHit[]): string[] {
  return items.map((h) => h.id);
}

/** The hits of one tier (a short query also has fuzzy hits: 'readf' is one deletion from 'read'). */
function inTier(items: SearchHit[], tier: SearchHit['tier']): string[] {
  return items.filter((h) => h.tier === tier).map((h) => h.id);
}

/** Every page of a search, concatenated. */
function allPages(ix: ToolIndex, req: SearchRequest): SearchHit[] {
  const out: SearchHit[] = [];
  let token: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const r = ix.search({ ...req, pageToken: token });
    expect(r.recommendedPageSize).toBe(20);
    expect(r.items.length).toBeLessThanOrEqual(req.pageSize ?? 20);
    out.push(...r.items);
    if (!r.nextPageToken) return out;
    expect(r.items.length).toBe(req.pageSize ?? 20);
    token = r.nextPageToken;
  }
  throw new Error('paging did not end');
}

/** The ranking computed the slow, obvious way. */
function oracle(tools: IndexedTool[], q: string, includeDisabled = false): SearchHit[] {
  const pq = prepareQuery(q);
  const hits = tools
    .filter((t) => includeDisabled || t.enabled)
    .map((t) => ({ id: t.id, negMod: negModOf(t.modifiedAt), tier: classify(classifiable(t), pq) }))
    .filter((h): h is { id: string; negMod: number; tier: NonNullable<typeof h.tier> } => h.tier !== null);
  hits.sort((a, b) => tierRank(a.tier) - tierRank(b.tier) || compareRankKey(a, b));
  return hits.map(({ id, tier }) => ({ id, tier }));
}

function appCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : `not an AppError: ${String(e)}`;
  }
  return undefined;
}

/** The index's content with rids replaced by ids, for comparing two indexes. */
function dump(ix: ToolIndex): Record<string, unknown[]> {
  const db = (ix as unknown as { db: Database.Database }).db;
  return {
    tools: db
      .prepare(
        `SELECT t.id, t.enabled, t.neg_mod, d.bundle_id, d.slug, d.version, d.display_name, d.description, d.tags, d.modified_at,
                d.src_path, d.src_mtime, d.src_size, o.doc
           FROM tools t JOIN tool_data d ON d.rid = t.rid LEFT JOIN tool_docs o ON o.rid = t.rid ORDER BY t.id`,
      )
      .all(),
    counts: db.prepare(`SELECT (SELECT count(*) FROM tools) AS t, (SELECT count(*) FROM tool_data) AS d, (SELECT count(*) FROM tool_docs) AS o`).all(),
    prefixes: db.prepare(`SELECT x.tok, x.enabled, x.neg_mod, t.id FROM prefixes x JOIN tools t ON t.rid = x.rid ORDER BY 1, 2, 3, 4`).all(),
    words: db.prepare(`SELECT x.word, x.enabled, x.in_prefix, x.neg_mod, t.id FROM words x JOIN tools t ON t.rid = x.rid ORDER BY 1, 2, 3, 4, 5`).all(),
    orphanPrefixes: db.prepare(`SELECT count(*) AS n FROM prefixes WHERE rid NOT IN (SELECT rid FROM tools)`).all(),
    orphanWords: db.prepare(`SELECT count(*) AS n FROM words WHERE rid NOT IN (SELECT rid FROM tools)`).all(),
    vocab: db.prepare(`SELECT term, refs FROM vocab ORDER BY term`).all(),
    vocabDel: db.prepare(`SELECT del, term, d FROM vocab_del ORDER BY del, term`).all(),
  };
}

const SAMPLE: IndexedTool[] = [
  tool({ id: 'readfile', slug: 'readfile', displayName: 'Read file', description: 'Reads a file from the disk.', tags: ['fs'], modifiedAt: day(1) }),
  tool({ id: 'write-file', slug: 'write-file', displayName: 'Write file', description: 'Writes a file; can read it back.', tags: ['fs'], modifiedAt: day(2) }),
  tool({ id: 'fetch-url', slug: 'fetch-url', displayName: 'Fetch URL', description: 'Downloads a URL.', tags: ['http', 'reader'], modifiedAt: day(3) }),
  tool({ id: 'list-dir', slug: 'list-dir', displayName: 'List directory', description: 'readdir wrapper', tags: ['fs'], modifiedAt: day(4), enabled: false }),
  tool({ id: 'translate', slug: 'translate', displayName: 'Translate text', description: 'Translation between languages.', tags: ['text'], modifiedAt: day(5) }),
];

describe('ToolIndex search tiers', () => {
  it('tier 1: slug, display name or tag starts with the query, case- and NFKC-insensitive', () => {
    const ix = open();
    ix.rebuild(SAMPLE);
    expect(ix.search({ q: 'readf' }).items).toEqual([
      { id: 'readfile', tier: 'prefix' },
      { id: 'write-file', tier: 'fuzzy' }, // 'read' in its description is one deletion away
    ]);
    expect(ix.search({ q: '+readf' }).items[0]).toEqual({ id: 'readfile', tier: 'prefix' }); // the palette's '+'
    expect(ix.search({ q: 'READ' }).items.slice(0, 2)).toEqual([
      { id: 'fetch-url', tier: 'prefix' }, // tag 'reader', newer
      { id: 'readfile', tier: 'prefix' },
    ]);
    expect(ix.search({ q: 'ＷＲＩＴＥ' }).items[0]).toEqual({ id: 'write-file', tier: 'prefix' }); // full-width
    expect(ix.search({ q: 'write file' }).items[0]).toEqual({ id: 'write-file', tier: 'prefix' }); // separators fold
    expect(ix.search({ q: 'Write-F' }).items[0]).toEqual({ id: 'write-file', tier: 'prefix' });
    expect(ix.search({ q: 'htt' }).items).toEqual([{ id: 'fetch-url', tier: 'prefix' }]); // tag
  });

  it('tier 2: the query is a whole word of slug, name, description or tags', () => {
    const ix = open();
    ix.rebuild(SAMPLE);
    expect(ix.search({ q: 'disk' }).items).toEqual([{ id: 'readfile', tier: 'word' }]);
    expect(ix.search({ q: 'file' }).items).toEqual([
      { id: 'write-file', tier: 'word' },
      { id: 'readfile', tier: 'word' },
    ]);
    expect(inTier(ix.search({ q: 'isk' }).items, 'word')).toEqual([]); // inside a word is not a word
    expect(ix.search({ q: 'isk' }).items).toEqual([{ id: 'readfile', tier: 'fuzzy' }]); // but a typo of 'disk'
    expect(ix.search({ q: 'file write' }).items).toEqual([{ id: 'write-file', tier: 'word' }]); // all words
    expect(ix.search({ q: 'file url' }).items).toEqual([]);
  });

  it('tier 3: a typo away (1 edit up to 6 characters, 2 from 7)', () => {
    const ix = open();
    ix.rebuild(SAMPLE);
    expect(ix.search({ q: 'raedfile' }).items).toEqual([{ id: 'readfile', tier: 'fuzzy' }]);
    expect(ix.search({ q: '+raedfile' }).items).toEqual([{ id: 'readfile', tier: 'fuzzy' }]);
    expect(ix.search({ q: 'dsik' }).items).toEqual([{ id: 'readfile', tier: 'fuzzy' }]);
    expect(ix.search({ q: 'dxxk' }).items).toEqual([]); // 2 edits on 4 characters
    expect(ix.search({ q: 'tranzlatoon' }).items).toEqual([{ id: 'translate', tier: 'fuzzy' }]); // 2 edits on 11
    expect(ix.search({ q: 'raed file' }).items).toEqual([{ id: 'readfile', tier: 'fuzzy' }]); // words joined
    expect(ix.search({ q: 'ab' }).items).toEqual([]); // too short for typos
  });

  it('orders prefix > word > fuzzy whatever the recency, and a tool only in its best tier', () => {
    const ix = open();
    ix.rebuild([
      tool({ id: 'p-old', slug: 'parse-json', modifiedAt: day(1) }),
      tool({ id: 'w-mid', slug: 'load', description: 'then parse it', modifiedAt: day(2) }),
      tool({ id: 'f-new', slug: 'store', description: 'a prase of text', modifiedAt: day(3) }),
      tool({ id: 'both', slug: 'parse', description: 'parse parse', tags: ['parse'], modifiedAt: day(0) }),
    ]);
    expect(ix.search({ q: 'parse' }).items).toEqual([
      { id: 'p-old', tier: 'prefix' },
      { id: 'both', tier: 'prefix' },
      { id: 'w-mid', tier: 'word' },
      { id: 'f-new', tier: 'fuzzy' },
    ]);
  });

  it('orders by modifiedAt descending inside a tier, then by id', () => {
    const ix = open();
    ix.rebuild([
      tool({ id: 'c', slug: 'sum-c', modifiedAt: day(5) }),
      tool({ id: 'a', slug: 'sum-a', modifiedAt: day(9) }),
      tool({ id: 'b', slug: 'sum-b', modifiedAt: day(5) }),
      tool({ id: 'd', slug: 'sum-d', modifiedAt: 'not a date' }), // oldest
      tool({ id: 'e', slug: 'sum-e', modifiedAt: day(7) }),
    ]);
    expect(ids(ix.search({ q: 'sum' }).items)).toEqual(['a', 'e', 'b', 'c', 'd']);
  });

  it('lists everything by recency for an empty query', () => {
    const ix = open();
    ix.rebuild(SAMPLE);
    const expected = ['translate', 'fetch-url', 'write-file', 'readfile'];
    expect(ix.search({}).items).toEqual(expected.map((id) => ({ id, tier: 'recent' })));
    expect(ids(ix.search({ q: '  ' }).items)).toEqual(expected);
    expect(ids(ix.search({ q: '+' }).items)).toEqual(expected);
    expect(ids(ix.search({ q: '', includeDisabled: true }).items)).toEqual(['translate', 'list-dir', ...expected.slice(1)]);
  });

  it('hides disabled tools unless includeDisabled', () => {
    const ix = open();
    ix.rebuild(SAMPLE);
    expect(ix.search({ q: 'list' }).items).toEqual([]);
    expect(ix.search({ q: 'directory' }).items).toEqual([]);
    expect(ix.search({ q: 'directory', includeDisabled: true }).items).toEqual([{ id: 'list-dir', tier: 'word' }]);
    expect(ix.search({ q: 'list', includeDisabled: true }).items).toEqual([{ id: 'list-dir', tier: 'prefix' }]);
    expect(ids(ix.search({ q: 'fs', includeDisabled: true }).items)).toEqual(['list-dir', 'write-file', 'readfile']);
    expect(ids(ix.search({ q: 'fs' }).items)).toEqual(['write-file', 'readfile']);
  });

  it('handles long prefixes by range, and by walking when very many tools share them', () => {
    const ix = open();
    const many = Array.from({ length: 1100 }, (_, i) =>
      tool({ id: `m${String(i).padStart(4, '0')}`, slug: `readmany-${i % 7}`, modifiedAt: day(i % 50) }),
    );
    const few = [tool({ id: 'rx', slug: 'readx-one', modifiedAt: day(3) })];
    ix.rebuild([...many, ...few]);
    expect(ix.search({ q: 'readx' }).items).toEqual([{ id: 'rx', tier: 'prefix' }]);
    for (const q of ['readm', 'readmany-3', 'readmany 3']) {
      expect(allPages(ix, { q, pageSize: 97 })).toEqual(oracle([...many, ...few], q));
    }
  });

  it('uses many fuzzy terms at once (walked and grouped)', () => {
    const words = ['bat', 'cot', 'cut', 'car', 'cab', 'can', 'cap', 'at', 'ca', 'chat', 'cart', 'cast', 'coat', 'scat', 'cats', 'cit', 'cet'];
    const tools = words.flatMap((w, i) => [
      tool({ id: `t${i}a`, slug: `tool-${i}a`, description: `the ${w} here`, modifiedAt: day(i) }),
      tool({ id: `t${i}b`, slug: `tool-${i}b`, description: `some ${w}`, modifiedAt: day(i % 3), enabled: i % 2 === 0 }),
    ]);
    const ix = open();
    ix.rebuild(tools);
    for (const includeDisabled of [false, true]) {
      const got = allPages(ix, { q: 'cat', pageSize: 3, includeDisabled });
      expect(got).toEqual(oracle(tools, 'cat', includeDisabled));
      expect(got.length).toBeGreaterThan(20);
      expect(new Set(got.map((h) => h.tier))).toEqual(new Set(['fuzzy']));
    }
  });
});

describe('ToolIndex paging', () => {
  const tools = Array.from({ length: 60 }, (_, i) =>
    tool({
      id: `p${String(i).padStart(3, '0')}`,
      slug: i % 3 === 0 ? `sort-${i}` : `job-${i}`,
      description: i % 3 === 1 ? 'can sort things' : i % 3 === 2 ? 'a srot typo' : 'x',
      modifiedAt: day(i % 4), // many ties: ids decide
      enabled: i % 5 !== 0,
    }),
  );

  it('returns each match exactly once across pages, in order, for any page size', () => {
    const ix = open();
    ix.rebuild(tools);
    for (const includeDisabled of [false, true]) {
      const expected = oracle(tools, 'sort', includeDisabled);
      expect(new Set(expected.map((h) => h.tier))).toEqual(new Set(['prefix', 'word', 'fuzzy']));
      for (const pageSize of [1, 2, 7, 20, 100]) {
        expect(allPages(ix, { q: 'sort', pageSize, includeDisabled })).toEqual(expected);
      }
      expect(allPages(ix, { q: '', pageSize: 7, includeDisabled })).toEqual(oracle(tools, '', includeDisabled));
    }
  });

  it('pages through a big group of tools modified in the same millisecond', () => {
    const same = Array.from({ length: 120 }, (_, i) => tool({ id: `g${(i * 37) % 120}`, slug: `same-${i}`, modifiedAt: day(1) }));
    const ix = open();
    ix.rebuild(same);
    for (const pageSize of [1, 13, 100]) expect(allPages(ix, { q: 'sa', pageSize })).toEqual(oracle(same, 'sa'));
  });

  it('rejects bad tokens and page sizes with VALIDATION_FAILED', () => {
    const ix = open();
    ix.rebuild(tools);
    const first = ix.search({ q: 'sort', pageSize: 2 });
    expect(first.nextPageToken).toBeDefined();
    expect(appCode(() => ix.search({ q: 'sort', pageToken: 'garbage!' }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.search({ q: 'sort', pageToken: Buffer.from('{}').toString('base64url') }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.search({ q: 'other', pageToken: first.nextPageToken }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.search({ q: 'sort', includeDisabled: true, pageToken: first.nextPageToken }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.search({ q: '', pageToken: first.nextPageToken }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.search({ q: 'sort', pageSize: 2, pageToken: first.nextPageToken }))).toBeUndefined();
    expect(appCode(() => ix.search({ q: 'sort', pageSize: 0 }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.search({ q: 'sort', pageSize: 101 }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.search({ q: 3 as unknown as string }))).toBe('VALIDATION_FAILED');
    expect(ix.search({ q: 'sort', pageSize: 100 }).items.length).toBeGreaterThan(20);
  });
});

describe('ToolIndex query text', () => {
  const HOSTILE = ['"', '""', "'", 'NEAR(', 'NEAR(a b, 2)', '*', 'rea*', '-', '-read', 'AND', 'OR', 'NOT', 'read AND file', ':', 'slug:read', '^', '^read', '(', ')', '()', '\0', '\ud800', '😀', 'é', '\u200b', '%', '_', '\\', '+', '++read', 'x'.repeat(5000)];

  it('never fails on any string, and finds what the words say', () => {
    const ix = open();
    ix.rebuild([...SAMPLE, tool({ id: 'near', slug: 'near-me', description: 'AND or NOT: "quoted" (parens) ^caret*', tags: ['😀 smile'] })]);
    for (const q of HOSTILE) expect(() => allPages(ix, { q, pageSize: 5, includeDisabled: true })).not.toThrow();
    expect(ids(ix.search({ q: 'NEAR(' }).items)).toEqual(['near']);
    expect(ids(ix.search({ q: '😀' }).items)).toEqual(['near']);
    expect(ids(ix.search({ q: '"quoted"' }).items)).toEqual(['near']);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.string({ unit: 'grapheme', maxLength: 20 }),
          fc.array(fc.constantFrom(...HOSTILE.slice(0, -1), 'read', 'file', ' '), { maxLength: 6 }).map((xs) => xs.join('')),
        ),
        fc.boolean(),
        (q, includeDisabled) => {
          const r = ix.search({ q, includeDisabled, pageSize: 3 });
          expect(r.items.length).toBeLessThanOrEqual(3);
          if (r.nextPageToken) ix.search({ q, includeDisabled, pageSize: 3, pageToken: r.nextPageToken });
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('ToolIndex agrees with the plain ranking (property)', () => {
  const WORDS = ['read', 'file', 'reads', 'raed', 'fil', 'files', 'write', 'wrote', 'json', 'parse', 'paste', 'ab', 'a', 'é', 'Ünïcode', 'readFile'];
  const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 4 });
  const toolArb = fc.record({
    slugWords: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
    sep: fc.constantFrom('-', '', '_'),
    name: text,
    desc: text,
    tags: fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }),
    enabled: fc.boolean(),
    mod: fc.integer({ min: 0, max: 5 }),
  });
  const queryArb = fc.oneof(
    fc.constantFrom(...WORDS),
    fc.constantFrom(...WORDS).map((w) => w.slice(0, 2)),
    fc.constantFrom(...WORDS).map((w) => w.slice(1)),
    fc.constantFrom(...WORDS).map((w) => `+${w.slice(0, 4)}`),
    fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS)).map(([a, b]) => `${a} ${b}`),
    fc.constantFrom('', 'rea', 'READ', 'raedf', 'read-f', 'readfil', 'reed', 'jsno', 'prase', 'fi', 'r', '-', '"x'),
  );

  it('returns, over all pages, exactly the tools classify() ranks, in order', () => {
    fc.assert(
      fc.property(fc.array(toolArb, { minLength: 0, maxLength: 25 }), fc.array(queryArb, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 6 }), (specs, queries, pageSize) => {
        const tools = specs.map((s, i) =>
          tool({
            id: `t${String((i * 7) % 25).padStart(2, '0')}-${i}`,
            slug: s.slugWords.join(s.sep),
            displayName: s.name.join(' '),
            description: s.desc.join(' '),
            tags: s.tags,
            enabled: s.enabled,
            modifiedAt: day(s.mod),
          }),
        );
        const ix = ToolIndex.open(':memory:');
        try {
          ix.rebuild(tools);
          for (const q of queries) {
            for (const includeDisabled of [false, true]) {
              expect(allPages(ix, { q, pageSize, includeDisabled })).toEqual(oracle(tools, q, includeDisabled));
            }
          }
        } finally {
          ix.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('ToolIndex writes', () => {
  it('rebuild equals incremental upserts and removals', () => {
    const base = Array.from({ length: 40 }, (_, i) =>
      tool({
        id: `u${i}`,
        slug: `${['read', 'write', 'list'][i % 3]}-${['file', 'dir', 'url'][i % 5 % 3]}`,
        displayName: `Tool ${i}`,
        description: `does thing ${i % 4} with ${['files', 'urls', 'dirs'][i % 3]}`,
        tags: [['fs'], ['net', 'web'], []][i % 3],
        modifiedAt: day(i % 6),
        enabled: i % 4 !== 0,
        source: { path: `/data/u${i}.json`, mtimeMs: 1000 + i, size: 10 + i },
        doc: JSON.stringify({ i }),
      }),
    );
    const incremental = open();
    for (const t of base) incremental.upsert(t);
    // change some: text, enabled, recency, source only; remove some
    const changed = base.map((t, i) =>
      i % 5 === 0 ? { ...t, description: 'rewritten text', tags: ['new'] } : i % 5 === 1 ? { ...t, enabled: !t.enabled } : i % 5 === 2 ? { ...t, modifiedAt: day(20 + i) } : i % 5 === 3 ? { ...t, doc: 'changed', source: { path: `/data/u${i}.json`, mtimeMs: 5, size: 5 } } : t,
    );
    incremental.upsertMany(changed);
    for (const id of ['u7', 'u8', 'u33']) expect(incremental.remove(id)).toBe(true);
    expect(incremental.remove('nope')).toBe(false);
    const final = changed.filter((t) => !['u7', 'u8', 'u33'].includes(t.id));

    const rebuilt = open();
    rebuilt.rebuild(final);
    expect(dump(incremental)).toEqual(dump(rebuilt));
    expect(incremental.count()).toBe(37);
    expect(incremental.ids().sort()).toEqual(final.map((t) => t.id).sort());
    for (const id of rebuilt.ids()) if (id.endsWith('1')) rebuilt.remove(id); // removing while looping over ids()
    expect(rebuilt.count()).toBe(37 - final.filter((t) => t.id.endsWith('1')).length);
    rebuilt.rebuild(final);
    for (const q of ['', 'read', 'file', 'rewritten', 'new', 'thing', 'fs', 'reda']) {
      expect(incremental.search({ q, includeDisabled: true, pageSize: 100 })).toEqual(rebuilt.search({ q, includeDisabled: true, pageSize: 100 }));
    }
  });

  it('rebuildInBatches equals rebuild, lets the event loop run, and an interrupted one asks for a rebuild on open', async () => {
    const tools = Array.from({ length: 250 }, (_, i) => tool({ id: `b${i}`, slug: `batch-${i}`, description: `item ${i % 17}`, modifiedAt: day(i % 9) }));
    const a = open();
    a.rebuild(tools);
    const b = open();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    await b.rebuildInBatches(tools, { toolsPerStep: 30, rowsPerStep: 100 });
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(5);
    expect(b.needsRebuild).toBe(false);
    expect(dump(b)).toEqual(dump(a));

    const file = path.join(dir, 'interrupted.db');
    const c = ToolIndex.open(file);
    c.rebuild(tools.slice(0, 10));
    const ctl = new AbortController();
    const run = c.rebuildInBatches(tools, { toolsPerStep: 10, rowsPerStep: 50, signal: ctl.signal });
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    ctl.abort();
    await expect(run).rejects.toThrow();
    expect(c.needsRebuild).toBe(true);
    c.close();
    expect(open(file).needsRebuild).toBe(true);

    const early = new AbortController();
    early.abort();
    const d = open();
    d.rebuild(tools.slice(0, 10));
    await expect(d.rebuildInBatches(tools, { signal: early.signal })).rejects.toThrow();
    expect(d.needsRebuild).toBe(false); // aborted before anything changed
    expect(d.count()).toBe(10);
  });

  it('moves a tool when it is disabled, renamed or touched', () => {
    const ix = open();
    ix.rebuild(SAMPLE);
    const rf = SAMPLE[0];
    ix.upsert({ ...rf, enabled: false });
    expect(ids(ix.search({ q: 'readfi' }).items)).toEqual([]);
    expect(ids(ix.search({ q: 'readfi', includeDisabled: true }).items)).toEqual(['readfile']);
    ix.upsert({ ...rf, enabled: true, slug: 'slurp', displayName: 'Slurp' });
    expect(ids(ix.search({ q: 'readfi' }).items)).toEqual([]);
    expect(ids(ix.search({ q: 'slu' }).items)).toEqual(['readfile']);
    expect(ids(ix.search({ q: 'fs' }).items)).toEqual(['write-file', 'readfile']);
    ix.upsert({ ...rf, slug: 'slurp', displayName: 'Slurp', modifiedAt: day(30) });
    expect(ids(ix.search({ q: 'fs' }).items)).toEqual(['readfile', 'write-file']);
  });

  it('validates what it is given', () => {
    const ix = open();
    expect(appCode(() => ix.upsert({ ...SAMPLE[0], id: '' }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.upsert({ ...SAMPLE[0], tags: 'fs' as unknown as string[] }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.upsert({ ...SAMPLE[0], enabled: 1 as unknown as boolean }))).toBe('VALIDATION_FAILED');
    expect(appCode(() => ix.rebuild([SAMPLE[0], null as unknown as IndexedTool]))).toBe('VALIDATION_FAILED');
    expect(ix.count()).toBe(0);
  });

  it('keeps the last record when an id repeats', () => {
    const ix = open();
    ix.rebuild([SAMPLE[0], { ...SAMPLE[0], slug: 'other' }]);
    expect(ix.count()).toBe(1);
    expect(ix.get('readfile')?.slug).toBe('other');
  });
});

describe('ToolIndex storage', () => {
  const withSource = SAMPLE.map((t, i) => ({
    ...t,
    source: { path: path.join('/data', `${t.id}.json`), mtimeMs: 1700000000000.5 + i, size: 100 + i },
    doc: i === 2 ? undefined : JSON.stringify({ id: t.id, n: i, text: 'é😀' }),
  }));

  it('round-trips fingerprints, docs and records', () => {
    const ix = open();
    ix.rebuild(withSource);
    const fp = ix.fingerprints();
    expect(fp.size).toBe(SAMPLE.length);
    expect(fp.get('/data/readfile.json')).toEqual({ mtimeMs: 1700000000000.5, size: 100, id: 'readfile' });
    const docs = [...ix.docs()];
    expect(docs.map((d) => d.id).sort()).toEqual(withSource.filter((t) => t.doc).map((t) => t.id).sort());
    for (const d of docs) expect(d.doc).toBe(withSource.find((t) => t.id === d.id)!.doc);
    for (const t of withSource) expect(ix.get(t.id)).toEqual(JSON.parse(JSON.stringify(t)));
    expect(ix.get('missing')).toBeUndefined();
  });

  it('reads docs in chunks, leaving the connection usable while iterating', () => {
    const ix = open();
    const many = Array.from({ length: 1234 }, (_, i) => tool({ id: `d${i}`, slug: `doc-${i}`, doc: `{"n":${i}}` }));
    ix.rebuild(many);
    let n = 0;
    for (const d of ix.docs()) {
      if (n++ % 400 === 0) ix.upsert({ ...many[0], description: `touched ${n}` }); // a write mid-iteration
      expect(d.doc).toMatch(/^\{"n":\d+\}$/);
    }
    expect(n).toBe(1234);
  });

  it('keeps rows when an existing file is reopened', () => {
    const file = path.join(dir, 'nested', 'index.db');
    const a = ToolIndex.open(file);
    a.rebuild(withSource);
    a.close();
    const b = open(file);
    expect(b.needsRebuild).toBe(false);
    expect(b.count()).toBe(SAMPLE.length);
    expect(inTier(b.search({ q: 'readf' }).items, 'prefix')).toEqual(['readfile']);
    expect(b.fingerprints().size).toBe(SAMPLE.length);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('migrates an empty file', () => {
    const file = path.join(dir, 'empty.db');
    fs.writeFileSync(file, '');
    const ix = open(file);
    expect(ix.count()).toBe(0);
    expect(ix.needsRebuild).toBe(false);
    ix.upsert(SAMPLE[0]);
    expect(ids(ix.search({ q: 'rea' }).items)).toEqual(['readfile']);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('replaces a corrupt, foreign or newer file and asks for a rebuild', () => {
    const corrupt = path.join(dir, 'corrupt.db');
    fs.writeFileSync(corrupt, 'this is not a database, just some text that is long enough to look like a header');
    const a = open(corrupt);
    expect(a.needsRebuild).toBe(true);
    a.rebuild(SAMPLE);
    expect(a.needsRebuild).toBe(false);

    const foreign = path.join(dir, 'foreign.db');
    const f = new Database(foreign);
    f.exec('CREATE TABLE something (x)');
    f.close();
    expect(open(foreign).needsRebuild).toBe(true);

    const newer = path.join(dir, 'newer.db');
    const n0 = ToolIndex.open(newer);
    n0.rebuild(SAMPLE);
    n0.close();
    const n1 = new Database(newer);
    n1.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    n1.close();
    const n = open(newer);
    expect(n.needsRebuild).toBe(true);
    expect(n.count()).toBe(0);
  });

  it('re-tokenises from the stored records when the tokenizer version changed', () => {
    const file = path.join(dir, 'old-tokens.db');
    const a = ToolIndex.open(file);
    a.rebuild(withSource);
    a.close();
    const db = new Database(file);
    db.exec(`DELETE FROM words; DELETE FROM prefixes; UPDATE meta SET value = '0' WHERE key = 'tokenizer'`);
    db.close();
    const b = open(file);
    expect(b.needsRebuild).toBe(false);
    expect(inTier(b.search({ q: 'readf' }).items, 'prefix')).toEqual(['readfile']);
    expect(ids(b.search({ q: 'disk' }).items)).toEqual(['readfile']);
    expect([...b.docs()].length).toBe(4);
  });
});
