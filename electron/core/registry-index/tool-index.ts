/**
 * ToolIndex: the derived SQLite index of the tool registry (search, fingerprints, cached docs).
 *
 * Search never scores every hit. The tiers are read in order, each from a B-tree whose
 * rows are already in recency order (see schema.ts), and reading stops when the page is
 * full (plus one row, to know whether there is a next page).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { AppError } from '../../../shared/errors';
import { buildSteps, type BuildRecordColumns, type StepSizes } from './bulk-build';
import { deletionNeighbourhood, termDeletionDepth } from './fuzzy';
import { START, mergeSorted, sortedAfter, type RowFetch } from './merge';
import { OrderedSource } from './sources';
import {
  DEFAULT_PAGE_SIZE,
  RECOMMENDED_PAGE_SIZE,
  decodePageToken,
  encodePageToken,
  queryHash,
  validatePageSize,
} from './paging';
import {
  EMPTY_QUERY_TIERS,
  QUERY_TIERS,
  fuzzyTermMatches,
  isPrefixMatch,
  keysOf,
  negModOf,
  prepareQuery,
  queryDeletions,
  toolFeatures,
  type PreparedQuery,
  type RankKey,
  type Tier,
  type ToolFeatures,
} from './ranking';
import { dataParams, dedupe, invalidTool, parseTags, rowFields, rowToTool, validateTool, type ToolRow } from './rows';
import { TOKENIZER_VERSION, getMeta, openDatabase, setMeta, type DB } from './schema';
import { PREFIX_TOKEN_LEN, prefixUpperBound, takeCodePoints } from './text';
import type { FingerprintEntry, IndexedSource, IndexedTool, SearchRequest, SearchResult, SearchHit } from './types';

/** A long query's tier 1 is a range over whole keys, sorted in memory, while it has at most this many rows. */
const LONG_PREFIX_SORT_CAP = 1000;
/** Fuzzy terms with this many most-used terms get index walks of their own; the rest share one sorted query. */
const FUZZY_WALKED_TERMS = 12;
const DOCS_CHUNK = 500;

export interface RebuildOptions extends StepSizes {
  signal?: AbortSignal;
}

export interface OpenOptions {
  /**
   * The caller's name for the format of the docs it stores. When the index's docs were
   * stored under another name (or none), the index asks for a rebuild (`needsRebuild`);
   * rebuild() and rebuildInBatches() record the name. Leave it out to skip the check.
   */
  docFormat?: string;
  /**
   * When the file cannot be used (SQLITE_IOERR, e.g. another process's index half deleted
   * under it; or it cannot be opened at all), open a private in-memory index instead of
   * failing: `privateReason` then says why, and the caller rebuilds it from the files.
   * A corrupt file is still replaced on disk (see schema.ts).
   */
  privateFallback?: boolean;
}

/**
 * True for SQLite failures that mean the index file itself cannot be trusted or reached
 * (I/O error, corruption, a file that is not a database, or that cannot be opened): the
 * caller should go on with a private index rebuilt from the files, not fail.
 */
export function isIndexFileFailure(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^SQLITE_(IOERR|CORRUPT|NOTADB|CANTOPEN)/.test(code);
}

interface KeyCols {
  slug: string;
  display_name: string;
  tags: string;
}
/** A word row with what is needed to tell its tool's tier without re-tokenising the description. */
interface WordHitCols extends KeyCols {
  rid: number;
  enabled: number;
}
const WORD_HIT_COLS = ', x.rid AS rid, x.enabled AS enabled, d.slug AS slug, d.display_name AS display_name, d.tags AS tags';
const DATA_JOIN = 'JOIN tool_data d ON d.rid = x.rid';

function keysOfCols(r: KeyCols): { keys: string[] } {
  return { keys: keysOf({ slug: r.slug, displayName: r.display_name, description: '', tags: parseTags(r.tags) }) };
}

const DATA_COLUMNS = 'rid, bundle_id, slug, version, display_name, description, tags, modified_at, src_path, src_mtime, src_size';
const BUILD_COLUMNS: BuildRecordColumns = { dataParams, dataColumns: DATA_COLUMNS };

