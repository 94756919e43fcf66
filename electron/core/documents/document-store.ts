/**
 * Documents (docs/design/documents.md): workspace files with metadata — who made and changed
 * them, type, size, tokens, a summary, a description and tags, and every version (content hash,
 * size, time, by whom). The file is the truth; this keeps what is known of it in SQLite, updated
 * by every write the file tools and routing make (`record`).
 */
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import type { Problem } from '../../../shared/model/app-info';
import type { DocumentInfo, DocumentQuery } from '../../../shared/model/document';
import { openSqliteFile, type Migration } from '../lib/sqlite-file';
import { SerialQueue } from '../lib/serial-queue';
import { resolveInWorkspace } from '../lib/workspace';
import { estimateCounter } from '../llm/tokens';
import { mimeTypeOf, summaryOf, utf8Text } from './text-facts';

const MIGRATIONS: readonly Migration[] = [
  {
    name: 'documents and their versions',
    up: (db) =>
      db.exec(`
        CREATE TABLE documents (
          path TEXT PRIMARY KEY,
          created_by TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_by TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          mime_type TEXT NOT NULL,
          size_bytes INTEGER NOT NULL,
          token_count INTEGER,
          auto_summary TEXT NOT NULL,
          description TEXT NOT NULL DEFAULT '',
          tags TEXT NOT NULL DEFAULT '[]'
        );
        CREATE TABLE document_versions (
          path TEXT NOT NULL REFERENCES documents (path) ON DELETE CASCADE ON UPDATE CASCADE,
          seq INTEGER NOT NULL,
          hash TEXT NOT NULL,
          size_bytes INTEGER NOT NULL,
          at TEXT NOT NULL,
          by TEXT NOT NULL,
          PRIMARY KEY (path, seq)
        );
      `),
  },
  {
    // Records are the workspace's: a path means a different file once Settings' workspace
    // changes. Records made before this are claimed by the workspace open at the next start.
    name: 'documents per workspace',
    up: (db) =>
      db.exec(`
        CREATE TABLE documents_v2 (
          workspace TEXT NOT NULL,
          path TEXT NOT NULL,
          created_by TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_by TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          mime_type TEXT NOT NULL,
          size_bytes INTEGER NOT NULL,
          token_count INTEGER,
          auto_summary TEXT NOT NULL,
          description TEXT NOT NULL DEFAULT '',
          tags TEXT NOT NULL DEFAULT '[]',
          PRIMARY KEY (workspace, path)
        );
        CREATE TABLE document_versions_v2 (
          workspace TEXT NOT NULL,
          path TEXT NOT NULL,
          seq INTEGER NOT NULL,
          hash TEXT NOT NULL,
          size_bytes INTEGER NOT NULL,
          at TEXT NOT NULL,
          by TEXT NOT NULL,
          PRIMARY KEY (workspace, path, seq),
          FOREIGN KEY (workspace, path) REFERENCES documents_v2 (workspace, path) ON DELETE CASCADE ON UPDATE CASCADE
        );
        INSERT INTO documents_v2 SELECT '', * FROM documents;
        INSERT INTO document_versions_v2 SELECT '', * FROM document_versions;
        DROP TABLE document_versions;
        DROP TABLE documents;
        ALTER TABLE documents_v2 RENAME TO documents;
        ALTER TABLE document_versions_v2 RENAME TO document_versions;
      `),
  },
  {
    // Where a summary comes from (the first lines, or a model) and which version it describes.
    name: 'document summaries: source, version, model, failure',
    up: (db) =>
      db.exec(`
        ALTER TABLE documents ADD COLUMN summary_source TEXT NOT NULL DEFAULT 'first-lines';
        ALTER TABLE documents ADD COLUMN summary_hash TEXT;
        ALTER TABLE documents ADD COLUMN summary_model TEXT;
        ALTER TABLE documents ADD COLUMN summary_error TEXT;
        UPDATE documents SET summary_hash = (
          SELECT v.hash FROM document_versions v WHERE v.workspace = documents.workspace AND v.path = documents.path ORDER BY v.seq DESC LIMIT 1
        );
      `),
  },
];

