/**
 * The memory database (`memory.sqlite`): blocks (metadata, a Loro snapshot, the Loro updates
 * since it, and the versions undo and redo walk), archival recall entries with their FTS5
 * index, and the "allow for this conversation" answers to consent questions. Opened through lib/sqlite-file (moved aside when corrupt, refused when newer).
 */
import type Database from 'better-sqlite3';
import type { Problem } from '../../../shared/model/app-info';
import { openSqliteFile, type Migration } from '../lib/sqlite-file';

export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'blocks, their Loro updates and versions, recall entries and their FTS5 index',
    up: (db) =>
      db.exec(`
        CREATE TABLE blocks (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          owner TEXT NOT NULL,
          label TEXT NOT NULL,
          schema TEXT NOT NULL,
          type TEXT NOT NULL,
          pinned INTEGER NOT NULL,
          permission TEXT NOT NULL,
          description TEXT NOT NULL,
          char_limit INTEGER NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          head INTEGER NOT NULL,
          UNIQUE (owner, label)
        );
        CREATE TABLE block_snapshots (
          block_n INTEGER PRIMARY KEY REFERENCES blocks (n) ON DELETE CASCADE,
          bytes BLOB NOT NULL
        );
        CREATE TABLE block_updates (
          block_n INTEGER NOT NULL REFERENCES blocks (n) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          bytes BLOB NOT NULL,
          PRIMARY KEY (block_n, seq)
        ) WITHOUT ROWID;
        -- A version is the document's frontiers after an edit; what made it (op, by) and when
        -- are the Loro change's message and timestamp.
        CREATE TABLE block_versions (
          block_n INTEGER NOT NULL REFERENCES blocks (n) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          frontiers TEXT NOT NULL,
          PRIMARY KEY (block_n, seq)
        ) WITHOUT ROWID;
        CREATE TABLE recall_entries (
          rowid INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          owner TEXT NOT NULL,
          content TEXT NOT NULL,
          metadata TEXT NOT NULL,
          tags TEXT NOT NULL,
          created_at TEXT NOT NULL
        );
        CREATE INDEX recall_owner_time ON recall_entries (owner, created_at);
        CREATE VIRTUAL TABLE recall_fts USING fts5 (content, content = 'recall_entries', content_rowid = 'rowid', tokenize = 'unicode61');
      `),
  },
  {
    name: '"allow for this conversation" answers, kept across restarts',
    up: (db) =>
      db.exec(`
        CREATE TABLE consent_grants (
          conversation_id TEXT NOT NULL,
          block_id TEXT NOT NULL,
          operation TEXT NOT NULL,
          granted_at TEXT NOT NULL,
          PRIMARY KEY (conversation_id, block_id, operation)
        ) WITHOUT ROWID;
      `),
  },
];

export interface MemoryDbOptions {
  file: string;
  now: () => Date;
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
}

export function openMemoryDb(opts: MemoryDbOptions): Database.Database {
  return openSqliteFile({
    file: opts.file,
    migrations: MIGRATIONS,
    now: opts.now,
    ...(opts.problems ? { problems: opts.problems } : {}),
    what: 'the memory database',
    keeps: 'memory blocks and recall entries',
    check: (d) => {
      d.prepare('SELECT id FROM blocks LIMIT 1').get();
      d.prepare('SELECT rowid FROM recall_fts LIMIT 1').get();
    },
  });
}

/** Prepared statements by their text: preparing costs more than running a small one. */
export function statementCache(db: Database.Database): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
}
