/**
 * A SQLite file a store owns: opened in WAL mode and brought to the newest schema by
 * migrations applied in order (`user_version` holds how many have run). A file that cannot be
 * opened is moved aside (never deleted), reported, and replaced by a fresh one; one written
 * by a newer Toolsmith is left untouched and the store lives in memory.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import type { Problem } from '../../../shared/model/app-info';

export interface Migration {
  /** What it adds, for the error message when it fails. */
  name: string;
  up: (db: Database.Database) => void;
}

/** The database was written by a newer Toolsmith: it is whole, only not ours to read or change. */
export class NewerSchemaError extends Error {
  constructor(
    readonly version: number,
    readonly known: number,
  ) {
    super(`written by a newer Toolsmith (schema ${version}, this version knows ${known})`);
    this.name = 'NewerSchemaError';
  }
}

/**
 * Brings the database to the newest schema, one migration per transaction. A database
 * written by a newer Toolsmith (a version past the list) is refused: it is not ours to change.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[]): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > migrations.length) throw new NewerSchemaError(version, migrations.length);
  for (let v = version; v < migrations.length; v++) {
    const m = migrations[v]!;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

export interface SqliteFileOptions {
  file: string;
  migrations: readonly Migration[];
  now: () => Date;
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  /** Names the database in messages: "the conversations database". */
  what: string;
  /** What is kept while it lives in memory, for the messages: "conversations". */
  keeps: string;
  /** Run after the pragmas, before the migrations (functions the schema uses). */
  setup?: (db: Database.Database) => void;
  /** Reads a row: a file that is not a database fails here, not later. */
  check: (db: Database.Database) => void;
}

export const newerDatabaseMessage = (what: string, keeps: string, version: number, known: number) =>
  `${what} was written by a newer Toolsmith (schema version ${version}; this version knows up to ${known}). It was left untouched: update Toolsmith to see those ${keeps}. Until then, ${keeps} are kept in memory and lost when the app closes.`;

export function openSqliteFile(opts: SqliteFileOptions): Database.Database {
  try {
    return openDb(opts.file, opts);
  } catch (first) {
    if (first instanceof NewerSchemaError) {
      opts.problems?.({ kind: 'invalid-config', path: opts.file, message: newerDatabaseMessage(opts.what, opts.keeps, first.version, first.known) });
      return openDb(':memory:', opts);
    }
    const reason = (first as Error).message;
    let movedTo: string | undefined;
    try {
      movedTo = moveAsideSync(opts.file, opts.now());
      const db = openDb(opts.file, opts);
      opts.problems?.({
        kind: 'corrupt-file',
        path: opts.file,
        message: `${opts.what} could not be opened (${reason}); it was moved aside and a new one started`,
        ...(movedTo ? { movedTo } : {}),
      });
      return db;
    } catch (second) {
      opts.problems?.({
        kind: 'io-error',
        path: opts.file,
        message: `${opts.what} could not be opened (${reason}; then: ${(second as Error).message}); ${opts.keeps} are kept in memory until the app restarts`,
        ...(movedTo ? { movedTo } : {}),
      });
      return openDb(':memory:', opts);
    }
  }
}

function openDb(file: string, opts: SqliteFileOptions): Database.Database {
  const db = new Database(file);
  try {
    // A newer Toolsmith's database is refused before anything (the journal mode) changes it.
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > opts.migrations.length) throw new NewerSchemaError(version, opts.migrations.length);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    opts.setup?.(db);
    migrate(db, opts.migrations);
    opts.check(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Like lib/json-file's moveAside, synchronous, and taking the WAL and shared-memory files along. */
function moveAsideSync(file: string, now: Date): string | undefined {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  let moved: string | undefined;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      fs.renameSync(file + suffix, target + suffix);
      if (suffix === '') moved = target;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  return moved;
}
