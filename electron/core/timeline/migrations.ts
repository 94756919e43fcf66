/**
 * The schema of the conversations database, as migrations applied in order. `user_version`
 * holds how many have run; a later feature (a timeline, ...) appends one, never edits one.
 */
import type Database from 'better-sqlite3';
import { migrate as migrateWith, type Migration } from '../lib/sqlite-file';

export { NewerSchemaError, type Migration } from '../lib/sqlite-file';

export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'conversations, messages and context sections',
    up: (db) =>
      db.exec(`
        CREATE TABLE conversations (
          id TEXT PRIMARY KEY,
          title TEXT NOT NULL,
          -- 'default' until the first message names it, 'auto' then, 'user' once the user chose it
          title_source TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX conversations_by_updated ON conversations (updated_at);
        CREATE TABLE messages (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
          role TEXT NOT NULL,
          created_at TEXT NOT NULL,
          text TEXT NOT NULL,
          tool TEXT,
          outcomes TEXT
        );
        CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);
        CREATE TABLE context_sections (
          conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
          position INTEGER NOT NULL,
          id TEXT NOT NULL,
          title TEXT NOT NULL,
          text TEXT NOT NULL,
          enabled INTEGER NOT NULL,
          PRIMARY KEY (conversation_id, id)
        );
      `),
  },
  {
    name: 'models in the chat: the model and tools of a conversation, the timeline fields of messages',
    up: (db) =>
      db.exec(`
        ALTER TABLE conversations ADD COLUMN model TEXT;
        ALTER TABLE conversations ADD COLUMN tools TEXT;
        ALTER TABLE messages ADD COLUMN turn_id TEXT;
        ALTER TABLE messages ADD COLUMN model TEXT;
        ALTER TABLE messages ADD COLUMN usage TEXT;
        ALTER TABLE messages ADD COLUMN error TEXT;
        -- what a model is given for a user row (its prompt with inlined inputs and manifests)
        ALTER TABLE messages ADD COLUMN prompt TEXT;
        -- the tool calls of an assistant row, as the model made them (name, argsText, callId)
        ALTER TABLE messages ADD COLUMN tool_calls TEXT;
      `),
  },
  {
    name: 'extraction thresholds of a conversation (oversized outputs)',
    up: (db) => db.exec(`ALTER TABLE conversations ADD COLUMN extraction TEXT;`),
  },
  {
    name: 'the task graph: delegations and questions below a conversation',
    up: (db) =>
      db.exec(`
        CREATE TABLE tasks (
          id TEXT PRIMARY KEY,
          root_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
          parent_id TEXT NOT NULL,
          number INTEGER NOT NULL,
          kind TEXT NOT NULL,
          agent TEXT NOT NULL,
          status TEXT NOT NULL,
          request TEXT NOT NULL,
          documents TEXT NOT NULL,
          result TEXT,
          result_documents TEXT,
          answered_by TEXT,
          depth INTEGER NOT NULL,
          invocation_id TEXT NOT NULL,
          created_at TEXT NOT NULL,
          ended_at TEXT,
          error TEXT,
          UNIQUE (root_id, number)
        );
        CREATE INDEX tasks_by_root ON tasks (root_id, number);
      `),
  },
  {
    name: "a conversation's own system prompt and model parameters",
    up: (db) => db.exec(`ALTER TABLE conversations ADD COLUMN options TEXT;`),
  },
  {
    name: "a user message's attached files (images and text files, JSON)",
    up: (db) => db.exec(`ALTER TABLE messages ADD COLUMN attachments TEXT;`),
  },
  {
    name: 'branches of an edited message: the old rows kept beside the new ones',
    up: (db) =>
      db.exec(`
        -- the branch a row is on: a fork's id and which of its branches (both null: the trunk)
        ALTER TABLE messages ADD COLUMN fork_id TEXT;
        ALTER TABLE messages ADD COLUMN branch INTEGER;
        -- 1 while its branch is not the one shown (and given to the model)
        ALTER TABLE messages ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX messages_by_branch ON messages (conversation_id, fork_id, branch, seq);
        CREATE TABLE message_forks (
          id TEXT PRIMARY KEY,
          conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
          -- the branch it forks from (both null: the trunk)
          parent_fork TEXT,
          parent_branch INTEGER,
          branches INTEGER NOT NULL,
          current INTEGER NOT NULL
        );
        CREATE INDEX message_forks_by_conversation ON message_forks (conversation_id);
      `),
  },
];

/** Brings the conversations database to the newest schema (or to the given list's last). */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): void {
  migrateWith(db, migrations);
}
