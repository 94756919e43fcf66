/**
 * The index database: schema, migrations (PRAGMA user_version), opening.
 *
 * All of it is derived from the flat JSON files, so when the file is not a database,
 * is corrupt, or was written by a newer schema, it is thrown away and recreated empty
 * (the caller sees `needsRebuild`).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../../../shared/errors';

export type DB = Database.Database;

/**
 * Bump when the tokenising in text.ts / ranking.ts changes: the stored token tables are
 * then rebuilt from the tools table on open (no file reads needed).
 */
export const TOKENIZER_VERSION = 1;

/** Migration i takes the schema from user_version i to i + 1. */
export const MIGRATIONS: ReadonlyArray<(db: DB) => void> = [
  (db) => {
    db.exec(`
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;

      -- One row per tool, kept narrow: every search hit is joined here to get its id,
      -- so these pages stay in the cache even with 100k tools.
      CREATE TABLE tools (
        rid     INTEGER PRIMARY KEY,
        id      TEXT NOT NULL UNIQUE,
        enabled INTEGER NOT NULL,            -- effective: tool and bundle on, not soft-deleted
        neg_mod INTEGER NOT NULL             -- minus epoch ms of modified_at: ascending = newest first
      );
      CREATE INDEX tools_recent ON tools (enabled, neg_mod, id);

      -- The rest of the record and its file's fingerprint.
      CREATE TABLE tool_data (
        rid          INTEGER PRIMARY KEY,    -- = tools.rid
        bundle_id    TEXT NOT NULL,
        slug         TEXT NOT NULL,
        version      TEXT NOT NULL,
        display_name TEXT NOT NULL,
        description  TEXT NOT NULL,
        tags         TEXT NOT NULL,          -- JSON array of strings
        modified_at  TEXT NOT NULL,
        src_path     TEXT,
        src_mtime    REAL,
        src_size     INTEGER
      );

      -- The cached tool JSON, so a warm start reads no files.
      CREATE TABLE tool_docs (
        rid INTEGER PRIMARY KEY,             -- = tools.rid
        doc TEXT NOT NULL
      );

      -- Tier 1. tok = every prefix of 1..3 code points of a folded key (slug, display
      -- name, tag) and the whole key. A short query is one exact tok; a longer one is a
      -- range over the whole keys. Rows are kept in recency order inside (tok, enabled).
      -- rid is tools.rid (4 bytes instead of a 36-byte id); ties in neg_mod are put in
      -- id order when read (see sources.ts).
      CREATE TABLE prefixes (
        tok     TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        neg_mod INTEGER NOT NULL,
        rid     INTEGER NOT NULL,
        PRIMARY KEY (tok, enabled, neg_mod, rid)
      ) WITHOUT ROWID;

      -- Tiers 2 and 3. in_prefix = some key of the tool starts with the word, so for a
      -- one-word query the tool is already in tier 1 and the word tier skips it by index.
      CREATE TABLE words (
        word      TEXT NOT NULL,
        enabled   INTEGER NOT NULL,
        in_prefix INTEGER NOT NULL,
        neg_mod   INTEGER NOT NULL,
        rid       INTEGER NOT NULL,
        PRIMARY KEY (word, enabled, in_prefix, neg_mod, rid)
      ) WITHOUT ROWID;

      -- Distinct words with the number of tools that have them.
      CREATE TABLE vocab (
        term TEXT PRIMARY KEY,
        refs INTEGER NOT NULL
      ) WITHOUT ROWID;

      -- Tier 3 candidates: term reachable by d deletions from del (symmetric delete).
      CREATE TABLE vocab_del (
        del  TEXT NOT NULL,
        term TEXT NOT NULL,
        d    INTEGER NOT NULL,
        PRIMARY KEY (del, term)
      ) WITHOUT ROWID;
    `);
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export interface OpenedDb {
  db: DB;
  /** The file was recreated (corrupt, foreign, newer) or a batched rebuild did not finish. */
  needsRebuild: boolean;
  /** The token tables predate TOKENIZER_VERSION and must be rebuilt from the tools table. */
  needsReindex: boolean;
}

function isCorruption(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}

function removeDbFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
}

function configure(db: DB): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // derived data: losing the last commits on power loss is fine
  db.pragma('temp_store = MEMORY');
  db.pragma('cache_size = -32768'); // 32 MiB
}

/** Drops every table, index and trigger (a database from a newer schema, or a foreign one). */
function wipe(db: DB): void {
  const objs = db
    .prepare(`SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' AND type IN ('table','view')`)
    .all() as { type: string; name: string }[];
  db.transaction(() => {
    for (const o of objs) db.exec(`DROP ${o.type === 'view' ? 'VIEW' : 'TABLE'} IF EXISTS "${o.name.replace(/"/g, '""')}"`);
    db.pragma('user_version = 0');
  })();
}

function migrate(db: DB): { recreated: boolean } {
  let version = db.pragma('user_version', { simple: true }) as number;
  let recreated = false;
  if (version > SCHEMA_VERSION) {
    wipe(db);
    version = 0;
    recreated = true;
  } else if (version === 0) {
    const n = (db.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`).get() as { n: number }).n;
    if (n > 0) {
      wipe(db); // someone else's tables in our file
      recreated = true;
    }
  }
  for (let v = version; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      MIGRATIONS[v](db);
      if (v === 0) {
        db.prepare(`INSERT INTO meta (key, value) VALUES ('tokenizer', ?), ('state', 'ready')`).run(String(TOKENIZER_VERSION));
      }
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return { recreated };
}

function openOnce(file: string): OpenedDb {
  const db = new Database(file, { timeout: 5000 });
  try {
    configure(db);
    const { recreated } = migrate(db);
    const meta = new Map(
      (db.prepare(`SELECT key, value FROM meta`).all() as { key: string; value: string }[]).map((r) => [r.key, r.value]),
    );
    return {
      db,
      needsRebuild: recreated || meta.get('state') !== 'ready',
      needsReindex: meta.get('tokenizer') !== String(TOKENIZER_VERSION),
    };
  } catch (e) {
    db.close();
    throw e;
  }
}

export function openDatabase(file: string): OpenedDb {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  try {
    return openOnce(file);
  } catch (e) {
    if (file !== ':memory:' && isCorruption(e)) {
      removeDbFiles(file);
      const opened = openOnce(file);
      return { ...opened, needsRebuild: true };
    }
    throw new AppError('UNAVAILABLE', `the search index ${file} cannot be opened: ${(e as Error).message}`);
  }
}

export function setMeta(db: DB, key: string, value: string): void {
  db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(key, value);
}

export function getMeta(db: DB, key: string): string | undefined {
  return (db.prepare(`SELECT value FROM meta WHERE key = ?`).pluck().get(key) as string | undefined) ?? undefined;
}