const ROW_SELECT = `SELECT t.rid, t.id, t.enabled, t.neg_mod, d.bundle_id, d.slug, d.version, d.display_name, d.description, d.tags,
    d.modified_at, d.src_path, d.src_mtime, d.src_size, o.doc
  FROM tools t JOIN tool_data d ON d.rid = t.rid LEFT JOIN tool_docs o ON o.rid = t.rid`;

export class ToolIndex {
  private readonly db: DB;
  private _needsRebuild: boolean;
  private closed = false;
  private readonly s: ReturnType<ToolIndex['prepareStatements']>;
  private readonly inCache = new Map<string, Database.Statement>();
  private readonly sourceCache = new Map<string, OrderedSource<never>>();
  /** Set when this is a private in-memory index standing in for a file that could not be used (see OpenOptions). */
  privateReason: string | undefined;

  private constructor(
    db: DB,
    needsRebuild: boolean,
    private readonly docFormat: string | undefined,
  ) {
    this.db = db;
    this._needsRebuild = needsRebuild;
    this.s = this.prepareStatements();
  }

  /**
   * Opens (creating or migrating) the index at `dbPath`. A corrupt or foreign file is
   * replaced by an empty index; `needsRebuild` then says so, as it does when the stored
   * docs are not of `opts.docFormat`.
   */
  static open(dbPath: string | ':memory:', opts: OpenOptions = {}): ToolIndex {
    try {
      return ToolIndex.openFile(dbPath, opts);
    } catch (e) {
      if (!opts.privateFallback || dbPath === ':memory:') throw e;
      const index = ToolIndex.openFile(':memory:', opts);
      index._needsRebuild = true;
      index.privateReason = (e as Error).message;
      return index;
    }
  }

  private static openFile(dbPath: string, opts: OpenOptions): ToolIndex {
    const opened = openDatabase(dbPath);
    try {
      const staleDocs = opts.docFormat !== undefined && getMeta(opened.db, 'docFormat') !== opts.docFormat;
      const index = new ToolIndex(opened.db, opened.needsRebuild || staleDocs, opts.docFormat);
      // Re-tokenising keeps the stored records: pointless when they are to be rebuilt from the files anyway.
      if (opened.needsReindex && !index.needsRebuild) index.reindexFromStoredRows();
      return index;
    } catch (e) {
      opened.db.close();
      throw e;
    }
  }

