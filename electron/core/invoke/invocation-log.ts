/**
 * Every invocation becomes a record (tool, args, result or error, timings, attempts), kept
 * in SQLite beside the data files. Records are redacted before they get here and values are
 * cut to a size a viewer can show; the log keeps the newest MAX_RECORDS.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import { MAX_LOGGED_TOOL_IDS } from '../../../shared/contract/invoke';
import type { InvocationRecord } from '../../../shared/model/invocation';
import { isStoredOutputRef } from './stored-ref';

const MAX_RECORDS = 20_000;
const PRUNE_EVERY = 5_000;
const PRUNE_SLICE = 500;
const MAX_VALUE_CHARS = 64 * 1024;
/** 1: the record's JSON; 2: its duration, error code and result size as columns, for usage figures in SQL. */
const SCHEMA_VERSION = 2;

/**
 * Records wait here and are written in one transaction: a call pays for a push, not a write.
 * They are written FLUSH_AFTER_MS after the first one, or on the next turn of the event loop
 * once FLUSH_AT wait, or at once (on the path of the call that adds it) at FLUSH_CAP.
 */
const FLUSH_AFTER_MS = 50;
const FLUSH_AT = 250;
const FLUSH_CAP = 1_000;

type Redact = (text: string) => string;
const unchanged: Redact = (t) => t;

/** A record, or what builds it when it is written. */
export type Pending = InvocationRecord | (() => InvocationRecord) | { toRecord(): InvocationRecord };

export class InvocationLog {
  private readonly db: Database.Database;
  private readonly insertStmt: Database.Statement;
  private inserted = 0;
  /** Queued records (or what builds them) and, at the same index, the redaction for each. */
  private queue: Pending[] = [];
  private redactions: Redact[] = [];
  private timer: NodeJS.Timeout | null = null;
  private soon: NodeJS.Immediate | null = null;
  private pruneScheduled = false;
  /** The edge of the prune pass under way, if one is. */
  private pruneEdge: string | undefined = undefined;
  private readonly writtenListeners = new Set<(toolIds: string[] | undefined) => void>();

  private constructor(db: Database.Database) {
    this.db = db;
    this.insertStmt = db.prepare(
      `INSERT OR REPLACE INTO invocations (id, tool_id, started_at, ok, record, duration_ms, error_code, result_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  static open(file: string | ':memory:'): InvocationLog {
    let db: Database.Database;
    try {
      db = openDb(file);
    } catch (e) {
      if (file === ':memory:') throw e;
      // The log is a convenience, not the truth: a file it cannot use (broken, or a newer
      // Toolsmith's) is moved aside, never deleted and never a reason not to start.
      const aside = `${file}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      console.warn(`invocation log ${file} is unreadable (${(e as Error).message}); moved to ${aside}, starting a new one`);
      for (const suffix of ['', '-wal', '-shm']) {
        try {
          fs.renameSync(file + suffix, aside + suffix);
        } catch {
          fs.rmSync(file + suffix, { force: true });
        }
      }
      db = openDb(file);
    }
    return new InvocationLog(db);
  }