/** Files past this size get a hash and a size, not a summary or a token count (they are not read whole). */
export const DOCUMENT_READ_LIMIT = 8 * 1024 * 1024;
/** Versions kept per document; the oldest go first. */
export const MAX_VERSIONS = 200;

export interface DocumentStoreOptions {
  file: string;
  workspaceDir: () => string;
  now: () => Date;
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  onChange?: (paths: string[]) => void;
  /** A text file's new version was recorded (a model may summarize it: ./summarizer.ts). */
  onTextVersion?: (v: TextVersion) => void;
}

/** A text document's version, as the summarizer is told of it. */
export interface TextVersion {
  /** The workspace folder it was written in (absolute). */
  workspaceDir: string;
  /** Workspace-relative, '/' separators. */
  path: string;
  hash: string;
  sizeBytes: number;
  mimeType: string;
}

interface Row {
  workspace: string;
  path: string;
  created_by: string;
  created_at: string;
  updated_by: string;
  updated_at: string;
  mime_type: string;
  size_bytes: number;
  token_count: number | null;
  auto_summary: string;
  description: string;
  tags: string;
  summary_source: string;
  summary_hash: string | null;
  summary_model: string | null;
  summary_error: string | null;
}

export const documentNotFound = (p: string) => `no document '${p}': only files written in the workspace by tools (or described here) are documents`;

export class DocumentStore {
  private readonly queue = new SerialQueue();

  private constructor(
    private readonly db: Database.Database,
    private readonly opts: DocumentStoreOptions,
  ) {}

