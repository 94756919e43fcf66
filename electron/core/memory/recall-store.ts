/**
 * Archival recall entries: immutable once inserted (there is no update or delete), searched
 * with SQLite FTS5. The user's query never reaches MATCH as written: search/query-escape.ts
 * turns it into quoted tokens, so quotes, `*`, `-`, `:`, parentheses and NEAR are plain text.
 * The score is FTS5's bm25, negated: higher is more relevant.
 */
import type Database from 'better-sqlite3';
import { statementCache } from './memory-db';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import type { RecallEntry, RecallHit, RecallQuery } from '../../../shared/model/memory';
import { toFts5Query } from '../registry-index/query-escape';

/** The largest entry, in characters. */
export const MAX_RECALL_ENTRY = 100_000;
const MAX_METADATA = 10_000;
/** How many of the index's best matches are looked at per result wanted before the filtered query runs. */
const CANDIDATES_PER_RESULT = 2;
/** The limits a search statement is written with (limit is 1 to 200). */
const LIMIT_SIZES = [10, 20, 50, 100, 200] as const;

interface Row {
  id: string;
  owner: string;
  content: string;
  metadata: string;
  tags: string;
  created_at: string;
  score?: number;
}

export class RecallStore {
  private readonly sql: (sql: string) => Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => Date,
  ) {
    this.sql = statementCache(db);
  }

  insert(owner: string, content: string, metadata: Record<string, unknown> = {}): RecallEntry {
    if (!content.trim()) throw new AppError('VALIDATION_FAILED', 'recall insert needs content: the text to keep', { field: 'content' });
    if (content.length > MAX_RECALL_ENTRY) throw new AppError('PAYLOAD_TOO_LARGE', `a recall entry holds at most ${MAX_RECALL_ENTRY} characters; this one has ${content.length}`, { field: 'content' });
    const tags = tagsOf(metadata);
    const meta = JSON.stringify(metadata);
    if (meta.length > MAX_METADATA) throw new AppError('PAYLOAD_TOO_LARGE', `metadata holds at most ${MAX_METADATA} characters of JSON; this has ${meta.length}`, { field: 'metadata' });
    const id = uuidv7();
    const at = this.now().toISOString();
    this.db.transaction(() => {
      const r = this.sql('INSERT INTO recall_entries (id, owner, content, metadata, tags, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, owner, content, meta, JSON.stringify(tags), at);
      this.sql('INSERT INTO recall_fts (rowid, content) VALUES (?, ?)').run(r.lastInsertRowid, content);
    })();
    return { id, owner, content, metadata, tags, createdAt: at };
  }

  /** Many entries in one transaction (an import); each checked as insert checks it. */
  insertMany(owner: string, entries: readonly { content: string; metadata?: Record<string, unknown> }[]): number {
    this.db.transaction(() => {
      for (const e of entries) this.insert(owner, e.content, e.metadata ?? {});
    })();
    return entries.length;
  }

  /**
   * Entries matching every word of the query, best first; no words: none. The best matches
   * of the whole index are ranked first (FTS5 alone, as fast as a bare MATCH) and then
   * filtered by owner, tags and time; only when too few of them pass is the filtered query
   * run over every match. Either way the answer is the same.
   */
  search(input: RecallQuery): RecallHit[] {
    const q = checkQuery(input);
    const match = toFts5Query(q.query);
    if (!match) return [];
    const where = ['e.owner = @owner'];
    const params: Record<string, unknown> = { owner: q.owner };
    if (q.since) {
      where.push('e.created_at >= @since');
      params.since = new Date(q.since).toISOString();
    }
    if (q.until) {
      where.push('e.created_at <= @until');
      params.until = new Date(q.until).toISOString();
    }
    (q.tags ?? []).forEach((t, i) => {
      where.push(`EXISTS (SELECT 1 FROM json_each(e.tags) WHERE value = @tag${i})`);
      params[`tag${i}`] = t;
    });
    const filter = where.join(' AND ');
    // The statement's limit is the next of a few sizes (the rows past the asked limit are
    // dropped below): the limits are written into the statement, so this keeps the number of
    // statements cached small.
    const sqlLimit = LIMIT_SIZES.find((n) => n >= q.limit) ?? q.limit;
    const window = sqlLimit * CANDIDATES_PER_RESULT;
    // One statement: the rows that pass among the index's best, then a last row holding how
    // many candidates there were. CROSS JOIN keeps FTS5 as the outer loop (never a scan of
    // the memory's every entry). The limits are written into the statement (checked integers,
    // so a few statements are cached): with a LIMIT bound as a parameter, SQLite's plan for
    // the ranked FTS5 query is markedly slower.
    const got = this.sql(
      `WITH c AS MATERIALIZED (SELECT rowid, bm25(recall_fts) AS score FROM recall_fts WHERE recall_fts MATCH @match ORDER BY score LIMIT ${window})
       SELECT * FROM (SELECT e.id, e.owner, e.content, e.metadata, e.tags, e.created_at, c.score FROM c CROSS JOIN recall_entries e ON e.rowid = c.rowid WHERE ${filter} ORDER BY c.score, e.rowid LIMIT ${sqlLimit})
       UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, (SELECT count(*) FROM c)`,
    ).all({ ...params, match }) as Row[];
    const candidates = got.pop()!.score!;
    // The order inside a compound SELECT is not promised: sorted again (stable, so ties keep rowid order).
    const first = got.sort((a, b) => a.score! - b.score!);
    // Enough of the index's best passed (they are the best that pass), or every match was among them.
    const rows: Row[] =
      first.length >= q.limit || candidates < window
        ? first
        : (this.sql(
            `SELECT e.id, e.owner, e.content, e.metadata, e.tags, e.created_at, bm25(recall_fts) AS score FROM recall_fts CROSS JOIN recall_entries e ON e.rowid = recall_fts.rowid WHERE recall_fts MATCH @match AND ${filter} ORDER BY score, e.rowid LIMIT ${sqlLimit}`,
          ).all({ ...params, match }) as Row[]);
    return rows.slice(0, q.limit).map((r) => ({ ...entryOf(r), score: Math.round(-(r.score ?? 0) * 1e6) / 1e6 }));
  }

  /** The newest entries of an owner. */
  recent(owner: string, limit = 50): RecallEntry[] {
    const rows = this.sql('SELECT id, owner, content, metadata, tags, created_at FROM recall_entries WHERE owner = ? ORDER BY rowid DESC LIMIT ?').all(owner, limit) as Row[];
    return rows.map(entryOf);
  }

  /**
   * Removes every entry of an owner (its conversation was deleted): models can never delete an
   * entry, the person can, with the conversation. The FTS index is external-content, so each
   * row leaves it with the 'delete' command and its old content.
   */
  removeOwner(owner: string): number {
    const rows = this.sql('SELECT rowid, content FROM recall_entries WHERE owner = ?').all(owner) as { rowid: number; content: string }[];
    if (rows.length === 0) return 0;
    this.db.transaction(() => {
      for (const r of rows) {
        this.sql("INSERT INTO recall_fts (recall_fts, rowid, content) VALUES ('delete', ?, ?)").run(r.rowid, r.content);
        this.sql('DELETE FROM recall_entries WHERE rowid = ?').run(r.rowid);
      }
    })();
    return rows.length;
  }

  count(owner?: string): number {
    const r = (owner ? this.sql('SELECT count(*) AS n FROM recall_entries WHERE owner = ?').get(owner) : this.sql('SELECT count(*) AS n FROM recall_entries').get()) as { n: number };
    return r.n;
  }
}