  /** True when the index was recreated or a batched rebuild did not finish: the caller should rebuild from the files. */
  get needsRebuild(): boolean {
    return this._needsRebuild;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private prepareStatements() {
    const db = this.db;
    return {
      count: db.prepare(`SELECT count(*) FROM tools`).pluck(),
      ids: db.prepare(`SELECT id FROM tools ORDER BY rid`).pluck(),
      getRow: db.prepare(`${ROW_SELECT} WHERE t.id = ?`),
      upsertRow: db
        .prepare(
          `INSERT INTO tools (id, enabled, neg_mod) VALUES (?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, neg_mod = excluded.neg_mod RETURNING rid`,
        )
        .pluck(),
      putData: db.prepare(`INSERT OR REPLACE INTO tool_data (${DATA_COLUMNS}) VALUES (${new Array(11).fill('?').join(',')})`),
      putDoc: db.prepare(`INSERT OR REPLACE INTO tool_docs (rid, doc) VALUES (?, ?)`),
      deleteDoc: db.prepare(`DELETE FROM tool_docs WHERE rid = ?`),
      deleteRow: db.prepare(`DELETE FROM tools WHERE rid = ?`),
      deleteData: db.prepare(`DELETE FROM tool_data WHERE rid = ?`),
      insPrefix: db.prepare(`INSERT OR IGNORE INTO prefixes (tok, enabled, neg_mod, rid) VALUES (?, ?, ?, ?)`),
      delPrefix: db.prepare(`DELETE FROM prefixes WHERE tok = ? AND enabled = ? AND neg_mod = ? AND rid = ?`),
      insWord: db.prepare(`INSERT OR IGNORE INTO words (word, enabled, in_prefix, neg_mod, rid) VALUES (?, ?, ?, ?, ?)`),
      delWord: db.prepare(`DELETE FROM words WHERE word = ? AND enabled = ? AND in_prefix = ? AND neg_mod = ? AND rid = ?`),
      vocabInc: db
        .prepare(
          `INSERT INTO vocab (term, refs) VALUES (?, 1) ON CONFLICT (term) DO UPDATE SET refs = refs + 1 RETURNING refs`,
        )
        .pluck(),
      vocabDec: db.prepare(`UPDATE vocab SET refs = refs - 1 WHERE term = ? RETURNING refs`).pluck(),
      vocabDelete: db.prepare(`DELETE FROM vocab WHERE term = ?`),
      insDel: db.prepare(`INSERT OR IGNORE INTO vocab_del (del, term, d) VALUES (?, ?, ?)`),
      delDel: db.prepare(`DELETE FROM vocab_del WHERE del = ? AND term = ?`),
      fingerprints: db
        .prepare(`SELECT d.src_path, d.src_mtime, d.src_size, t.id FROM tool_data d JOIN tools t ON t.rid = d.rid WHERE d.src_path IS NOT NULL`)
        .raw(),
      sourcesChunk: db
        .prepare(
          `SELECT t.rid, d.src_path, d.src_mtime, d.src_size, t.id, t.enabled, o.doc FROM tools t
            JOIN tool_data d ON d.rid = t.rid JOIN tool_docs o ON o.rid = t.rid
            WHERE t.rid > ? AND d.src_path IS NOT NULL ORDER BY t.rid LIMIT ?`,
        )
        .raw(),
      docsChunk: db
        .prepare(`SELECT o.rid, t.id, o.doc FROM tool_docs o JOIN tools t ON t.rid = o.rid WHERE o.rid > ? ORDER BY o.rid LIMIT ?`)
        .raw(),
      rowsChunk: db.prepare(`${ROW_SELECT} WHERE t.rid > ? ORDER BY t.rid LIMIT ?`),
      // search
      recent: db.prepare(
        `SELECT neg_mod AS negMod, id FROM tools WHERE enabled = ? AND (neg_mod, id) > (?, ?) ORDER BY neg_mod, id LIMIT ?`,
      ),
      prefixRange: db.prepare(
        `SELECT x.neg_mod AS negMod, t.id AS id, x.enabled AS enabled FROM prefixes x JOIN tools t ON t.rid = x.rid
          WHERE x.tok >= ? AND x.tok < ? LIMIT ?`,
      ),
      prefixRangeOpen: db.prepare(
        `SELECT x.neg_mod AS negMod, t.id AS id, x.enabled AS enabled FROM prefixes x JOIN tools t ON t.rid = x.rid
          WHERE x.tok >= ? LIMIT ?`,
      ),
      prefixEq: new OrderedSource(db, 'prefixes', 'x.tok = ? AND x.enabled = ?'),
      prefixEqWithKeys: new OrderedSource<RankKey & KeyCols>(
        db,
        'prefixes',
        'x.tok = ? AND x.enabled = ?',
        ', d.slug AS slug, d.display_name AS display_name, d.tags AS tags',
        DATA_JOIN,
      ),
      wordEq: new OrderedSource(db, 'words', 'x.word = ? AND x.enabled = ? AND x.in_prefix = ?'),
      wordEqWithKeys: new OrderedSource<RankKey & WordHitCols>(
        db,
        'words',
        'x.word = ? AND x.enabled = ? AND x.in_prefix = ?',
        WORD_HIT_COLS,
        DATA_JOIN,
      ),
      hasWord: db
        .prepare(`SELECT 1 FROM words WHERE word = ? AND enabled = ? AND in_prefix IN (0, 1) AND neg_mod = ? AND rid = ? LIMIT 1`)
        .pluck(),
    };
  }

  // ---------------------------------------------------------------- reads

  count(): number {
    return this.s.count.get() as number;
  }

  get(id: string): IndexedTool | undefined {
    const r = this.s.getRow.get(id) as ToolRow | undefined;
    return r ? rowToTool(r) : undefined;
  }

  /** The ids of every tool in the index (a copy: removing tools while looping over it is fine). */
  ids(): string[] {
    return this.s.ids.all() as string[];
  }

  /** Source path -> fingerprint of every tool that came from a file. */
  fingerprints(): Map<string, FingerprintEntry> {
    const out = new Map<string, FingerprintEntry>();
    for (const [path, mtimeMs, size, id] of this.s.fingerprints.all() as [string, number, number, string][]) {
      out.set(path, { mtimeMs, size, id });
    }
    return out;
  }

  /**
   * The cached JSON of every tool that has one, read in chunks (the connection is free
   * between chunks, so other calls may run while a consumer iterates).
   */
  *docs(): Generator<{ id: string; doc: string }> {
    let last = 0;
    for (;;) {
      const rows = this.s.docsChunk.all(last, DOCS_CHUNK) as [number, string, string][];
      for (const [, id, doc] of rows) yield { id, doc };
      if (rows.length < DOCS_CHUNK) return;
      last = rows[rows.length - 1][0];
    }
  }

  /**
   * Every tool that came from a file and has a cached doc, with its fingerprint and indexed
   * enabled state: fingerprints() and docs() in one pass, read in chunks like docs().
   */
  *sources(): Generator<IndexedSource> {
    let last = 0;
    for (;;) {
      const rows = this.s.sourcesChunk.all(last, DOCS_CHUNK) as [number, string, number, number, string, number, string][];
      for (const [, path, mtimeMs, size, id, enabled, doc] of rows) yield { path, mtimeMs, size, id, enabled: enabled === 1, doc };
      if (rows.length < DOCS_CHUNK) return;
      last = rows[rows.length - 1][0];
    }
  }

  // ---------------------------------------------------------------- writes

  /** Replaces the whole index with `tools` in one transaction. */
  rebuild(tools: Iterable<IndexedTool>): void {
    const list = dedupe(tools);
    this.db.transaction(() => {
      this.clearAll();
      for (const _ of buildSteps(this.db, list, BUILD_COLUMNS));
      this.markReady();
    })();
    this._needsRebuild = false;
    this.checkpoint();
  }

  /**
   * Replaces the whole index in many short transactions (about 1000 tools or 25k index
   * rows each), yielding to the event loop between them, so the main process stays
   * responsive while 100k tools are indexed. Searches that run meanwhile see a partial
   * index; if the process stops half way, the next open reports `needsRebuild`.
   */
  async rebuildInBatches(tools: Iterable<IndexedTool>, opts: RebuildOptions = {}): Promise<void> {
    const list = dedupe(tools);
    await yieldToEventLoop();
    opts.signal?.throwIfAborted(); // nothing changed yet
    this.db.transaction(() => {
      this.clearAll();
      setMeta(this.db, 'state', 'building');
    })();
    this._needsRebuild = true;
    await yieldToEventLoop();
    const steps = buildSteps(this.db, list, BUILD_COLUMNS, opts);
    const step = this.db.transaction(() => steps.next().done === true);
    for (;;) {
      opts.signal?.throwIfAborted();
      if (step()) break;
      await yieldToEventLoop();
    }
    this.db.transaction(() => this.markReady())();
    this._needsRebuild = false;
    this.checkpoint();
  }

  private markReady(): void {
    setMeta(this.db, 'state', 'ready');
    setMeta(this.db, 'tokenizer', String(TOKENIZER_VERSION));
    if (this.docFormat !== undefined) setMeta(this.db, 'docFormat', this.docFormat);
  }

  /** Folds the write-ahead log back into the file and truncates it (after bulk writes). */
  private checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  upsert(tool: IndexedTool): void {
    const t = validateTool(tool);
    this.db.transaction(() => this.upsertOne(t))();
  }

  /** Upserts in one transaction (callers with very many tools should pass batches). */
  upsertMany(tools: Iterable<IndexedTool>): void {
    const list = dedupe(tools);
    this.db.transaction(() => {
      for (const t of list) this.upsertOne(t);
    })();
  }

  /** Removes a tool; false when it was not there. */
  remove(id: string): boolean {
    if (typeof id !== 'string') throw invalidTool('id must be a string', { field: 'id' });
    return this.db.transaction(() => {
      const old = this.s.getRow.get(id) as ToolRow | undefined;
      if (!old) return false;
      const f = toolFeatures(rowFields(old));
      this.deleteTokens(f, old.enabled, old.neg_mod, old.rid);
      for (const w of f.words) this.vocabRemove(w);
      this.s.deleteRow.run(old.rid);
      this.s.deleteData.run(old.rid);
      this.s.deleteDoc.run(old.rid);
      return true;
    })();
  }

  private upsertOne(t: IndexedTool): void {
    const negMod = negModOf(t.modifiedAt);
    const enabled = t.enabled ? 1 : 0;
    const tagsJson = JSON.stringify(t.tags);
    const old = this.s.getRow.get(t.id) as ToolRow | undefined;
    if (
      old &&
      old.enabled === enabled &&
      old.neg_mod === negMod &&
      old.slug === t.slug &&
      old.display_name === t.displayName &&
      old.description === t.description &&
      old.tags === tagsJson
    ) {
      this.writeRecord(old.rid, t); // nothing search looks at changed
      return;
    }
    const nf = toolFeatures(t);
    if (old) {
      const of = toolFeatures(rowFields(old));
      this.deleteTokens(of, old.enabled, old.neg_mod, old.rid);
      const newWords = new Set(nf.words);
      const oldWords = new Set(of.words);
      for (const w of of.words) if (!newWords.has(w)) this.vocabRemove(w);
      for (const w of nf.words) if (!oldWords.has(w)) this.vocabAdd(w);
    } else {
      for (const w of nf.words) this.vocabAdd(w);
    }
    const rid = this.s.upsertRow.get(t.id, enabled, negMod) as number;
    this.writeRecord(rid, t);
    this.insertTokens(nf, enabled, negMod, rid);
  }

  private writeRecord(rid: number, t: IndexedTool): void {
    this.s.putData.run(rid, ...dataParams(t));
    if (t.doc !== undefined) this.s.putDoc.run(rid, t.doc);
    else this.s.deleteDoc.run(rid);
  }

  private insertTokens(f: ToolFeatures, enabled: number, negMod: number, rid: number): void {
    for (const tok of f.prefixTokens) this.s.insPrefix.run(tok, enabled, negMod, rid);
    f.words.forEach((w, i) => this.s.insWord.run(w, enabled, f.wordIsPrefix[i] ? 1 : 0, negMod, rid));
  }

  private deleteTokens(f: ToolFeatures, enabled: number, negMod: number, rid: number): void {
    for (const tok of f.prefixTokens) this.s.delPrefix.run(tok, enabled, negMod, rid);
    f.words.forEach((w, i) => this.s.delWord.run(w, enabled, f.wordIsPrefix[i] ? 1 : 0, negMod, rid));
  }

  private vocabAdd(term: string): void {
    const refs = this.s.vocabInc.get(term) as number;
    if (refs !== 1) return;
    const depth = termDeletionDepth(Array.from(term).length);
    if (depth < 0) return;
    for (const [del, d] of deletionNeighbourhood(term, depth)) this.s.insDel.run(del, term, d);
  }

  private vocabRemove(term: string): void {
    const refs = this.s.vocabDec.get(term) as number | undefined;
    if (refs === undefined || refs > 0) return;
    this.s.vocabDelete.run(term);
    const depth = termDeletionDepth(Array.from(term).length);
    if (depth < 0) return;
    for (const del of deletionNeighbourhood(term, depth).keys()) this.s.delDel.run(del, term);
  }

  private clearAll(): void {
    this.db.exec(
      `DELETE FROM tools; DELETE FROM tool_data; DELETE FROM tool_docs; DELETE FROM prefixes; DELETE FROM words;
       DELETE FROM vocab; DELETE FROM vocab_del;`,
    );
  }

  /** After a tokenizer change: rebuild the token tables from the stored records (no file reads). */
  private reindexFromStoredRows(): void {
    const all: IndexedTool[] = [];
    let last = 0;
    for (;;) {
      const rows = this.s.rowsChunk.all(last, 1000) as ToolRow[];
      for (const r of rows) all.push(rowToTool(r));
      if (rows.length < 1000) break;
      last = rows[rows.length - 1].rid;
    }
    this.rebuild(all);
  }

  // ---------------------------------------------------------------- search

  search(req: SearchRequest = {}): SearchResult {
    if (typeof req !== 'object' || req === null) {
      throw new AppError('VALIDATION_FAILED', 'search request must be an object');
    }
    if (req.q !== undefined && req.q !== null && typeof req.q !== 'string') {
      throw new AppError('VALIDATION_FAILED', 'q must be a string', { field: 'q' });
    }
    if (req.includeDisabled !== undefined && typeof req.includeDisabled !== 'boolean') {
      throw new AppError('VALIDATION_FAILED', 'includeDisabled must be a boolean', { field: 'includeDisabled' });
    }
    const pageSize = validatePageSize(req.pageSize ?? DEFAULT_PAGE_SIZE);
    const includeDisabled = req.includeDisabled === true;
    const q = prepareQuery(req.q);
    const tiers = q.folded === '' ? EMPTY_QUERY_TIERS : QUERY_TIERS;
    const hash = queryHash(q.folded, includeDisabled);

    let startTier = 0;
    let after: RankKey = START;
    if (req.pageToken !== undefined && req.pageToken !== null) {
      const c = decodePageToken(req.pageToken, hash, tiers);
      startTier = tiers.indexOf(c.tier);
      after = { negMod: c.negMod, id: c.id };
    }

    const parts = includeDisabled ? [1, 0] : [1];
    const items: (SearchHit & RankKey)[] = [];
    let more = false;
    outer: for (let ti = startTier; ti < tiers.length; ti++) {
      const tier = tiers[ti];
      const rows = this.tierRows(tier, q, parts, ti === startTier ? after : START, pageSize + 1 - items.length);
      for (const row of rows) {
        if (items.length === pageSize) {
          more = true;
          break outer;
        }
        items.push({ id: row.id, tier, negMod: row.negMod });
      }
    }
    const result: SearchResult = {
      items: items.map(({ id, tier }) => ({ id, tier })),
      recommendedPageSize: RECOMMENDED_PAGE_SIZE,
    };
    if (more) {
      const last = items[items.length - 1];
      result.nextPageToken = encodePageToken({ tier: last.tier, negMod: last.negMod, id: last.id }, hash);
    }
    return result;
  }

  /** The rows of one tier strictly after `after`, in order, lazily. */
  private tierRows(tier: Tier, q: PreparedQuery, parts: number[], after: RankKey, want: number): Iterable<RankKey> {
    switch (tier) {
      case 'recent':
        return mergeSorted(
          parts.map((e): RowFetch => (a, n) => this.s.recent.all(e, a.negMod, a.id, n) as RankKey[]),
          after,
          want,
        );
      case 'prefix':
        return q.foldedLen <= PREFIX_TOKEN_LEN
          ? mergeSorted(
              parts.map((e) => this.s.prefixEq.fetcher([q.folded, e])),
              after,
              want,
            )
          : this.longPrefixRows(q, parts, after, want);
      case 'word':
        return this.wordRows(q, parts, after, want);
      case 'fuzzy':
        return this.fuzzyRows(q, parts, after, want);
    }
  }

  private longPrefixRows(q: PreparedQuery, parts: number[], after: RankKey, want: number): Iterable<RankKey> {
    const upper = prefixUpperBound(q.folded);
    const rows = (
      upper === undefined
        ? this.s.prefixRangeOpen.all(q.folded, LONG_PREFIX_SORT_CAP + 1)
        : this.s.prefixRange.all(q.folded, upper, LONG_PREFIX_SORT_CAP + 1)
    ) as (RankKey & { enabled: number })[];
    if (rows.length <= LONG_PREFIX_SORT_CAP) {
      return sortedAfter(
        rows.filter((r) => parts.includes(r.enabled)),
        after,
      );
    }
    // Very many tools share this long prefix: walk its first 3 characters in recency
    // order and keep the rows whose keys really start with the query.
    const tok = takeCodePoints(q.folded, PREFIX_TOKEN_LEN);
    const walked = mergeSorted(
      parts.map((e) => this.s.prefixEqWithKeys.fetcher([tok, e])),
      after,
      want * 4,
    );
    return filterRows(walked, (r) => isPrefixMatch(keysOfCols(r), q));
  }

  private wordRows(q: PreparedQuery, parts: number[], after: RankKey, want: number): Iterable<RankKey> {
    if (q.words.length === 0) return [];
    if (q.words.length === 1 && q.words[0] === q.folded) {
      // One word that is the whole query: tools where a key starts with it are tier 1,
      // and in_prefix = 0 leaves exactly the others, in order, by index.
      const w = q.words[0];
      return mergeSorted(
        parts.map((e) => this.s.wordEq.fetcher([w, e, 0])),
        after,
        want,
      );
    }
    // Several words (or a query with punctuation): walk the longest word, check the rest.
    const w = q.words[0];
    const fetches = parts.flatMap((e) => [0, 1].map((ip) => this.s.wordEqWithKeys.fetcher([w, e, ip])));
    return filterRows(mergeSorted(fetches, after, want * 2), (r) => !isPrefixMatch(keysOfCols(r), q) && this.hasAllWords(r, q));
  }

  private fuzzyRows(q: PreparedQuery, parts: number[], after: RankKey, want: number): Iterable<RankKey> {
    if (q.fuzzyEdits === 0) return [];
    const terms = this.fuzzyTerms(q);
    if (terms.length === 0) return [];
    const fetches: ((a: RankKey, n: number) => (RankKey & WordHitCols)[])[] = [];
    for (const term of terms.slice(0, FUZZY_WALKED_TERMS)) {
      for (const e of parts) for (const ip of [0, 1]) fetches.push(this.s.wordEqWithKeys.fetcher([term, e, ip]));
    }
    const rest = terms.slice(FUZZY_WALKED_TERMS);
    for (let i = 0; i < rest.length; i += 400) {
      const chunk = rest.slice(i, i + 400);
      const src = this.orderedSource<RankKey & WordHitCols>(
        'words',
        `x.word IN (${new Array(chunk.length).fill('?').join(',')}) AND x.enabled IN (${parts.join(',')})`,
        WORD_HIT_COLS,
        DATA_JOIN,
      );
      fetches.push(src.fetcher(chunk));
    }
    // Each row's word is a fuzzy match, so the tool is in the fuzzy tier unless a better
    // tier holds it (the same decision as classify(), without re-reading the description).
    return filterRows(
      mergeSorted(fetches, after, want),
      (r) => !isPrefixMatch(keysOfCols(r), q) && !this.hasAllWords(r, q),
    );
  }

  /** Does the tool of this word row have every word of the query (the word tier)? */
  private hasAllWords(r: RankKey & { rid: number; enabled: number }, q: PreparedQuery): boolean {
    if (q.words.length === 0) return false;
    for (const w of q.words) if (this.s.hasWord.get(w, r.enabled, r.negMod, r.rid) === undefined) return false;
    return true;
  }

  /** Vocabulary terms within the query's edit budget, most used first. */
  private fuzzyTerms(q: PreparedQuery): string[] {
    const dels = queryDeletions(q);
    const found = new Map<string, number>();
    for (let i = 0; i < dels.length; i += 400) {
      const chunk = dels.slice(i, i + 400);
      const stmt = this.inStatement(
        `SELECT DISTINCT d.term, v.refs FROM vocab_del d JOIN vocab v ON v.term = d.term WHERE d.del IN (%) AND d.d <= ?`,
        chunk.length,
      );
      for (const [term, refs] of stmt.raw().all(...chunk, q.fuzzyEdits) as [string, number][]) {
        if (!found.has(term) && fuzzyTermMatches(q, term)) found.set(term, refs);
      }
    }
    return [...found].sort((a, b) => b[1] - a[1]).map(([t]) => t);
  }

  /** A statement with `%` replaced by n placeholders, cached per (sql, n). */
  private inStatement(sql: string, n: number): Database.Statement {
    const key = `${n}:${sql}`;
    let stmt = this.inCache.get(key);
    if (!stmt) {
      stmt = this.db.prepare(sql.replace('%', new Array(n).fill('?').join(',')));
      if (this.inCache.size > 200) this.inCache.clear();
      this.inCache.set(key, stmt);
    }
    return stmt;
  }

  private orderedSource<T extends RankKey>(table: string, where: string, extra: string, join: string): OrderedSource<T> {
    const key = `${table}|${where}|${extra}|${join}`;
    let src = this.sourceCache.get(key) as OrderedSource<T> | undefined;
    if (!src) {
      src = new OrderedSource<T>(this.db, table, where, extra, join);
      if (this.sourceCache.size > 100) this.sourceCache.clear();
      this.sourceCache.set(key, src as unknown as OrderedSource<never>);
    }
    return src;
  }
}

function* filterRows<T>(rows: Iterable<T>, keep: (r: T) => boolean): Generator<T> {
  for (const r of rows) if (keep(r)) yield r;
}
