/**
 * Blocks in SQLite: metadata in `blocks`, the content as a Loro document (a snapshot plus
 * the updates made since it, folded into a new snapshot every SNAPSHOT_EVERY updates), and
 * one version per edit: the document's frontiers after it. What made a version (the
 * operation and who) is the Loro change's commit message, and when, its timestamp, so the
 * history costs a few bytes per edit beside the document's own compressed history.
 * Undo reverts the document to the previous version's frontiers (Loro's revertTo: new
 * operations, nothing is rewritten); redo to the next one; a new edit after an undo drops
 * the versions that could have been redone.
 *
 * No permission is checked here: ./memory-service.ts does that before calling.
 */
import type Database from 'better-sqlite3';
import { LoroDoc, type Frontiers } from 'loro-crdt';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import { BlockSchemaSchema, NewBlockSchema, type BlockInfo, type BlockSchema, type BlockVersion, type BlockView, type NewBlock } from '../../../shared/model/memory';
import { initialValue, render, ROOT, valueOf, writeValue, type BlockValue } from './block-content';
import { statementCache } from './memory-db';

/** Updates kept beside the snapshot before they are folded into a new one. */
export const SNAPSHOT_EVERY = 512;
/** Loaded documents kept in memory. */
const CACHE_SIZE = 128;

interface Row {
  n: number;
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
  /** The bytes of local changes not stored yet (Loro hands them over at each commit). */
  pending: Uint8Array[];
}

/** A block as an edit reads it: its metadata and size without materializing a large text. */
export interface BlockRef {
  info: BlockInfo;
  content(): BlockValue;
  /** Text blocks: the last character ('' when empty). */
  lastChar(): string;
}

/** The content after an edit: its size (checked against the limit), the value, and how to make it. */
export interface PlannedEdit {
  size: number;
  next: () => BlockValue;
  apply: (doc: LoroDoc) => void;
}

export const noBlock = (label: string, owner: string) =>
  `no block '${label}' in ${ownerText(owner)}'s memory: blocks are made with memory.blocks.create (Inspect → Memory) or by a source`;

export const overLimit = (label: string, size: number, limit: number, was: number) =>
  `block '${label}' would hold ${size} characters, over its limit of ${limit} (it holds ${was} now): shorten the edit, or replace old content first`;

export function ownerText(owner: string): string {
  return owner.startsWith('agent:') ? `the ${owner.slice(6)} agent` : `conversation ${owner.slice(13)}`;
}

const SELECT_ROW = 'SELECT n, id, owner, label, schema, type, pinned, permission, description, char_limit, created_at, updated_at, head FROM blocks';

