/**
 * The memory service: the `block`, `block_edit` and `recall` operations as a caller (a
 * model, the `+` palette) does them, each through both permission layers (./permissions.ts)
 * and, for Partner and Human blocks, the human's consent (./consent.ts). The stores below
 * it (./block-store.ts, ./recall-store.ts) check nothing; the contract handlers for the
 * Inspect → Memory tab call them directly (the user needs no one's consent).
 */
import { createTwoFilesPatch } from 'diff';
import { AppError } from '../../../shared/errors';
import type { Problem } from '../../../shared/model/app-info';
import type { BlockInfo, MemoryOperation, RecallEntry, RecallHit } from '../../../shared/model/memory';
import { render } from './block-content';
import { BlockStore, overLimit } from './block-store';
import { askWithTimeout, consentClosed, consentDenied, consentRequired, consentTimedOut, DEFAULT_CONSENT_TIMEOUT_MS, type ConsentAsker } from './consent';
import { openMemoryDb } from './memory-db';
import { decide, refusalText, type AgentGrant } from './permissions';
import { RecallStore } from './recall-store';
import { planEdit, type BlockEditInput } from './edits';
import type Database from 'better-sqlite3';

/** Who calls: whose memory, in which conversation, with what grant. */
export interface Actor {
  /** The memory used: conversation:<id> or agent:<name>. */
  owner: string;
  /** The conversation (or task) the call runs in; consent is asked and remembered there. */
  conversationId?: string;
  /** Recorded on each version: a conversation or task id, or "user". */
  by: string;
  /** The call being made (its card in the chat shows a consent question). */
  invocationId?: string;
  grant: AgentGrant;
}

export interface MemoryServiceOptions {
  /** The SQLite file (`memory.sqlite` in the data folder). */
  file: string;
  now: () => Date;
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  /** Asks the human; absent: a consent-required error. */
  consent?: () => ConsentAsker | undefined;
  consentTimeoutMs?: () => number;
  /** Told after a change: the memory and the block (absent: a recall entry). */
  onChange?: (owner: string, label?: string) => void;
}

export interface BlockInput {
  op: 'load' | 'pin' | 'unpin' | 'archive' | 'info';
  label: string;
  source_id?: string;
}

export interface RecallInput {
  op: 'insert' | 'search';
  content?: string;
  metadata?: Record<string, unknown>;
  query?: string;
  limit?: number;
  tags?: string[];
  since?: string;
  until?: string;
}

export const noSource = (id: string) => `no data source '${id}': \`source list\` names the sources there are (Settings → Memory sources adds them); or load the block by its label alone`;

/** What `block load` with a `source_id` delegates to (./sources/source-manager.ts). */
export interface BlockSourceLoader {
  /** Undefined when there is no source of that id. */
  loadBlock(actor: Actor, sourceId: string, label: string, signal: AbortSignal): Promise<{ message: string; block: BlockInfo; content?: string }> | undefined;
}