/** Tags come from metadata.tags (strings). */
function tagsOf(metadata: Record<string, unknown>): string[] {
  const t = metadata.tags;
  if (t === undefined) return [];
  if (!Array.isArray(t) || t.some((x) => typeof x !== 'string' || !x.trim() || x.length > 100)) {
    throw new AppError('VALIDATION_FAILED', 'metadata.tags is a list of short strings (1 to 100 characters each)', { field: 'metadata.tags' });
  }
  return [...new Set(t as string[])];
}

/**
 * The query as RecallQuerySchema says, checked by hand: a search is small work, and a schema
 * parse would be a good part of it. The contract's handler gets it parsed by the router.
 */
function checkQuery(input: RecallQuery): RecallQuery & { limit: number } {
  const limit = input.limit ?? 10;
  const bad = (field: string, what: string) => new AppError('VALIDATION_FAILED', `${field} ${what}`, { field });
  if (typeof input.owner !== 'string' || !/^(conversation|agent):./.test(input.owner)) throw bad('owner', 'is conversation:<id> or agent:<name>');
  if (typeof input.query !== 'string' || input.query.length < 1 || input.query.length > 2000) throw bad('query', 'is 1 to 2000 characters');
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw bad('limit', 'is an integer from 1 to 200');
  if (input.tags !== undefined && (!Array.isArray(input.tags) || input.tags.length > 20 || input.tags.some((t) => typeof t !== 'string' || t.length < 1 || t.length > 100))) {
    throw bad('tags', 'is a list of at most 20 tags of 1 to 100 characters');
  }
  for (const f of ['since', 'until'] as const) {
    const v = input[f];
    if (v !== undefined && (typeof v !== 'string' || Number.isNaN(Date.parse(v)) || !/^\d{4}-\d{2}-\d{2}T/.test(v))) throw bad(f, 'is an ISO 8601 time such as 2026-01-31T12:00:00Z');
  }
  return { ...input, limit };
}

function entryOf(r: Row): RecallEntry {
  return { id: r.id, owner: r.owner, content: r.content, metadata: JSON.parse(r.metadata) as Record<string, unknown>, tags: JSON.parse(r.tags) as string[], createdAt: r.created_at };
}