  static open(opts: DocumentStoreOptions): DocumentStore {
    const db = openSqliteFile({
      file: opts.file,
      migrations: MIGRATIONS,
      now: opts.now,
      ...(opts.problems ? { problems: opts.problems } : {}),
      what: 'the documents database',
      keeps: 'document records',
      check: (d) => d.prepare('SELECT workspace, path FROM documents LIMIT 1').get(),
    });
    // Records from before they were kept per workspace belong to the workspace open now.
    db.prepare(`UPDATE documents SET workspace = ? WHERE workspace = ''`).run(workspaceKey(opts.workspaceDir()));
    return new DocumentStore(db, opts);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Writes queued so far are recorded. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * A file in the workspace was written (`rel`, workspace-relative) by `by` (a task, a
   * conversation, "user"): records a version when its content changed. Never throws: a file
   * that cannot be read is reported and left as it was recorded.
   */
  record(rel: string, by: string): Promise<void> {
    return this.queue.run(async () => {
      try {
        await this.recordNow(rel, by);
      } catch (e) {
        this.opts.problems?.({ kind: 'io-error', path: rel, message: `the document record of '${rel}' could not be updated: ${(e as Error).message}` });
      }
    });
  }

  /** The workspace whose records are read and written now (Settings' workspace may change). */
  private get ws(): string {
    return workspaceKey(this.opts.workspaceDir());
  }

  private async recordNow(rel: string, by: string): Promise<void> {
    const workspaceDir = this.opts.workspaceDir();
    const ws = workspaceKey(workspaceDir);
    const p = await resolveInWorkspace(workspaceDir, rel);
    const facts = await readFacts(p.abs);
    if (!facts) return;
    const at = this.opts.now().toISOString();
    const old = this.db.prepare('SELECT * FROM documents WHERE workspace = ? AND path = ?').get(ws, p.rel) as Row | undefined;
    const last = this.db.prepare('SELECT hash FROM document_versions WHERE workspace = ? AND path = ? ORDER BY seq DESC LIMIT 1').get(ws, p.rel) as { hash: string } | undefined;
    if (old && last?.hash === facts.hash) return;
    this.db.transaction(() => {
      if (old) {
        this.db
          .prepare(
            `UPDATE documents SET updated_by = ?, updated_at = ?, mime_type = ?, size_bytes = ?, token_count = ?, auto_summary = ?,
               summary_source = 'first-lines', summary_hash = ?, summary_model = NULL, summary_error = NULL WHERE workspace = ? AND path = ?`,
          )
          .run(by, at, facts.mimeType, facts.size, facts.tokens, facts.summary, facts.hash, ws, p.rel);
      } else {
        this.db
          .prepare(
            `INSERT INTO documents (workspace, path, created_by, created_at, updated_by, updated_at, mime_type, size_bytes, token_count, auto_summary, summary_hash)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(ws, p.rel, by, at, by, at, facts.mimeType, facts.size, facts.tokens, facts.summary, facts.hash);
      }
      const seq = ((this.db.prepare('SELECT max(seq) AS m FROM document_versions WHERE workspace = ? AND path = ?').get(ws, p.rel) as { m: number | null }).m ?? 0) + 1;
      this.db.prepare('INSERT INTO document_versions (workspace, path, seq, hash, size_bytes, at, by) VALUES (?, ?, ?, ?, ?, ?, ?)').run(ws, p.rel, seq, facts.hash, facts.size, at, by);
      this.db.prepare('DELETE FROM document_versions WHERE workspace = ? AND path = ? AND seq <= ?').run(ws, p.rel, seq - MAX_VERSIONS);
    })();
    this.opts.onChange?.([p.rel]);
    // A new version's summary is its first lines until a model's describes it (a stale one is gone).
    if (facts.tokens !== null) this.opts.onTextVersion?.({ workspaceDir, path: p.rel, hash: facts.hash, sizeBytes: facts.size, mimeType: facts.mimeType });
  }

  /** The hash of a document's newest recorded version in a workspace (undefined: none). */
  latestHash(workspaceDir: string, rel: string): string | undefined {
    const row = this.db.prepare('SELECT hash FROM document_versions WHERE workspace = ? AND path = ? ORDER BY seq DESC LIMIT 1').get(workspaceKey(workspaceDir), normal(rel)) as { hash: string } | undefined;
    return row?.hash;
  }

  /**
   * A model's summary of the version whose content hash is `hash`: kept only while that version
   * is the newest (a later write's first lines are not replaced by a summary of older content).
   * Answers whether it was kept.
   */
  setModelSummary(workspaceDir: string, rel: string, hash: string, summary: string, model: string): boolean {
    return this.onNewest(workspaceDir, rel, hash, `auto_summary = ?, summary_source = 'model', summary_hash = ?, summary_model = ?, summary_error = NULL`, [summary, hash, model]);
  }

  /** Why the model's summary of version `hash` could not be had; the first lines stay. Kept only while that version is the newest. */
  setSummaryFailure(workspaceDir: string, rel: string, hash: string, why: string): boolean {
    return this.onNewest(workspaceDir, rel, hash, 'summary_error = ?', [why]);
  }

  private onNewest(workspaceDir: string, rel: string, hash: string, set: string, params: unknown[]): boolean {
    const ws = workspaceKey(workspaceDir);
    const p = normal(rel);
    const r = this.db
      .prepare(
        `UPDATE documents SET ${set} WHERE workspace = ? AND path = ?
           AND (SELECT hash FROM document_versions v WHERE v.workspace = documents.workspace AND v.path = documents.path ORDER BY v.seq DESC LIMIT 1) = ?`,
      )
      .run(...params, ws, p, hash);
    if (r.changes === 0) return false;
    this.opts.onChange?.([p]);
    return true;
  }

  /** Newest change first, filtered by tags (all of them), creator, type (prefix: `text/`), path prefix and words. */
  list(q: DocumentQuery = {}): DocumentInfo[] {
    const where: string[] = ['workspace = ?'];
    const params: unknown[] = [this.ws];
    if (q.createdBy) {
      where.push('created_by = ?');
      params.push(q.createdBy);
    }
    if (q.mimeType) {
      where.push(q.mimeType.endsWith('/') ? 'substr(mime_type, 1, ?) = ?' : 'mime_type = ?');
      if (q.mimeType.endsWith('/')) params.push(q.mimeType.length);
      params.push(q.mimeType);
    }
    if (q.pathPrefix) {
      where.push('substr(path, 1, ?) = ?');
      params.push(q.pathPrefix.length, q.pathPrefix);
    }
    for (const t of q.tags ?? []) {
      where.push('EXISTS (SELECT 1 FROM json_each(documents.tags) WHERE value = ?)');
      params.push(t);
    }
    const rows = this.db
      .prepare(`SELECT * FROM documents WHERE ${where.join(' AND ')} ORDER BY updated_at DESC, path`)
      .all(...params) as Row[];
    const words = (q.text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const matched = words.length ? rows.filter((r) => words.every((w) => haystack(r).includes(w))) : rows;
    return matched.slice(0, Math.min(Math.max(q.limit ?? 100, 1), 1000)).map((r) => this.toInfo(r, false));
  }

  get(rel: string): DocumentInfo {
    const row = this.db.prepare('SELECT * FROM documents WHERE workspace = ? AND path = ?').get(this.ws, normal(rel)) as Row | undefined;
    if (!row) throw new AppError('NOT_FOUND', documentNotFound(rel), { path: rel });
    return this.toInfo(row, true);
  }

  /** Sets what a person or agent says of it: a description and tags (each given field replaces the old). */
  describe(rel: string, patch: { description?: string; tags?: string[] }, by: string): DocumentInfo {
    const doc = this.get(rel);
    const tags = patch.tags ? [...new Set(patch.tags.map((t) => t.trim()).filter(Boolean))] : doc.tags;
    this.db
      .prepare('UPDATE documents SET description = ?, tags = ?, updated_by = ? WHERE workspace = ? AND path = ?')
      .run(patch.description ?? doc.description, JSON.stringify(tags), by, this.ws, doc.path);
    this.opts.onChange?.([doc.path]);
    return this.get(doc.path);
  }

  private toInfo(r: Row, withVersions: boolean): DocumentInfo {
    const versions = withVersions
      ? (this.db.prepare('SELECT seq, hash, size_bytes, at, by FROM document_versions WHERE workspace = ? AND path = ? ORDER BY seq').all(r.workspace, r.path) as { seq: number; hash: string; size_bytes: number; at: string; by: string }[]).map(
          (v) => ({ seq: v.seq, hash: v.hash, sizeBytes: v.size_bytes, at: v.at, by: v.by }),
        )
      : undefined;
    return {
      path: r.path,
      createdBy: r.created_by,
      createdAt: r.created_at,
      updatedBy: r.updated_by,
      updatedAt: r.updated_at,
      mimeType: r.mime_type,
      sizeBytes: r.size_bytes,
      ...(r.token_count !== null ? { tokenCount: r.token_count } : {}),
      autoSummary: r.auto_summary,
      summaryInfo: {
        source: r.summary_source === 'model' ? 'model' : 'first-lines',
        ...(r.summary_hash ? { hash: r.summary_hash } : {}),
        ...(r.summary_model ? { model: r.summary_model } : {}),
        ...(r.summary_error ? { failed: r.summary_error } : {}),
      },
      description: r.description,
      tags: parseTags(r.tags),
      ...(versions ? { versions } : {}),
    };
  }
}

/** How a workspace folder is named in the records: its absolute path. */
function workspaceKey(dir: string): string {
  return path.resolve(dir);
}

function normal(rel: string): string {
  return rel.split(path.sep).join('/').replace(/^\.\//, '');
}

function parseTags(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function haystack(r: Row): string {
  return `${r.path}\n${r.description}\n${r.auto_summary}\n${r.tags}`.toLowerCase();
}

interface Facts {
  hash: string;
  size: number;
  mimeType: string;
  tokens: number | null;
  summary: string;
}

/** Hash and size of any file; type, tokens and a summary of text up to DOCUMENT_READ_LIMIT. Undefined: not a regular file (gone, a folder). */
async function readFacts(abs: string): Promise<Facts | undefined> {
  const st = await fsp.stat(abs).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (!st?.isFile()) return undefined;
  const hash = createHash('sha256');
  let head: Buffer | undefined;
  const fh = await fsp.open(abs, 'r');
  try {
    const chunks: Buffer[] = [];
    let kept = 0;
    for await (const chunk of fh.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      if (kept <= DOCUMENT_READ_LIMIT) {
        chunks.push(chunk);
        kept += chunk.length;
      }
    }
    if (kept <= DOCUMENT_READ_LIMIT) head = Buffer.concat(chunks);
  } finally {
    await fh.close();
  }
  const text = head ? utf8Text(head) : undefined;
  return {
    hash: hash.digest('hex'),
    size: st.size,
    mimeType: mimeTypeOf(abs, text !== undefined),
    tokens: text !== undefined ? estimateCounter.count(text).tokens : null,
    summary: text !== undefined ? summaryOf(text) : '',
  };
}