export class BlockStore {
  private readonly cache = new Map<number, Loaded>();
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
    commit(doc, 'create', by);
    const at = this.now().toISOString();
    let n = 0;
    this.db.transaction(() => {
      n = Number(
        this.sql('INSERT INTO blocks (id, owner, label, schema, type, pinned, permission, description, char_limit, created_at, updated_at, head) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)').run(
          uuidv7(),
          b.owner,
          b.label,
          JSON.stringify(b.schema),
          b.type,
          b.pinned ? 1 : 0,
          b.permission,
          b.description,
          b.charLimit,
          at,
          at,
        ).lastInsertRowid,
      );
      this.sql('INSERT INTO block_snapshots (block_n, bytes) VALUES (?, ?)').run(n, doc.export({ mode: 'snapshot' }));
      this.sql('INSERT INTO block_versions (block_n, seq, frontiers) VALUES (?, 1, ?)').run(n, frontiersText(doc.frontiers()));
    })();
    this.remember(n, track(doc, 0));
    return this.view(b.owner, b.label);
  }

  list(owner?: string): BlockInfo[] {
    const rows = (owner ? this.sql(`${SELECT_ROW} WHERE owner = ? ORDER BY label`).all(owner) : this.sql(`${SELECT_ROW} ORDER BY owner, label`).all()) as Row[];
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

  /** The block as an edit plans against it: content read only when asked for. */
  ref(owner: string, label: string): BlockRef {
    const r = this.must(owner, label);
    const schema = this.schemaOf(r);
    const { doc } = this.doc(r);
    return {
      info: this.info(r),
      content: () => valueOf(doc, schema),
      lastChar: () => {
        const t = doc.getText(ROOT);
        return t.length ? t.slice(t.length - 1, t.length) : '';
      },
    };
  }

  /** Sets pinned, the block type or the permission; a metadata change, not a version of the content. */
  setMeta(owner: string, label: string, meta: { pinned?: boolean; type?: BlockInfo['type']; permission?: BlockInfo['permission'] }): BlockInfo {
    const r = this.must(owner, label);
    const at = this.now().toISOString();
    this.sql('UPDATE blocks SET pinned = ?, type = ?, permission = ?, updated_at = ? WHERE n = ?').run(
      meta.pinned === undefined ? r.pinned : meta.pinned ? 1 : 0,
      meta.type ?? r.type,
      meta.permission ?? r.permission,
      at,
      r.n,
    );
    return this.infoOf(owner, label);
  }

  /** Removes a block and its history (a FileSource's block when its file is deleted); false when there was none. */
  remove(owner: string, label: string): boolean {
    const r = this.row(owner, label);
    if (!r) return false;
    this.db.transaction(() => {
      for (const t of ['block_updates', 'block_snapshots', 'block_versions']) this.sql(`DELETE FROM ${t} WHERE block_n = ?`).run(r.n);
      this.sql('DELETE FROM blocks WHERE n = ?').run(r.n);
    })();
    const hit = this.cache.get(r.n);
    if (hit) {
      this.cache.delete(r.n);
      hit.doc.free();
    }
    return true;
  }

  /** Removes every block of an owner with its history (its conversation was deleted); how many there were. */
  removeOwner(owner: string): number {
    const ns = (this.sql('SELECT n FROM blocks WHERE owner = ?').pluck().all(owner) as number[]);
    if (ns.length === 0) return 0;
    this.db.transaction(() => {
      for (const n of ns) {
        for (const t of ['block_updates', 'block_snapshots', 'block_versions']) this.sql(`DELETE FROM ${t} WHERE block_n = ?`).run(n);
        this.sql('DELETE FROM blocks WHERE n = ?').run(n);
      }
    })();
    for (const n of ns) {
      const hit = this.cache.get(n);
      if (hit) {
        this.cache.delete(n);
        hit.doc.free();
      }
    }
    return ns.length;
  }

  /** One edit, planned by ./edits.ts: over the limit, nothing changes; else one version more. */
  edit(owner: string, label: string, op: string, by: string, plan: PlannedEdit): BlockInfo {
    const r = this.must(owner, label);
    const loaded = this.doc(r);
    if (plan.size > r.char_limit) throw new AppError('PAYLOAD_TOO_LARGE', overLimit(label, plan.size, r.char_limit, this.sizeOf(r, loaded.doc)), { size: plan.size, limit: r.char_limit });
    plan.apply(loaded.doc);
    commit(loaded.doc, op, by);
    const at = this.now().toISOString();
    this.db.transaction(() => {
      this.store(r.n, loaded);
      // A new edit after undo: the versions that could have been redone are gone.
      this.sql('DELETE FROM block_versions WHERE block_n = ? AND seq > ?').run(r.n, r.head);
      this.sql('INSERT INTO block_versions (block_n, seq, frontiers) VALUES (?, ?, ?)').run(r.n, r.head + 1, frontiersText(loaded.doc.frontiers()));
      this.sql('UPDATE blocks SET head = ?, updated_at = ? WHERE n = ?').run(r.head + 1, at, r.n);
    })();
    return this.info({ ...r, head: r.head + 1, updated_at: at }, plan.size);
  }

  /** The content at the previous version (a new change to the document). */
  undo(owner: string, label: string): BlockView {
    const r = this.must(owner, label);
    if (r.head <= 1) throw new AppError('CONFLICT', `block '${label}' has nothing to undo`);
    return this.moveTo(r, r.head - 1, 'undo');
  }

  redo(owner: string, label: string): BlockView {
    const r = this.must(owner, label);
    const next = this.sql('SELECT seq FROM block_versions WHERE block_n = ? AND seq = ?').get(r.n, r.head + 1);
    if (!next) throw new AppError('CONFLICT', `block '${label}' has nothing to redo`);
    return this.moveTo(r, r.head + 1, 'redo');
  }

  /** Every version, oldest first, with its content as a model reads it. */
  history(owner: string, label: string): BlockVersion[] {
    const r = this.must(owner, label);
    const schema = this.schemaOf(r);
    const { doc } = this.doc(r);
    const rows = this.sql('SELECT seq, frontiers FROM block_versions WHERE block_n = ? ORDER BY seq').all(r.n) as { seq: number; frontiers: string }[];
    const past = doc.fork();
    try {
      return rows.map((v) => {
        const frontiers = parseFrontiers(v.frontiers);
        past.checkout(frontiers);
        const change = frontiers[0] ? doc.getChangeAt(frontiers[0]) : undefined;
        const [op = 'edit', by = ''] = (change?.message ?? '').split('\u0000');
        return { seq: v.seq, op, by, at: new Date((change?.timestamp ?? 0) * 1000).toISOString(), text: render(valueOf(past, schema)), current: v.seq === r.head, undone: v.seq > r.head };
      });
    } finally {
      past.free();
    }
  }

  /** Bytes stored for a block: its Loro document (snapshot and updates) and its versions' rows (their column values). */
  storedBytes(owner: string, label: string): { document: number; versions: number } {
    const r = this.must(owner, label);
    const s = this.sql('SELECT length(bytes) AS n FROM block_snapshots WHERE block_n = ?').get(r.n) as { n: number };
    const u = this.sql('SELECT coalesce(sum(length(bytes)), 0) AS n FROM block_updates WHERE block_n = ?').get(r.n) as { n: number };
    const v = this.sql('SELECT coalesce(sum(length(frontiers) + 8), 0) AS n FROM block_versions WHERE block_n = ?').get(r.n) as { n: number };
    return { document: s.n + u.n, versions: v.n };
  }

  /** Forgets loaded documents (the next read loads them from the database). */
  dropCache(): void {
    for (const l of this.cache.values()) l.doc.free();
    this.cache.clear();
  }

  private moveTo(r: Row, seq: number, op: 'undo' | 'redo'): BlockView {
    const v = this.sql('SELECT frontiers FROM block_versions WHERE block_n = ? AND seq = ?').get(r.n, seq) as { frontiers: string } | undefined;
    if (!v) throw new AppError('NOT_FOUND', `block '${r.label}' has no version ${seq}`);
    const loaded = this.doc(r);
    loaded.doc.revertTo(parseFrontiers(v.frontiers));
    commit(loaded.doc, op, 'user');
    const at = this.now().toISOString();
    this.db.transaction(() => {
      this.store(r.n, loaded);
      this.sql('UPDATE blocks SET head = ?, updated_at = ? WHERE n = ?').run(seq, at, r.n);
    })();
    return this.view(r.owner, r.label);
  }

  /** Stores the document's pending changes: an update row, or a new snapshot every SNAPSHOT_EVERY. */
  private store(n: number, loaded: Loaded): void {
    const pending = loaded.pending.splice(0);
    if (pending.length === 0) return;
    if (loaded.updates + 1 >= SNAPSHOT_EVERY) {
      this.sql('UPDATE block_snapshots SET bytes = ? WHERE block_n = ?').run(loaded.doc.export({ mode: 'snapshot' }), n);
      this.sql('DELETE FROM block_updates WHERE block_n = ?').run(n);
      loaded.updates = 0;
      return;
    }
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
    const last = this.sql('SELECT coalesce(max(seq), 0) AS n FROM block_updates WHERE block_n = ?').get(n) as { n: number };
    if (pending.length === 1) this.sql('INSERT INTO block_updates (block_n, seq, bytes) VALUES (?, ?, ?)').run(n, last.n + 1, bytes);
    else for (const [i, p] of pending.entries()) this.sql('INSERT INTO block_updates (block_n, seq, bytes) VALUES (?, ?, ?)').run(n, last.n + 1 + i, p);
    loaded.updates += pending.length;
  }

  private doc(r: Row): Loaded {
    const hit = this.cache.get(r.n);
    if (hit) {
      this.cache.delete(r.n);
      this.cache.set(r.n, hit);
      return hit;
    }
    const s = this.sql('SELECT bytes FROM block_snapshots WHERE block_n = ?').get(r.n) as { bytes: Buffer };
    const doc = LoroDoc.fromSnapshot(new Uint8Array(s.bytes));
    doc.setRecordTimestamp(true);
    const updates = this.sql('SELECT bytes FROM block_updates WHERE block_n = ? ORDER BY seq').all(r.n) as { bytes: Buffer }[];
    if (updates.length) doc.importBatch(updates.map((u) => new Uint8Array(u.bytes)));
    const loaded = track(doc, updates.length);
    this.remember(r.n, loaded);
    return loaded;
  }

  private remember(n: number, loaded: Loaded): void {
    this.cache.set(n, loaded);
    while (this.cache.size > CACHE_SIZE) {
      const [oldest, l] = this.cache.entries().next().value as [number, Loaded];
      this.cache.delete(oldest);
      l.doc.free();
    }
  }

  private row(owner: string, label: string): Row | undefined {
    return this.sql(`${SELECT_ROW} WHERE owner = ? AND label = ?`).get(owner, label) as Row | undefined;
  }

  private must(owner: string, label: string): Row {
    const r = this.row(owner, label);
    if (!r) throw new AppError('NOT_FOUND', noBlock(label, owner), { label });
    return r;
  }

  private schemaOf(r: Row): BlockSchema {
    return BlockSchemaSchema.parse(JSON.parse(r.schema));
  }

  /** The rendered size; a Text block's is its length, read without building the string. */
  private sizeOf(r: Row, doc: LoroDoc): number {
    const schema = this.schemaOf(r);
    return schema.kind === 'Text' ? doc.getText(ROOT).length : render(valueOf(doc, schema)).length;
  }

  private info(r: Row, size?: number): BlockInfo {
    return {
      id: r.id,
      owner: r.owner,
      label: r.label,
      schema: this.schemaOf(r),
      type: r.type as BlockInfo['type'],
      pinned: r.pinned === 1,
      permission: r.permission as BlockInfo['permission'],
      description: r.description,
      charLimit: r.char_limit,
      size: size ?? this.sizeOf(r, this.doc(r).doc),
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

/** Collects the bytes of each local commit, for store(). */
function track(doc: LoroDoc, updates: number): Loaded {
  const loaded: Loaded = { doc, updates, pending: [] };
  doc.subscribeLocalUpdates((u) => loaded.pending.push(u));
  return loaded;
}

/** The change's message names the operation and who made it. */
function commit(doc: LoroDoc, op: string, by: string): void {
  doc.setNextCommitMessage(`${op}\u0000${by}`);
  doc.commit();
}

/** `counter@peer` per frontier, comma-separated. */
function frontiersText(f: Frontiers): string {
  return f.map((id) => `${id.counter}@${id.peer}`).join(',');
}

function parseFrontiers(s: string): Frontiers {
  if (!s) return [];
  return s.split(',').map((p) => {
    const [counter, peer] = p.split('@');
    return { peer: peer as `${number}`, counter: Number(counter) };
  });
}
