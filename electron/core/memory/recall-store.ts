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
import { RecallQuerySchema, type RecallEntry, type RecallHit, type RecallQuery } from '../../../shared/model/memory';
import { toFts5Query } from '../search/query-escape';

/** The largest entry, in characters. */
export const MAX_RECALL_ENTRY = 100_000;
const MAX_METADATA = 10_000;

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

  /** Entries matching every word of the query, best first; no words: none. */
  search(input: RecallQuery): RecallHit[] {
    const q = RecallQuerySchema.parse(input);
    const match = toFts5Query(q.query);
    if (!match) return [];
    const where = ['recall_fts MATCH @match', 'e.owner = @owner'];
    const params: Record<string, unknown> = { match, owner: q.owner, limit: q.limit };
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
    const rows = this.sql(`SELECT e.id, e.owner, e.content, e.metadata, e.tags, e.created_at, bm25(recall_fts) AS score FROM recall_fts JOIN recall_entries e ON e.rowid = recall_fts.rowid WHERE ${where.join(' AND ')} ORDER BY score LIMIT @limit`)
      .all(params) as Row[];
    return rows.map((r) => ({ ...entryOf(r), score: Math.round(-(r.score ?? 0) * 1e6) / 1e6 }));
  }

  /** The newest entries of an owner. */
  recent(owner: string, limit = 50): RecallEntry[] {
    const rows = this.sql('SELECT id, owner, content, metadata, tags, created_at FROM recall_entries WHERE owner = ? ORDER BY rowid DESC LIMIT ?').all(owner, limit) as Row[];
    return rows.map(entryOf);
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

function entryOf(r: Row): RecallEntry {
  return { id: r.id, owner: r.owner, content: r.content, metadata: JSON.parse(r.metadata) as Record<string, unknown>, tags: JSON.parse(r.tags) as string[], createdAt: r.created_at };
}
