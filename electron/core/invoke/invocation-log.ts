/**
 * Every invocation becomes a record (tool, args, result or error, timings, attempts), kept
 * in SQLite beside the data files. Records are redacted before they get here and values are
 * cut to a size a viewer can show; the log keeps the newest MAX_RECORDS.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import type { InvocationRecord } from '../../../shared/model/invocation';

const MAX_RECORDS = 20_000;
const PRUNE_EVERY = 5_000;
const MAX_VALUE_CHARS = 64 * 1024;
const SCHEMA_VERSION = 1;

/** Records wait here and are written in one transaction: a call pays for a push, not a write. */
const FLUSH_AFTER_MS = 50;
const FLUSH_AT = 500;

export class InvocationLog {
  private readonly db: Database.Database;
  private readonly insertStmt: Database.Statement;
  private inserted = 0;
  private queue: { record: InvocationRecord | (() => InvocationRecord); redact: (text: string) => string }[] = [];
  private timer: NodeJS.Timeout | null = null;

  private constructor(db: Database.Database) {
    this.db = db;
    this.insertStmt = db.prepare(
      `INSERT OR REPLACE INTO invocations (id, tool_id, started_at, ok, record) VALUES (@id, @toolId, @startedAt, @ok, @record)`,
    );
  }

  static open(file: string | ':memory:'): InvocationLog {
    let db: Database.Database;
    try {
      db = openDb(file);
    } catch (e) {
      if (file === ':memory:') throw e;
      // The log is a convenience, not the truth: a broken file is replaced, never a reason not to start.
      console.warn(`invocation log ${file} is unreadable (${(e as Error).message}); starting a new one`);
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
      db = openDb(file);
    }
    return new InvocationLog(db);
  }

  /**
   * Queues a record (or a function that builds it, so a call pays for a push, not for
   * building it); `redact` is applied to its JSON when it is written (soon, in a batch).
   */
  add(record: InvocationRecord | (() => InvocationRecord), redact: (text: string) => string = (t) => t): void {
    this.queue.push({ record, redact });
    if (this.queue.length >= FLUSH_AT) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_AFTER_MS);
      this.timer.unref();
    }
  }

  /** Writes every queued record now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.db.transaction(() => {
      for (const item of batch) {
        const record = typeof item.record === 'function' ? item.record() : item.record;
        const redact = item.redact;
        const { value, truncated } = cut(record.value);
        const stored: InvocationRecord = truncated ? { ...record, value, valueTruncated: true } : record;
        this.insertStmt.run({ id: record.id, toolId: record.toolId, startedAt: record.startedAt, ok: record.ok ? 1 : 0, record: redact(JSON.stringify(stored)) });
      }
    })();
    const before = this.inserted;
    this.inserted += batch.length;
    if (Math.floor(before / PRUNE_EVERY) !== Math.floor(this.inserted / PRUNE_EVERY)) this.prune();
  }

  get(id: string): InvocationRecord | undefined {
    this.flush();
    const row = this.db.prepare('SELECT record FROM invocations WHERE id = ?').get(id) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as InvocationRecord) : undefined;
  }

  /** Newest first. */
  list(q: { toolId?: string; limit?: number } = {}): InvocationRecord[] {
    this.flush();
    const limit = Math.min(Math.max(q.limit ?? 50, 1), 500);
    const rows = (
      q.toolId
        ? this.db.prepare('SELECT record FROM invocations WHERE tool_id = ? ORDER BY started_at DESC, id DESC LIMIT ?').all(q.toolId, limit)
        : this.db.prepare('SELECT record FROM invocations ORDER BY started_at DESC, id DESC LIMIT ?').all(limit)
    ) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record) as InvocationRecord);
  }

  count(): number {
    this.flush();
    return (this.db.prepare('SELECT count(*) AS n FROM invocations').get() as { n: number }).n;
  }

  /** Keeps the newest `keep` records (by start time, through the index). */
  prune(keep = MAX_RECORDS): void {
    const edge = this.db.prepare('SELECT started_at FROM invocations ORDER BY started_at DESC LIMIT 1 OFFSET ?').get(keep) as { started_at: string } | undefined;
    if (edge) this.db.prepare('DELETE FROM invocations WHERE started_at <= ?').run(edge.started_at);
  }

  close(): void {
    this.flush();
    this.db.close();
  }
}

function openDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === 0) {
    db.exec(`CREATE TABLE IF NOT EXISTS invocations (
      id TEXT PRIMARY KEY, tool_id TEXT NOT NULL, started_at TEXT NOT NULL, ok INTEGER NOT NULL, record TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS invocations_by_tool ON invocations (tool_id, started_at);
      CREATE INDEX IF NOT EXISTS invocations_by_time ON invocations (started_at);`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  } else if (version > SCHEMA_VERSION) {
    throw new Error(`written by a newer Toolsmith (schema ${version})`);
  }
  return db;
}

/** Keeps a large value out of the log: its JSON is cut to a preview string. */
function cut(value: unknown): { value: unknown; truncated: boolean } {
  if (value === undefined) return { value, truncated: false };
  const text = JSON.stringify(value);
  if (text === undefined || text.length <= MAX_VALUE_CHARS) return { value, truncated: false };
  return { value: text.slice(0, MAX_VALUE_CHARS), truncated: true };
}