export class MemoryService {
  readonly blocks: BlockStore;
  readonly recall: RecallStore;
  /** "Allow for this conversation" answers (conversation, block id, operation), kept in the database so a restart does not ask again. */
  private readonly grants: { has: Database.Statement; add: Database.Statement; forget: Database.Statement };
  /** The data sources `block load` with a source_id reaches (set by the app once they exist). */
  sources: BlockSourceLoader | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly opts: MemoryServiceOptions,
  ) {
    this.blocks = new BlockStore(db, opts.now);
    this.recall = new RecallStore(db, opts.now);
    this.grants = {
      has: db.prepare('SELECT 1 FROM consent_grants WHERE conversation_id = ? AND block_id = ? AND operation = ?').pluck(),
      add: db.prepare('INSERT OR IGNORE INTO consent_grants (conversation_id, block_id, operation, granted_at) VALUES (?, ?, ?, ?)'),
      forget: db.prepare('DELETE FROM consent_grants WHERE conversation_id = ?'),
    };
  }

  static open(opts: MemoryServiceOptions): MemoryService {
    return new MemoryService(openMemoryDb(opts), opts);
  }

  close(): void {
    this.blocks.dropCache();
    if (this.db.open) this.db.close();
  }

  /** Forgets what was allowed for a conversation (it was deleted). */
  forgetConversation(conversationId: string): void {
    if (this.db.open) this.grants.forget.run(conversationId);
  }

  /**
   * A conversation was deleted: its memory goes with it, as its stored outputs do: the blocks
   * and recall entries it owns, and what was allowed in it. What an agent profile keeps across
   * conversations (owner `agent:<name>`) is the profile's, and stays.
   */
  deleteConversation(conversationId: string): { blocks: number; recall: number } {
    if (!this.db.open) return { blocks: 0, recall: 0 };
    const owner = `conversation:${conversationId}`;
    const blocks = this.blocks.removeOwner(owner);
    const recall = this.recall.removeOwner(owner);
    this.forgetConversation(conversationId);
    if (blocks || recall) this.changed(owner);
    return { blocks, recall };
  }

  async block(actor: Actor, input: BlockInput, signal: AbortSignal): Promise<{ op: BlockInput['op']; message: string; block: BlockInfo; content?: string }> {
    const op = `block.${input.op}` as MemoryOperation;
    if (input.source_id !== undefined) {
      this.check(actor, op, undefined, input.label);
      if (input.op !== 'load') throw new AppError('VALIDATION_FAILED', `source_id goes with op load only (${input.op} works on a block by its label)`, { field: 'source_id' });
      const loaded = this.sources?.loadBlock(actor, input.source_id, input.label, signal);
      if (!loaded) throw new AppError('NOT_FOUND', noSource(input.source_id), { field: 'source_id' });
      return { op: input.op, ...(await loaded) };
    }
    const info = this.blocks.infoOf(actor.owner, input.label);
    switch (input.op) {
      case 'info':
      case 'load': {
        this.check(actor, op, info, input.label);
        if (input.op === 'info') return { op: input.op, message: `block '${info.label}': ${info.schema.kind}, ${info.type}, ${info.permission}, ${info.size} of ${info.charLimit} characters, ${info.pinned ? 'pinned' : 'not pinned'}`, block: info };
        const view = this.blocks.view(actor.owner, input.label);
        return { op: input.op, message: `block '${info.label}' loaded (${view.size} characters)`, block: info, content: view.text };
      }
      case 'pin':
      case 'unpin': {
        const pinned = input.op === 'pin';
        await this.permit(actor, op, info, `${pinned ? 'pin' : 'unpin'} block '${info.label}'`, signal);
        const after = pinned === info.pinned ? info : this.blocks.setMeta(actor.owner, input.label, { pinned });
        this.changed(actor.owner, input.label);
        return { op: input.op, message: pinned === info.pinned ? `block '${info.label}' was already ${pinned ? 'pinned' : 'unpinned'}` : `block '${info.label}' is ${pinned ? 'pinned: it stays in context across batches' : 'unpinned'}`, block: after };
      }
      case 'archive': {
        if (info.type === 'Archival') {
          this.check(actor, op, info, input.label);
          throw new AppError('CONFLICT', `block '${info.label}' is already Archival`);
        }
        await this.permit(actor, op, info, `archive block '${info.label}' (Working → Archival)`, signal);
        const after = this.blocks.setMeta(actor.owner, input.label, { type: 'Archival' });
        this.changed(actor.owner, input.label);
        return { op: input.op, message: `block '${info.label}' is Archival now (no recall entry was made)`, block: after };
      }
    }
  }

  /** `operation`: what both layers check, when another tool edits through this (`file append` is an append). */
  async blockEdit(actor: Actor, input: BlockEditInput, signal: AbortSignal, operation?: MemoryOperation): Promise<{ op: BlockEditInput['op']; message: string; block: BlockInfo }> {
    const op = operation ?? (`block_edit.${input.op}` as MemoryOperation);
    const ref = this.blocks.ref(actor.owner, input.label);
    const info = ref.info;
    // Refusals come before the work: neither layer is bypassed by a bad edit's error.
    const decision = decide(info.permission, actor.grant, op, info.label);
    if (decision.kind === 'refused') throw new AppError('FORBIDDEN', refusalText(decision), { layer: decision.layer, operation: op });
    const plan = planEdit(ref, input);
    if (plan.size > info.charLimit) throw new AppError('PAYLOAD_TOO_LARGE', overLimit(info.label, plan.size, info.charLimit, info.size), { size: plan.size, limit: info.charLimit });
    if (decision.kind === 'needs-human') {
      await this.consent(actor, op, info, decision.reason, `${input.op} on block '${info.label}'`, signal, { before: render(ref.content()), after: render(plan.next()) });
      // The human allowed this edit of that content: if the block changed meanwhile, nothing is applied.
      if (this.blocks.infoOf(actor.owner, input.label).updatedAt !== info.updatedAt) {
        throw new AppError('CONFLICT', `block '${info.label}' changed while waiting for the user's answer; nothing was applied: load it and make the edit again`);
      }
    }
    const after = this.blocks.edit(actor.owner, input.label, input.op, actor.by, plan);
    this.changed(actor.owner, input.label);
    return { op: input.op, message: `${plan.done}; block '${info.label}' holds ${after.size} of ${after.charLimit} characters`, block: after };
  }

  async recallOp(actor: Actor, input: RecallInput): Promise<{ op: RecallInput['op']; message: string; entry?: RecallEntry; results?: RecallHit[] }> {
    const op = `recall.${input.op}` as MemoryOperation;
    this.check(actor, op, undefined, '');
    if (input.op === 'insert') {
      if (input.content === undefined) throw new AppError('VALIDATION_FAILED', 'recall insert needs content: the text to keep', { field: 'content' });
      const entry = this.recall.insert(actor.owner, input.content, input.metadata ?? {});
      this.changed(actor.owner);
      return { op: input.op, message: `entry ${entry.id} kept (entries cannot be changed or deleted)`, entry };
    }
    if (input.query === undefined || !input.query.trim()) throw new AppError('VALIDATION_FAILED', 'recall search needs query: the words to find', { field: 'query' });
    const results = this.recall.search({
      owner: actor.owner,
      query: input.query,
      limit: input.limit ?? 10,
      ...(input.tags ? { tags: input.tags } : {}),
      ...(input.since ? { since: input.since } : {}),
      ...(input.until ? { until: input.until } : {}),
    });
    return { op: input.op, message: results.length ? `${results.length} entr${results.length === 1 ? 'y' : 'ies'}, best first` : 'no entry matches every word of the query', results };
  }

  /** Both layers, for an operation that never asks the human (reads, recall, or a failing call). */
  private check(actor: Actor, op: MemoryOperation, info: BlockInfo | undefined, label: string): void {
    const d = decide(info?.permission, actor.grant, op, label);
    if (d.kind === 'refused') throw new AppError('FORBIDDEN', refusalText(d), { layer: d.layer, operation: op });
  }

  /** Both layers, and the human's consent when the block asks for it. */
  private async permit(actor: Actor, op: MemoryOperation, info: BlockInfo, summary: string, signal: AbortSignal): Promise<void> {
    const d = decide(info.permission, actor.grant, op, info.label);
    if (d.kind === 'refused') throw new AppError('FORBIDDEN', refusalText(d), { layer: d.layer, operation: op });
    if (d.kind === 'needs-human') await this.consent(actor, op, info, d.reason, summary, signal);
  }

  /** The human's consent for `op` on a block (or a file: its would-be block): resolves when allowed, else FORBIDDEN. */
  askConsent(actor: Actor, op: MemoryOperation, info: Pick<BlockInfo, 'id' | 'label' | 'permission'>, reason: string, summary: string, signal: AbortSignal, edit?: { before: string; after: string }): Promise<void> {
    return this.consent(actor, op, info, reason, summary, signal, edit);
  }

  private async consent(actor: Actor, op: MemoryOperation, info: Pick<BlockInfo, 'id' | 'label' | 'permission'>, reason: string, summary: string, signal: AbortSignal, edit?: { before: string; after: string }): Promise<void> {
    if (actor.conversationId && this.grants.has.get(actor.conversationId, info.id, op) !== undefined) return;
    const asker = this.opts.consent?.();
    if (!asker) throw new AppError('FORBIDDEN', consentRequired(reason), { layer: 'human consent', outcome: 'consent-required', operation: op, label: info.label });
    const timeoutMs = this.opts.consentTimeoutMs?.() ?? DEFAULT_CONSENT_TIMEOUT_MS;
    const shown = op.replace('.', ' ');
    const answer = await askWithTimeout(
      asker,
      {
        conversationId: actor.conversationId,
        ...(actor.invocationId ? { invocationId: actor.invocationId } : {}),
        owner: actor.owner,
        label: info.label,
        operation: op,
        permission: info.permission,
        summary,
        ...(edit ? { ...edit, diff: createTwoFilesPatch(info.label, info.label, edit.before, edit.after, 'before', 'after') } : {}),
      },
      signal,
      timeoutMs,
    );
    if (answer === 'deny') throw new AppError('FORBIDDEN', consentDenied(info.label, shown), { layer: 'human consent', outcome: 'denied', operation: op });
    if (answer === 'closed') throw new AppError('FORBIDDEN', consentClosed(info.label, shown), { layer: 'human consent', outcome: 'closed', operation: op });
    if (answer === 'timeout') throw new AppError('FORBIDDEN', consentTimedOut(info.label, shown, timeoutMs), { layer: 'human consent', outcome: 'timeout', operation: op });
    if (answer === 'allow-conversation' && actor.conversationId) this.grants.add.run(actor.conversationId, info.id, op, this.opts.now().toISOString());
  }

  private changed(owner: string, label?: string): void {
    try {
      this.opts.onChange?.(owner, label);
    } catch {
      // A listener's failure is not the caller's.
    }
  }
}
