/**
 * Blocks in SQLite: metadata in `blocks`, the content as a Loro document (a snapshot plus
 * the updates made since it, folded into a new snapshot every SNAPSHOT_EVERY updates), and
 * one version per edit (the document's frontiers after it) for history, undo and redo.
 * Undo reverts the document to the previous version's frontiers (Loro's revertTo: new
 * operations, nothing is rewritten); redo to the next one; a new edit after an undo drops
 * the versions that could have been redone.
 *
 * No permission is checked here: ./memory-service.ts does that before calling.
 */
import type Database from 'better-sqlite3';
import { statementCache } from './memory-db';
import { LoroDoc, type Frontiers } from 'loro-crdt';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import { BlockSchemaSchema, NewBlockSchema, type BlockInfo, type BlockSchema, type BlockVersion, type BlockView, type NewBlock } from '../../../shared/model/memory';
import { initialValue, render, valueOf, writeValue, type BlockValue } from './block-content';

/** Updates kept beside the snapshot before they are folded into a new one. */
export const SNAPSHOT_EVERY = 256;
/** Loaded documents kept in memory. */
const CACHE_SIZE = 128;

interface Row {
  id: string;
  owner: string;
  label: string;
  schema: string;
  type: string;
  pinned: number;
  permission: string;
  description: string;
  char_limit: number;
  created_at: string;
  updated_at: string;
  head: number;
}

interface Loaded {
  doc: LoroDoc;
  /** Updates stored beside the snapshot. */
  updates: number;
}

export const noBlock = (label: string, owner: string) =>
  `no block '${label}' in ${ownerText(owner)}'s memory: blocks are made with memory.blocks.create (Inspect → Memory) or by a source`;

export const overLimit = (label: string, size: number, limit: number, was: number) =>
  `block '${label}' would hold ${size} characters, over its limit of ${limit} (it holds ${was} now): shorten the edit, or replace old content first`;

export function ownerText(owner: string): string {
  return owner.startsWith('agent:') ? `the ${owner.slice(6)} agent` : `conversation ${owner.slice(13)}`;
}

export class BlockStore {
  private readonly cache = new Map<string, Loaded>();