  /**
   * Queues a record, or what builds it (a function or an object with `toRecord()`), so a
   * call pays for a push, not for building the record or its JSON; `redact` is applied to
   * the JSON when it is written (soon, in a batch).
   */
  add(record: Pending, redact: Redact = unchanged): void {
    this.queue.push(record);
    this.redactions.push(redact);
    const n = this.queue.length;
    // Calls that never let the event loop turn still cannot queue without bound.
    if (n >= FLUSH_CAP) this.flush();
    else if (n >= FLUSH_AT) {
      this.soon ??= setImmediate(() => this.flush());
      this.soon.unref();
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_AFTER_MS);
      this.timer.unref();
    }
  }

  /** Writes every queued record now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.soon) clearImmediate(this.soon);
    this.timer = null;
    this.soon = null;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    const redactions = this.redactions;
    this.queue = [];
    this.redactions = [];
    const toolIds = new Set<string>();
    this.db.transaction(() => {
      for (let i = 0; i < batch.length; i++) {
        let record: InvocationRecord;
        let text: string;
        let resultBytes: number | null;
        try {
          record = recordOf(batch[i]!);
          const encoded = encode(record);
          resultBytes = encoded.resultBytes;
          text = redactions[i]!(encoded.text);
        } catch (e) {
          // One record that cannot be built or written as JSON does not lose the batch.
          console.warn('could not log an invocation:', (e as Error).message);
          continue;
        }
        const duration = Number.isFinite(record.durationMs) ? record.durationMs : null;
        this.insertStmt.run(record.id, record.toolId, record.startedAt, record.ok ? 1 : 0, text, duration, record.ok ? null : (record.error?.code ?? 'INTERNAL'), resultBytes);
        toolIds.add(record.toolId);
      }
    })();
    const before = this.inserted;
    this.inserted += batch.length;
    if (Math.floor(before / PRUNE_EVERY) !== Math.floor(this.inserted / PRUNE_EVERY)) this.schedulePrune();
    if (toolIds.size > 0) this.tellWritten(toolIds.size <= MAX_LOGGED_TOOL_IDS ? [...toolIds] : undefined);
  }

  /**
   * Calls `listener` after each batch is written, once, with the tools whose records it held
   * (each id once; undefined when there are more than MAX_LOGGED_TOOL_IDS), so a viewer of
   * the log reads it again when there is something new rather than guess when the batch
   * lands. Returns what removes the listener.
   */
  onWritten(listener: (toolIds: string[] | undefined) => void): () => void {
    this.writtenListeners.add(listener);
    return () => this.writtenListeners.delete(listener);
  }

  private tellWritten(toolIds: string[] | undefined): void {
    for (const listener of this.writtenListeners) {
      try {
        listener(toolIds);
      } catch (e) {
        // The batch is written: a listener that fails does not undo it, nor stop the others.
        console.warn('an invocation log listener failed:', (e as Error).message);
      }
    }
  }

  /**
   * Pruning deletes thousands of rows: it runs off any call's path, on later turns of the
   * event loop, PRUNE_SLICE rows a turn, so no turn is held for long. The edge (the start
   * time of the newest record beyond MAX_RECORDS) is found once per pass: records added
   * meanwhile are newer, so it stays right.
   */
  private schedulePrune(): void {
    if (this.pruneScheduled) return;
    this.pruneScheduled = true;
    setImmediate(() => {
      this.pruneScheduled = false;
      if (!this.db.open) return;
      const edge = this.pruneEdge ?? this.edge(MAX_RECORDS);
      this.pruneEdge = undefined;
      if (edge === undefined) return;
      if (this.deleteUpTo(edge, PRUNE_SLICE) === PRUNE_SLICE) {
        this.pruneEdge = edge;
        this.schedulePrune();
      }
    }).unref();
  }

  /** The start time of the newest record beyond the newest `keep`, if there are that many. */
  private edge(keep: number): string | undefined {
    const row = this.db.prepare('SELECT started_at FROM invocations ORDER BY started_at DESC LIMIT 1 OFFSET ?').get(keep) as { started_at: string } | undefined;
    return row?.started_at;
  }

  /** Deletes up to `limit` of the oldest records started at or before `edge`; returns how many. */
  private deleteUpTo(edge: string, limit: number): number {
    return this.db.prepare('DELETE FROM invocations WHERE rowid IN (SELECT rowid FROM invocations WHERE started_at <= ? ORDER BY started_at LIMIT ?)').run(edge, limit).changes;
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
    this.flush();
    const edge = this.edge(keep);
    if (edge) this.db.prepare('DELETE FROM invocations WHERE started_at <= ?').run(edge);
  }

  /** The database, for the usage figures (usage-stats.ts), with every queued record written. */
  flushedDb(): Database.Database {
    this.flush();
    return this.db;
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
  if (version > SCHEMA_VERSION) throw new Error(`written by a newer Toolsmith (schema ${version})`);
  if (version === SCHEMA_VERSION) return db;
  db.transaction(() => {
    if (version === 0) {
      db.exec(`CREATE TABLE IF NOT EXISTS invocations (
        id TEXT PRIMARY KEY, tool_id TEXT NOT NULL, started_at TEXT NOT NULL, ok INTEGER NOT NULL, record TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS invocations_by_time ON invocations (started_at);`);
    }
    if (version <= 1) {
      // The figures a usage summary reads, as columns; records of schema 1 give theirs from
      // their JSON (a value the log cut counts at the size it was kept; a record that is not
      // JSON keeps none rather than stopping the migration).
      db.exec(`ALTER TABLE invocations ADD COLUMN duration_ms REAL;
        ALTER TABLE invocations ADD COLUMN error_code TEXT;
        ALTER TABLE invocations ADD COLUMN result_bytes INTEGER;
        UPDATE invocations SET
          duration_ms = json_extract(record, '$.durationMs'),
          error_code = CASE WHEN ok THEN NULL ELSE coalesce(json_extract(record, '$.error.code'), 'INTERNAL') END,
          result_bytes = CASE WHEN NOT ok THEN NULL
            WHEN json_type(record, '$.value.$storedOutput.bytes') = 'integer' THEN json_extract(record, '$.value.$storedOutput.bytes')
            ELSE coalesce(length(CAST(record -> '$.value' AS BLOB)), 0) END
        WHERE json_valid(record);
        DROP INDEX IF EXISTS invocations_by_tool;
        CREATE INDEX invocations_usage ON invocations (tool_id, started_at, ok, duration_ms, result_bytes, error_code);`);
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
  return db;
}

function recordOf(p: Pending): InvocationRecord {
  return typeof p === 'function' ? p() : 'toRecord' in p ? p.toRecord() : p;
}

/**
 * The record's JSON, its value cut to a preview string when large, and the size of the result
 * (its JSON in UTF-8 bytes; for a result written to the tool-output store, the bytes stored;
 * null for a failed call). The value is written as JSON once: the record's text is spliced
 * round it.
 */
export function encode(record: InvocationRecord): { text: string; resultBytes: number | null } {
  if (!record.ok) return { text: JSON.stringify(record), resultBytes: null };
  if (record.value === undefined) return { text: JSON.stringify(record), resultBytes: 0 };
  const value = JSON.stringify(record.value) as string | undefined;
  if (value === undefined) return { text: JSON.stringify(record), resultBytes: 0 };
  const stored = isStoredOutputRef(record.value) ? record.value.$storedOutput.bytes : undefined;
  const resultBytes = stored ?? Buffer.byteLength(value);
  if (value.length > MAX_VALUE_CHARS) return { text: JSON.stringify({ ...record, value: value.slice(0, MAX_VALUE_CHARS), valueTruncated: true }), resultBytes };
  const head = JSON.stringify({ ...record, value: undefined });
  return { text: `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"value":${value}}`, resultBytes };
}