  private readonly sql: (sql: string) => Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => Date,
  ) {
    this.sql = statementCache(db);
  }

  create(input: NewBlock, by: string): BlockView {
    const b = NewBlockSchema.parse(input);
    if (this.row(b.owner, b.label)) throw new AppError('CONFLICT', `${ownerText(b.owner)} already has a block '${b.label}'`, { field: 'label' });
    const value = initialValue(b.schema, b.content);
    const size = render(value).length;
    if (size > b.charLimit) throw new AppError('VALIDATION_FAILED', overLimit(b.label, size, b.charLimit, 0), { field: 'content' });
    const doc = newDoc();
    writeValue(doc, b.schema, value);
    doc.commit();
    const id = uuidv7();
    const at = this.now().toISOString();
    this.db.transaction(() => {
      this.sql('INSERT INTO blocks (id, owner, label, schema, type, pinned, permission, description, char_limit, created_at, updated_at, head) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)')
        .run(id, b.owner, b.label, JSON.stringify(b.schema), b.type, b.pinned ? 1 : 0, b.permission, b.description, b.charLimit, at, at);
      this.sql('INSERT INTO block_snapshots (block_id, bytes) VALUES (?, ?)').run(id, doc.export({ mode: 'snapshot' }));
      this.addVersion(id, 1, 'create', by, at, doc.frontiers());
    })();
    this.remember(id, { doc, updates: 0 });
    return this.view(b.owner, b.label);
  }

  list(owner?: string): BlockInfo[] {
    const rows = (owner ? this.sql('SELECT * FROM blocks WHERE owner = ? ORDER BY label').all(owner) : this.sql('SELECT * FROM blocks ORDER BY owner, label').all()) as Row[];
    return rows.map((r) => this.info(r));
  }

  has(owner: string, label: string): boolean {
    return !!this.row(owner, label);
  }

  view(owner: string, label: string): BlockView {
    const r = this.must(owner, label);
    const value = valueOf(this.doc(r).doc, this.schemaOf(r));
    const text = render(value);
    return { ...this.info(r, text.length), content: value, text };
  }

  infoOf(owner: string, label: string): BlockInfo {
    return this.info(this.must(owner, label));
  }

  /** Sets pinned or the block type; a metadata change, not a version of the content. */
  setMeta(owner: string, label: string, meta: { pinned?: boolean; type?: BlockInfo['type']; permission?: BlockInfo['permission'] }): BlockInfo {
    const r = this.must(owner, label);
    const at = this.now().toISOString();
    this.sql('UPDATE blocks SET pinned = ?, type = ?, permission = ?, updated_at = ? WHERE id = ?')
      .run(meta.pinned === undefined ? r.pinned : meta.pinned ? 1 : 0, meta.type ?? r.type, meta.permission ?? r.permission, at, r.id);
    return this.infoOf(owner, label);
  }

  /**
   * One edit: `next` is the content after it (its size is checked against the limit first,
   * nothing changes when it is over); `apply` makes it in the document (default: a diff from
   * the current content).
   */
  edit(owner: string, label: string, op: string, by: string, next: BlockValue, apply?: (doc: LoroDoc) => void): BlockView {
    const r = this.must(owner, label);
    const schema = this.schemaOf(r);
    const loaded = this.doc(r);
    const text = render(next);
    const size = text.length;
    if (size > r.char_limit) throw new AppError('PAYLOAD_TOO_LARGE', overLimit(label, size, r.char_limit, render(valueOf(loaded.doc, schema)).length), { size, limit: r.char_limit });
    const before = loaded.doc.oplogVersion();
    if (apply) apply(loaded.doc);
    else writeValue(loaded.doc, schema, next);
    loaded.doc.commit();
    const at = this.now().toISOString();
    this.db.transaction(() => {
      this.store(r.id, loaded, before);
      // A new edit after undo: the versions that could have been redone are gone.
      this.sql('DELETE FROM block_versions WHERE block_id = ? AND seq > ?').run(r.id, r.head);
      this.addVersion(r.id, r.head + 1, op, by, at, loaded.doc.frontiers());
      this.sql('UPDATE blocks SET head = ?, updated_at = ? WHERE id = ?').run(r.head + 1, at, r.id);
    })();
    // The content is `next`: no need to read the document back.
    return { ...this.info({ ...r, head: r.head + 1, updated_at: at }, size), content: next, text };
  }

  /** The content at the previous version (a new change to the document). */
  undo(owner: string, label: string): BlockView {
    const r = this.must(owner, label);
    if (r.head <= 1) throw new AppError('CONFLICT', `block '${label}' has nothing to undo`);
    return this.moveTo(r, r.head - 1);
  }

  redo(owner: string, label: string): BlockView {
    const r = this.must(owner, label);
    const next = this.sql('SELECT seq FROM block_versions WHERE block_id = ? AND seq = ?').get(r.id, r.head + 1);
    if (!next) throw new AppError('CONFLICT', `block '${label}' has nothing to redo`);
    return this.moveTo(r, r.head + 1);
  }

  /** Every version, oldest first, with its content as a model reads it. */
  history(owner: string, label: string): BlockVersion[] {
    const r = this.must(owner, label);
    const schema = this.schemaOf(r);
    const { doc } = this.doc(r);
    const rows = this.sql('SELECT seq, op, by, at, frontiers FROM block_versions WHERE block_id = ? ORDER BY seq').all(r.id) as { seq: number; op: string; by: string; at: string; frontiers: string }[];
    const past = doc.fork();
    try {
      return rows.map((v) => {
        past.checkout(JSON.parse(v.frontiers) as Frontiers);
        return { seq: v.seq, op: v.op, by: v.by, at: v.at, text: render(valueOf(past, schema)), current: v.seq === r.head, undone: v.seq > r.head };
      });
    } finally {
      past.free();
    }
  }

  /** Bytes stored for a block's content (snapshot and updates). */
  storedBytes(owner: string, label: string): number {
    const r = this.must(owner, label);
    const s = this.sql('SELECT length(bytes) AS n FROM block_snapshots WHERE block_id = ?').get(r.id) as { n: number };
    const u = this.sql('SELECT coalesce(sum(length(bytes)), 0) AS n FROM block_updates WHERE block_id = ?').get(r.id) as { n: number };
    return s.n + u.n;
  }

  /** Forgets loaded documents (the next read loads them from the database). */
  dropCache(): void {
    for (const l of this.cache.values()) l.doc.free();
    this.cache.clear();
  }

  private moveTo(r: Row, seq: number): BlockView {
    const v = this.sql('SELECT frontiers FROM block_versions WHERE block_id = ? AND seq = ?').get(r.id, seq) as { frontiers: string } | undefined;
    if (!v) throw new AppError('NOT_FOUND', `block '${r.label}' has no version ${seq}`);
    const loaded = this.doc(r);
    const before = loaded.doc.oplogVersion();
    loaded.doc.revertTo(JSON.parse(v.frontiers) as Frontiers);
    loaded.doc.commit();
    const at = this.now().toISOString();
    this.db.transaction(() => {
      this.store(r.id, loaded, before);
      this.sql('UPDATE blocks SET head = ?, updated_at = ? WHERE id = ?').run(seq, at, r.id);
    })();
    return this.view(r.owner, r.label);
  }

  /** Stores the document's changes since `before`: an update row, or a new snapshot every SNAPSHOT_EVERY. */
  private store(id: string, loaded: Loaded, before: ReturnType<LoroDoc['oplogVersion']>): void {
    if (loaded.updates + 1 >= SNAPSHOT_EVERY) {
      this.sql('UPDATE block_snapshots SET bytes = ? WHERE block_id = ?').run(loaded.doc.export({ mode: 'snapshot' }), id);
      this.sql('DELETE FROM block_updates WHERE block_id = ?').run(id);
      loaded.updates = 0;
      return;
    }
    const bytes = loaded.doc.export({ mode: 'update', from: before });
    const last = this.sql('SELECT coalesce(max(seq), 0) AS n FROM block_updates WHERE block_id = ?').get(id) as { n: number };
    this.sql('INSERT INTO block_updates (block_id, seq, bytes) VALUES (?, ?, ?)').run(id, last.n + 1, bytes);
    loaded.updates++;
  }

  private addVersion(id: string, seq: number, op: string, by: string, at: string, frontiers: Frontiers): void {
    this.sql('INSERT INTO block_versions (block_id, seq, op, by, at, frontiers) VALUES (?, ?, ?, ?, ?, ?)').run(id, seq, op, by, at, JSON.stringify(frontiers));
  }

  private doc(r: Row): Loaded {
    const hit = this.cache.get(r.id);
    if (hit) {
      this.cache.delete(r.id);
      this.cache.set(r.id, hit);
      return hit;
    }
    const s = this.sql('SELECT bytes FROM block_snapshots WHERE block_id = ?').get(r.id) as { bytes: Buffer };
    const doc = LoroDoc.fromSnapshot(new Uint8Array(s.bytes));
    doc.setRecordTimestamp(true);
    const updates = this.sql('SELECT bytes FROM block_updates WHERE block_id = ? ORDER BY seq').all(r.id) as { bytes: Buffer }[];
    if (updates.length) doc.importBatch(updates.map((u) => new Uint8Array(u.bytes)));
    const loaded = { doc, updates: updates.length };
    this.remember(r.id, loaded);
    return loaded;
  }

  private remember(id: string, loaded: Loaded): void {
    this.cache.set(id, loaded);
    while (this.cache.size > CACHE_SIZE) {
      const [oldest, l] = this.cache.entries().next().value as [string, Loaded];
      this.cache.delete(oldest);
      l.doc.free();
    }
  }

  private row(owner: string, label: string): Row | undefined {
    return this.sql('SELECT id, owner, label, schema, type, pinned, permission, description, char_limit, created_at, updated_at, head FROM blocks WHERE owner = ? AND label = ?').get(owner, label) as Row | undefined;
  }

  private must(owner: string, label: string): Row {
    const r = this.row(owner, label);
    if (!r) throw new AppError('NOT_FOUND', noBlock(label, owner), { label });
    return r;
  }

  private schemaOf(r: Row): BlockSchema {
    return BlockSchemaSchema.parse(JSON.parse(r.schema));
  }

  private info(r: Row, size?: number): BlockInfo {
    const schema = this.schemaOf(r);
    return {
      id: r.id,
      owner: r.owner,
      label: r.label,
      schema,
      type: r.type as BlockInfo['type'],
      pinned: r.pinned === 1,
      permission: r.permission as BlockInfo['permission'],
      description: r.description,
      charLimit: r.char_limit,
      size: size ?? render(valueOf(this.doc(r).doc, schema)).length,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    };
  }
}

function newDoc(): LoroDoc {
  const doc = new LoroDoc();
  doc.setRecordTimestamp(true);
  return doc;
}
