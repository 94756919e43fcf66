/**
 * Conversations, messages and context sections in SQLite (better-sqlite3, WAL, the
 * migrations of ./migrations.ts). Conversations live only here, so a database that cannot
 * be opened is moved aside (never deleted), reported, and replaced by a fresh one; one
 * written by a newer Toolsmith is left untouched and the store lives in memory.
 *
 * Titles: a conversation created without one is 'New conversation' until its first message
 * arrives; then the first line of that message (directive lines left out) becomes its title.
 * A title the user gave (at creation or by renaming) is never replaced.
 */
import Database from 'better-sqlite3';
import { AppError } from '../../../shared/errors';
import type { Problem } from '../../../shared/model/app-info';
import { TITLE_MAX, type BranchPoint, type ContextSection, type Conversation, type ConversationListItem, type Message, type ToolCard } from '../../../shared/model/conversation';
import type { ModelRef, ToolSelection } from '../../../shared/model/provider';
import { ExtractionOverridesSchema, type ExtractionOverrides } from '../../../shared/model/settings';
import { ModelParamsSchema, SystemPromptSchema, type ModelParams } from '../../../shared/model/model-params';
import { v7 as uuidv7 } from 'uuid';
import { MIGRATIONS } from './migrations';
import { shownAttachments, storedAttachmentsOf, type StoredAttachment } from './attachments';
import { openSqliteFile } from '../lib/sqlite-file';
import { APP_CLOSED_CALL, APP_CLOSED_TASK, AUTO_TITLE_MAX_CHARS, DEFAULT_TITLE, attachmentNotFound, conversationNotFound, duplicateSectionId, messageNotFound, noSuchBranch, notABranchPoint, taskNotFound } from './strings';
import type { Task } from '../../../shared/model/task';

/** With kind 'messages': the rows added and the conversation after them. */
export type ConversationChange = {
  conversationId: string;
  kind: 'created' | 'renamed' | 'deleted' | 'messages' | 'context';
  messages?: Message[];
  conversation?: Conversation;
};

export interface ConversationStoreOptions {
  /** The SQLite file: `<data>/conversations.sqlite`. */
  file: string;
  now: () => Date;
  /** Told about a database that had to be set aside. */
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  /** Told after every committed change (the core forwards it as 'conversations.changed'). */
  onChange?: (change: ConversationChange) => void;
  /** Told when a task below a conversation was made or changed (forwarded as 'tasks.changed'). */
  onTasks?: (rootId: string) => void;
  /**
   * Close calls and tasks a previous run left running (default true). False in a process
   * that shares the data folder with a running app (`toolsmith mcp`): they are the app's, live.
   */
  recoverInterrupted?: boolean;
}

/** What makes a task; the store numbers it, dates it and starts it running (a question: waiting). */
export interface NewTask {
  rootId: string;
  parentId: string;
  kind: Task['kind'];
  agent: string;
  request: string;
  documents: string[];
  depth: number;
  invocationId: string;
  /** An agent's task gets a hidden conversation of its own: its model and tools. */
  model?: ModelRef;
  tools?: ToolSelection;
}

export type TaskPatch = Partial<Pick<Task, 'status' | 'result' | 'resultDocuments' | 'answeredBy' | 'error'>>;

const TASK_ENDED: ReadonlySet<Task['status']> = new Set(['done', 'failed', 'cancelled']);

export interface ListQuery {
  /** Part of a title, any case; `%` and `_` match themselves. */
  q?: string;
  limit?: number;
}

/**
 * What the timeline keeps beside a message, for the model only (never sent to the renderer):
 * a user row's prompt as the model gets it (inlined inputs, manifests), and an assistant
 * row's tool calls as the model made them.
 */
export interface TimelineExtras {
  prompt?: string;
  /** A user row's attached files with their bytes (the message shows them as `attachments`). */
  attachmentFiles?: StoredAttachment[];
  toolCalls?: { callId: string; name: string; argsText: string }[];
}

/** A conversation to add whole (`importConversation`): the store gives it and its messages new ids. */
export interface ImportedConversation {
  title: string;
  model?: ModelRef;
  tools?: ToolSelection;
  extraction?: ExtractionOverrides;
  contextSections?: ContextSection[];
  systemPrompt?: string;
  params?: ModelParams;
  /** Each row's attached files travel as `attachmentFiles` (checked by the caller). */
  messages: (Omit<Message, 'id' | 'conversationId'> & Pick<TimelineExtras, 'attachmentFiles'>)[];
}

/** A row of the timeline: the message and its extras. */
export type TimelineRow = Message & TimelineExtras;

/** A message to add: the store gives it an id, its conversation and a time unless given. */
export type NewMessage = Omit<Message, 'id' | 'conversationId' | 'createdAt'> & TimelineExtras & { id?: string; createdAt?: string };

const DEFAULT_LIST_LIMIT = 200;

interface ConversationRow {
  id: string;
  title: string;
  title_source: 'default' | 'auto' | 'user';
  created_at: string;
  updated_at: string;
  message_count: number;
  model: string | null;
  tools: string | null;
  extraction?: string | null;
  options?: string | null;
}

interface MessageRow {
  id: string;
  conversation_id: string;
  role: Message['role'];
  created_at: string;
  text: string;
  tool: string | null;
  outcomes: string | null;
  turn_id: string | null;
  model: string | null;
  usage: string | null;
  error: string | null;
  prompt?: string | null;
  tool_calls?: string | null;
  attachments?: string | null;
}

const MESSAGE_COLUMNS = 'id, conversation_id, role, created_at, text, tool, outcomes, turn_id, model, usage, error, attachments';

const SELECT_CONVERSATION = `SELECT c.id, c.title, c.title_source, c.created_at, c.updated_at, c.model, c.tools, c.extraction, c.options,
  (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.hidden = 0) AS message_count FROM conversations c`;

export class ConversationStore {
  private constructor(
    private readonly db: Database.Database,
    private readonly opts: ConversationStoreOptions,
  ) {}

  static open(opts: ConversationStoreOptions): ConversationStore {
    const db = openSqliteFile({
      file: opts.file,
      migrations: MIGRATIONS,
      now: opts.now,
      ...(opts.problems ? { problems: opts.problems } : {}),
      what: 'the conversations database',
      keeps: 'conversations',
      // Case folding beyond ASCII (SQLite's own LIKE folds ASCII only).
      setup: (d) => d.function('fold', { deterministic: true }, (x: unknown) => (typeof x === 'string' ? x.toLowerCase() : x)),
      check: (d) => d.prepare('SELECT id FROM conversations LIMIT 1').get(),
    });
    const store = new ConversationStore(db, opts);
    if (opts.recoverInterrupted !== false) {
      store.closeInterruptedCalls();
      store.closeInterruptedTasks();
    }
    return store;
  }

  /**
   * A call whose latest row is still running or awaiting approval was cut off by the app
   * closing (or crashing): a 'cancelled' row closes it, so its card does not spin for ever
   * and the model is told it did not finish.
   */
  private closeInterruptedCalls(): void {
    const rows = this.db
      .prepare(
        `SELECT m.conversation_id, m.turn_id, m.tool FROM messages m
         WHERE m.role = 'tool' AND m.hidden = 0 AND json_valid(m.tool) AND json_extract(m.tool, '$.status') IN ('running', 'awaiting-approval', 'awaiting-answer')
           AND NOT EXISTS (SELECT 1 FROM messages n WHERE n.conversation_id = m.conversation_id AND n.seq > m.seq AND n.role = 'tool'
             AND json_valid(n.tool) AND json_extract(n.tool, '$.invocationId') = json_extract(m.tool, '$.invocationId'))
         ORDER BY m.seq`,
      )
      .all() as { conversation_id: string; turn_id: string | null; tool: string }[];
    for (const r of rows) {
      const card = parseJson<ToolCard>(r.tool);
      if (!card) continue;
      const closed: ToolCard = { ...card, status: 'cancelled', error: { code: 'CANCELLED', message: APP_CLOSED_CALL } };
      this.addMessages(r.conversation_id, [{ role: 'tool', text: APP_CLOSED_CALL, tool: closed, ...(r.turn_id ? { turnId: r.turn_id } : {}) }]);
    }
  }

  /** Tasks the app left running, blocked or waiting end cancelled: no node waits for ever. */
  private closeInterruptedTasks(): void {
    this.db
      .prepare(`UPDATE tasks SET status = 'cancelled', ended_at = ?, error = ? WHERE status IN ('running', 'blocked', 'waiting')`)
      .run(this.now().toISOString(), APP_CLOSED_TASK);
  }

  /** A task below a conversation: an agent's gets a hidden conversation (its timeline) of the same id. */
  createTask(t: NewTask): Task {
    const at = this.now();
    const id = uuidv7({ msecs: at.getTime() });
    this.db.transaction(() => {
      const number = ((this.db.prepare('SELECT max(number) AS n FROM tasks WHERE root_id = ?').get(t.rootId) as { n: number | null }).n ?? 0) + 1;
      if (t.kind === 'agent') {
        this.db
          .prepare('INSERT INTO conversations (id, title, title_source, created_at, updated_at, model, tools) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(id, `Task ${number}: ${t.agent}`, 'user', at.toISOString(), at.toISOString(), json(t.model), json(t.tools));
      }
      this.db
        .prepare(
          `INSERT INTO tasks (id, root_id, parent_id, number, kind, agent, status, request, documents, depth, invocation_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, t.rootId, t.parentId, number, t.kind, t.agent, t.kind === 'question' ? 'waiting' : 'running', t.request, JSON.stringify(t.documents), t.depth, t.invocationId, at.toISOString());
    })();
    this.opts.onTasks?.(t.rootId);
    return this.task(id);
  }

  /** An ended task (done, failed, cancelled) keeps its status: a late "running" from a parallel call never reopens it. */
  updateTask(id: string, patch: TaskPatch): Task {
    const old = this.task(id);
    const reopen = TASK_ENDED.has(old.status) && patch.status !== undefined && !TASK_ENDED.has(patch.status);
    const next = { ...old, ...patch, ...(reopen ? { status: old.status } : {}) };
    const ended = patch.status && TASK_ENDED.has(patch.status) && !old.endedAt ? this.now().toISOString() : old.endedAt;
    this.db
      .prepare('UPDATE tasks SET status = ?, result = ?, result_documents = ?, answered_by = ?, error = ?, ended_at = ? WHERE id = ?')
      .run(next.status, next.result ?? null, next.resultDocuments ? JSON.stringify(next.resultDocuments) : null, next.answeredBy ?? null, next.error ?? null, ended ?? null, id);
    this.opts.onTasks?.(old.rootId);
    return this.task(id);
  }

  /** NOT_FOUND for an unknown id. */
  task(id: string): Task {
    const row = this.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
    if (!row) throw new AppError('NOT_FOUND', taskNotFound(id), { id });
    return toTask(row);
  }

  /** The task below `rootId` whose timeline is `conversationId`, if it is one. */
  taskOf(conversationId: string): Task | undefined {
    const row = this.db.prepare('SELECT * FROM tasks WHERE id = ?').get(conversationId) as TaskRow | undefined;
    return row ? toTask(row) : undefined;
  }

  /** Every task below a conversation, in the order they were made. */
  tasks(rootId: string): Task[] {
    return (this.db.prepare('SELECT * FROM tasks WHERE root_id = ? ORDER BY number').all(rootId) as TaskRow[]).map(toTask);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Newest activity first (ties: the later created first). With `q`: the conversations whose
   * title or a message's text holds it, any case; each found by a message says which (its
   * first such message, with a snippet).
   */
  list(query: ListQuery = {}): ConversationListItem[] {
    const limit = Math.min(Math.max(query.limit ?? DEFAULT_LIST_LIMIT, 1), 1000);
    const q = query.q?.trim();
    if (!q) {
      const rows = this.db.prepare(`${SELECT_CONVERSATION} WHERE ${NOT_A_TASK} ORDER BY c.updated_at DESC, c.rowid DESC LIMIT ?`).all(limit) as ConversationRow[];
      return rows.map(toConversation);
    }
    const folded = q.toLowerCase();
    const pattern = `%${escapeLike(folded)}%`;
    const rows = this.db
      .prepare(
        `${SELECT_CONVERSATION} WHERE ${NOT_A_TASK} AND (fold(c.title) LIKE @pattern ESCAPE '\\'
           OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.hidden = 0 AND (fold(m.text) LIKE @pattern ESCAPE '\\' OR fold(${CARD_VALUE}) LIKE @pattern ESCAPE '\\')))
         ORDER BY c.updated_at DESC, c.rowid DESC LIMIT @limit`,
      )
      .all({ pattern, limit }) as ConversationRow[];
    const firstMatch = this.db.prepare(
      `SELECT m.id, m.role, m.text, ${CARD_VALUE} AS value FROM messages m
       WHERE m.conversation_id = @id AND m.hidden = 0 AND (fold(m.text) LIKE @pattern ESCAPE '\\' OR fold(${CARD_VALUE}) LIKE @pattern ESCAPE '\\') ORDER BY m.seq LIMIT 1`,
    );
    return rows.map((r) => {
      const c: ConversationListItem = toConversation(r);
      if (r.title.toLowerCase().includes(folded)) return c;
      const m = firstMatch.get({ id: r.id, pattern }) as { id: string; role: Message['role']; text: string; value: unknown } | undefined;
      if (!m) return c;
      const text = m.text.toLowerCase().includes(folded) ? m.text : String(m.value ?? '');
      return { ...c, match: { messageId: m.id, role: m.role, snippet: snippetOf(text, folded) } };
    });
  }

  /** NOT_FOUND for an unknown id. */
  get(id: string): Conversation {
    const row = this.db.prepare(`${SELECT_CONVERSATION} WHERE c.id = ?`).get(id) as ConversationRow | undefined;
    if (!row) throw new AppError('NOT_FOUND', conversationNotFound(id), { id });
    return toConversation(row);
  }

  has(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM conversations WHERE id = ?').get(id) !== undefined;
  }

  /** `model`: the model it starts with (Settings' defaultModel). */
  create(title?: string, model?: ModelRef | null): Conversation {
    const at = this.now();
    const id = uuidv7({ msecs: at.getTime() });
    const given = title?.trim();
    this.db
      .prepare('INSERT INTO conversations (id, title, title_source, created_at, updated_at, model) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, given || DEFAULT_TITLE, given ? 'user' : 'default', at.toISOString(), at.toISOString(), json(model ?? undefined));
    this.changed(id, 'created');
    return this.get(id);
  }

  /**
   * A whole conversation at once (a conversation file read back): it, its context sections and
   * its messages in one transaction, so a refusal leaves nothing behind. New ids throughout;
   * the title is the user's.
   */
  importConversation(c: ImportedConversation): Conversation {
    const at = this.now();
    const id = uuidv7({ msecs: at.getTime() });
    const insertSection = this.db.prepare('INSERT INTO context_sections (conversation_id, position, id, title, text, enabled) VALUES (?, ?, ?, ?, ?, ?)');
    const insertMessage = this.db.prepare(
      `INSERT INTO messages (id, conversation_id, role, created_at, text, tool, outcomes, turn_id, model, usage, error, attachments) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const options = { ...(c.systemPrompt?.trim() ? { systemPrompt: c.systemPrompt } : {}), ...(c.params && Object.keys(c.params).length > 0 ? { params: c.params } : {}) };
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO conversations (id, title, title_source, created_at, updated_at, model, tools, extraction, options) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(id, c.title.trim(), 'user', at.toISOString(), at.toISOString(), json(c.model), json(c.tools), json(c.extraction), Object.keys(options).length > 0 ? JSON.stringify(options) : null);
      (c.contextSections ?? []).forEach((s, i) => insertSection.run(id, i, s.id, s.title, s.text, s.enabled ? 1 : 0));
      for (const m of c.messages) {
        const files = m.attachmentFiles?.length ? JSON.stringify(m.attachmentFiles) : null;
        insertMessage.run(uuidv7(), id, m.role, m.createdAt, m.text, json(m.tool), json(m.outcomes), m.turnId ?? null, json(m.model), json(m.usage), json(m.error), files);
      }
    })();
    this.changed(id, 'created');
    return this.get(id);
  }

  rename(id: string, title: string): Conversation {
    const r = this.db
      .prepare(`UPDATE conversations SET title = ?, title_source = 'user', updated_at = ? WHERE id = ?`)
      .run(title.trim(), this.now().toISOString(), id);
    if (r.changes === 0) throw new AppError('NOT_FOUND', conversationNotFound(id), { id });
    this.changed(id, 'renamed');
    return this.get(id);
  }

  /** The model the conversation talks to (null: none). NOT_FOUND for an unknown id. */
  setModel(id: string, model: ModelRef | null): Conversation {
    return this.setColumn(id, 'model', model);
  }

  /** Which tools its model may use (null: every enabled tool). NOT_FOUND for an unknown id. */
  setTools(id: string, tools: ToolSelection | null): Conversation {
    return this.setColumn(id, 'tools', tools);
  }

  /** Extraction thresholds over Settings' for its oversized outputs (null: Settings'). NOT_FOUND for an unknown id. */
  setExtraction(id: string, extraction: ExtractionOverrides | null): Conversation {
    const empty = !extraction || Object.values(extraction).every((v) => v === undefined);
    return this.setColumn(id, 'extraction', empty ? null : extraction);
  }

  /**
   * Its own system prompt and model parameters: a field given replaces the stored one (null, a
   * blank prompt or no parameters: none), one left undefined stays. Checked again here, so no
   * caller stores what the contract refuses (VALIDATION_FAILED, nothing written).
   */
  setOptions(id: string, patch: { systemPrompt?: string | null; params?: ModelParams | null }): Conversation {
    const old = this.get(id);
    const prompt = patch.systemPrompt === undefined ? old.systemPrompt : patch.systemPrompt;
    const params = patch.params === undefined ? old.params : patch.params;
    const checkedPrompt = SystemPromptSchema.nullish().safeParse(prompt);
    const checkedParams = ModelParamsSchema.nullish().safeParse(params);
    for (const [r, field] of [[checkedPrompt, 'systemPrompt'], [checkedParams, 'params']] as const) {
      if (!r.success) throw new AppError('VALIDATION_FAILED', r.error.issues.map((i) => i.message).join('; '), { field });
    }
    const cleanParams = Object.fromEntries(Object.entries(checkedParams.data ?? {}).filter(([, v]) => v !== undefined)) as ModelParams;
    const value = {
      ...(checkedPrompt.data?.trim() ? { systemPrompt: checkedPrompt.data } : {}),
      ...(Object.keys(cleanParams).length > 0 ? { params: cleanParams } : {}),
    };
    return this.setColumn(id, 'options', Object.keys(value).length > 0 ? value : null);
  }

  private setColumn(id: string, column: 'model' | 'tools' | 'extraction' | 'options', value: unknown): Conversation {
    const r = this.db.prepare(`UPDATE conversations SET ${column} = ?, updated_at = ? WHERE id = ?`).run(json(value ?? undefined), this.now().toISOString(), id);
    if (r.changes === 0) throw new AppError('NOT_FOUND', conversationNotFound(id), { id });
    this.changed(id, 'renamed');
    return this.get(id);
  }

  /**
   * Removes the conversation, its messages and its context sections (NOT_FOUND when unknown).
   * Its tasks' hidden conversations go with it, each told as deleted too, so what is kept
   * per conversation (stored outputs, remembered answers) goes with them.
   */
  delete(id: string): void {
    const { r, taskIds } = this.db.transaction(() => {
      const taskIds = (this.db.prepare(`SELECT t.id FROM tasks t JOIN conversations c ON c.id = t.id WHERE t.root_id = ?`).pluck().all(id) as string[]).filter((t) => t !== id);
      // Their task rows go by the cascade.
      this.db.prepare(`DELETE FROM conversations WHERE id IN (SELECT id FROM tasks WHERE root_id = ?)`).run(id);
      return { r: this.db.prepare('DELETE FROM conversations WHERE id = ?').run(id), taskIds };
    })();
    if (r.changes === 0) throw new AppError('NOT_FOUND', conversationNotFound(id), { id });
    for (const t of taskIds) this.changed(t, 'deleted');
    this.changed(id, 'deleted');
  }

  /** In the order they were added. */
  messages(conversationId: string): Message[] {
    this.get(conversationId);
    const rows = this.db
      .prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? AND hidden = 0 ORDER BY seq`)
      .all(conversationId) as MessageRow[];
    return rows.map(toMessage);
  }

  /** One attached file of a message of the conversation, with its bytes (an image's thumbnail). NOT_FOUND when there is none. */
  attachmentFile(conversationId: string, messageId: string, index: number): StoredAttachment {
    this.get(conversationId);
    const row = this.db.prepare('SELECT attachments FROM messages WHERE conversation_id = ? AND id = ?').get(conversationId, messageId) as { attachments: string | null } | undefined;
    const file = row ? storedAttachmentsOf(parseJson<unknown>(row.attachments))[index] : undefined;
    if (!file) throw new AppError('NOT_FOUND', attachmentNotFound(index + 1, messageId), { id: messageId });
    return file;
  }

  /** The messages with what only the model is given (prompts, tool calls as made), in order. */
  timeline(conversationId: string): TimelineRow[] {
    this.get(conversationId);
    const rows = this.db
      .prepare(`SELECT ${MESSAGE_COLUMNS}, prompt, tool_calls FROM messages WHERE conversation_id = ? AND hidden = 0 ORDER BY seq`)
      .all(conversationId) as MessageRow[];
    return rows.map((r) => {
      const m: TimelineRow = toMessage(r);
      if (typeof r.prompt === 'string') m.prompt = r.prompt;
      const files = storedAttachmentsOf(parseJson<unknown>(r.attachments ?? null));
      if (files.length) m.attachmentFiles = files;
      const calls = parseJson<TimelineRow['toolCalls']>(r.tool_calls ?? null);
      if (Array.isArray(calls)) m.toolCalls = calls;
      return m;
    });
  }

  /**
   * Adds messages in one transaction and answers them as stored, at the end of the branch
   * shown. `titleFrom`: the text a conversation still named by default takes its title from.
   * `forkAt`: a shown message of this conversation edited: it and the rows after it become a
   * branch kept aside, and these messages start a new branch in their place, the one shown
   * (told as a change of kind 'messages' without rows: whoever shows it reads it again).
   */
  addMessages(conversationId: string, messages: NewMessage[], opts: { titleFrom?: string; forkAt?: string } = {}): Message[] {
    const at = this.now().toISOString();
    const insert = this.db.prepare(
      `INSERT INTO messages (id, conversation_id, role, created_at, text, tool, outcomes, turn_id, model, usage, error, prompt, tool_calls, attachments, fork_id, branch)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let retitled = false;
    const stored = this.db.transaction(() => {
      if (!this.has(conversationId)) throw new AppError('NOT_FOUND', conversationNotFound(conversationId), { id: conversationId });
      if (opts.forkAt !== undefined) this.fork(conversationId, opts.forkAt);
      const leaf = this.shownBranches(conversationId).at(-1)!;
      const out = messages.map(({ prompt, toolCalls, attachmentFiles, attachments: _shown, ...m }) => {
        const msg: Message = { ...m, id: m.id ?? uuidv7(), conversationId, createdAt: m.createdAt ?? at, ...(attachmentFiles?.length ? { attachments: shownAttachments(attachmentFiles) } : {}) };
        insert.run(
          msg.id,
          conversationId,
          msg.role,
          msg.createdAt,
          msg.text,
          json(msg.tool),
          json(msg.outcomes),
          msg.turnId ?? null,
          json(msg.model),
          json(msg.usage),
          json(msg.error),
          prompt ?? null,
          json(toolCalls),
          attachmentFiles?.length ? JSON.stringify(attachmentFiles) : null,
          leaf.fork,
          leaf.branch,
        );
        return msg;
      });
      const title = opts.titleFrom === undefined ? '' : titleOf(opts.titleFrom);
      if (title) {
        retitled =
          this.db
            .prepare(`UPDATE conversations SET title = ?, title_source = 'auto' WHERE id = ? AND title_source = 'default'`)
            .run(title, conversationId).changes > 0;
      }
      this.db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(at, conversationId);
      return out;
    })();
    if (retitled) this.changed(conversationId, 'renamed');
    if (opts.forkAt !== undefined) this.changed(conversationId, 'messages');
    else this.opts.onChange?.({ conversationId, kind: 'messages', messages: stored, conversation: this.get(conversationId) });
    return stored;
  }

  /**
   * Which version of an edited message is shown (and given to the model): `messageId` is the
   * first row of the branch shown now (a BranchPoint's), `branch` the one to show (from 0).
   * NOT_FOUND for a message not shown; VALIDATION_FAILED when it has no versions or no such one.
   */
  switchBranch(conversationId: string, messageId: string, branch: number): Message[] {
    this.db.transaction(() => {
      if (!this.has(conversationId)) throw new AppError('NOT_FOUND', conversationNotFound(conversationId), { id: conversationId });
      const row = this.shownRow(conversationId, messageId);
      if (row.fork_id === null || !this.isFirstOfBranch(conversationId, row)) throw new AppError('VALIDATION_FAILED', notABranchPoint(messageId), { field: 'messageId' });
      const fork = this.db.prepare('SELECT branches FROM message_forks WHERE id = ?').get(row.fork_id) as { branches: number };
      if (!Number.isInteger(branch) || branch < 0 || branch >= fork.branches) throw new AppError('VALIDATION_FAILED', noSuchBranch(branch, fork.branches), { field: 'branch' });
      this.db.prepare('UPDATE message_forks SET current = ? WHERE id = ?').run(branch, row.fork_id);
      this.showBranches(conversationId);
      this.db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(this.now().toISOString(), conversationId);
    })();
    this.changed(conversationId, 'messages');
    return this.messages(conversationId);
  }

  /** The edited messages of the branch shown: each the first row of its version, which version, of how many. */
  branchPoints(conversationId: string): BranchPoint[] {
    this.get(conversationId);
    const first = this.db.prepare('SELECT id FROM messages WHERE conversation_id = ? AND fork_id = ? AND branch = ? ORDER BY seq LIMIT 1').pluck();
    const out: BranchPoint[] = [];
    for (const f of this.forkPath(conversationId)) {
      const id = first.get(conversationId, f.id, f.current) as string | undefined;
      if (id !== undefined) out.push({ messageId: id, index: f.current, count: f.branches });
    }
    return out;
  }

  /** A shown row of the conversation, with where it is (NOT_FOUND otherwise). */
  private shownRow(conversationId: string, messageId: string): { seq: number; fork_id: string | null; branch: number | null } {
    const row = this.db.prepare('SELECT seq, fork_id, branch FROM messages WHERE conversation_id = ? AND id = ? AND hidden = 0').get(conversationId, messageId) as
      | { seq: number; fork_id: string | null; branch: number | null }
      | undefined;
    if (!row) throw new AppError('NOT_FOUND', messageNotFound(messageId), { id: messageId });
    return row;
  }

  private isFirstOfBranch(conversationId: string, row: { seq: number; fork_id: string | null; branch: number | null }): boolean {
    return this.db.prepare('SELECT 1 FROM messages WHERE conversation_id = ? AND fork_id IS ? AND branch IS ? AND seq < ?').get(conversationId, row.fork_id, row.branch, row.seq) === undefined;
  }

  /**
   * Forks at a shown message: when it begins a branch already, its fork gets one more; otherwise
   * it and the rest of its branch (with the fork below it, if any) become branch 0 of a new fork
   * from that branch. Either way the new, empty branch is the one shown. Inside a transaction.
   */
  private fork(conversationId: string, messageId: string): void {
    const row = this.shownRow(conversationId, messageId);
    if (row.fork_id !== null && this.isFirstOfBranch(conversationId, row)) {
      this.db.prepare('UPDATE message_forks SET current = branches, branches = branches + 1 WHERE id = ?').run(row.fork_id);
    } else {
      const id = uuidv7();
      this.db.prepare('UPDATE message_forks SET parent_fork = ?, parent_branch = 0 WHERE conversation_id = ? AND parent_fork IS ? AND parent_branch IS ?').run(id, conversationId, row.fork_id, row.branch);
      this.db
        .prepare('INSERT INTO message_forks (id, conversation_id, parent_fork, parent_branch, branches, current) VALUES (?, ?, ?, ?, 2, 1)')
        .run(id, conversationId, row.fork_id, row.branch);
      this.db.prepare('UPDATE messages SET fork_id = ?, branch = 0 WHERE conversation_id = ? AND fork_id IS ? AND branch IS ? AND seq >= ?').run(id, conversationId, row.fork_id, row.branch, row.seq);
    }
    this.showBranches(conversationId);
  }

  private forks(conversationId: string): ForkRow[] {
    return this.db.prepare('SELECT id, parent_fork, parent_branch, branches, current FROM message_forks WHERE conversation_id = ?').all(conversationId) as ForkRow[];
  }

  /** The forks on the way down the branches shown, from the trunk. */
  private forkPath(conversationId: string): ForkRow[] {
    const forks = this.forks(conversationId);
    const path: ForkRow[] = [];
    let at: { fork: string | null; branch: number | null } = { fork: null, branch: null };
    for (;;) {
      const next = forks.find((f) => f.parent_fork === at.fork && f.parent_branch === at.branch);
      if (!next || path.includes(next)) return path;
      path.push(next);
      at = { fork: next.id, branch: next.current };
    }
  }

  /** The branches shown, from the trunk to the one new rows go to (the last). */
  private shownBranches(conversationId: string): { fork: string | null; branch: number | null }[] {
    return [{ fork: null, branch: null }, ...this.forkPath(conversationId).map((f) => ({ fork: f.id, branch: f.current }))];
  }

  /** Marks the rows of the branches shown as shown, every other row as hidden. Inside a transaction. */
  private showBranches(conversationId: string): void {
    this.db.prepare('UPDATE messages SET hidden = 1 WHERE conversation_id = ?').run(conversationId);
    const show = this.db.prepare('UPDATE messages SET hidden = 0 WHERE conversation_id = ? AND fork_id IS ? AND branch IS ?');
    for (const b of this.shownBranches(conversationId)) show.run(conversationId, b.fork, b.branch);
  }

  /** The forks below a branch, at any depth (with their branches' rows, what a cut there removes). */
  private forksBelow(conversationId: string, fork: string | null, branch: number | null): string[] {
    const forks = this.forks(conversationId);
    const out: string[] = [];
    const walk = (f: string | null, b: number | null) => {
      for (const c of forks) {
        if (c.parent_fork !== f || c.parent_branch !== b || out.includes(c.id)) continue;
        out.push(c.id);
        for (let i = 0; i < c.branches; i++) walk(c.id, i);
      }
    };
    walk(fork, branch);
    return out;
  }

  /**
   * Removes a conversation's shown messages from `messageId` on (`inclusive`) or after it, with
   * every version of an edited message among them: how an answer is asked again (cut, not
   * forked). A title made from the messages is made again by the next one when none are left.
   * NOT_FOUND when the message is not a shown one of this conversation. Answers how many rows went.
   */
  truncate(conversationId: string, messageId: string, opts: { inclusive: boolean }): number {
    const removed = this.db.transaction(() => {
      if (!this.has(conversationId)) throw new AppError('NOT_FOUND', conversationNotFound(conversationId), { id: conversationId });
      const row = this.shownRow(conversationId, messageId);
      const below = this.forksBelow(conversationId, row.fork_id, row.branch);
      let n = this.db
        .prepare(`DELETE FROM messages WHERE conversation_id = ? AND fork_id IS ? AND branch IS ? AND seq ${opts.inclusive ? '>=' : '>'} ?`)
        .run(conversationId, row.fork_id, row.branch, row.seq).changes;
      const dropRows = this.db.prepare('DELETE FROM messages WHERE conversation_id = ? AND fork_id = ?');
      const dropFork = this.db.prepare('DELETE FROM message_forks WHERE id = ?');
      for (const f of below) {
        n += dropRows.run(conversationId, f).changes;
        dropFork.run(f);
      }
      const left = (this.db.prepare('SELECT count(*) AS n FROM messages WHERE conversation_id = ?').get(conversationId) as { n: number }).n;
      if (left === 0) this.db.prepare(`UPDATE conversations SET title_source = 'default' WHERE id = ? AND title_source = 'auto'`).run(conversationId);
      this.db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(this.now().toISOString(), conversationId);
      return n;
    })();
    // Without the rows: whoever shows the conversation reads it again.
    this.changed(conversationId, 'messages');
    return removed;
  }

  contextSections(conversationId: string): ContextSection[] {
    this.get(conversationId);
    const rows = this.db
      .prepare('SELECT id, title, text, enabled FROM context_sections WHERE conversation_id = ? ORDER BY position')
      .all(conversationId) as { id: string; title: string; text: string; enabled: number }[];
    return rows.map((r) => ({ id: r.id, title: r.title, text: r.text, enabled: r.enabled === 1 }));
  }

  /** Replaces the conversation's sections with these, in this order. */
  setContext(conversationId: string, sections: ContextSection[]): ContextSection[] {
    const seen = new Set<string>();
    for (const s of sections) {
      if (seen.has(s.id)) throw new AppError('VALIDATION_FAILED', duplicateSectionId(s.id), { field: 'sections', id: s.id });
      seen.add(s.id);
    }
    const insert = this.db.prepare('INSERT INTO context_sections (conversation_id, position, id, title, text, enabled) VALUES (?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      if (!this.has(conversationId)) throw new AppError('NOT_FOUND', conversationNotFound(conversationId), { id: conversationId });
      this.db.prepare('DELETE FROM context_sections WHERE conversation_id = ?').run(conversationId);
      sections.forEach((s, i) => insert.run(conversationId, i, s.id, s.title, s.text, s.enabled ? 1 : 0));
      this.db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(this.now().toISOString(), conversationId);
    })();
    this.changed(conversationId, 'context');
    return this.contextSections(conversationId);
  }

  private now(): Date {
    return this.opts.now();
  }

  private changed(conversationId: string, kind: ConversationChange['kind']): void {
    this.opts.onChange?.({ conversationId, kind });
  }
}

/** What a search reads of a tool card beside its row's text: its value (text, or its JSON). */
const CARD_VALUE = `(CASE WHEN m.tool IS NOT NULL AND json_valid(m.tool) THEN json_extract(m.tool, '$.value') END)`;

/** The conversations a person started (tasks' hidden conversations are not listed). */
const NOT_A_TASK = 'c.id NOT IN (SELECT id FROM tasks)';

interface ForkRow {
  id: string;
  parent_fork: string | null;
  parent_branch: number | null;
  branches: number;
  current: number;
}

interface TaskRow {
  id: string;
  root_id: string;
  parent_id: string;
  number: number;
  kind: Task['kind'];
  agent: string;
  status: Task['status'];
  request: string;
  documents: string;
  result: string | null;
  result_documents: string | null;
  answered_by: string | null;
  depth: number;
  invocation_id: string;
  created_at: string;
  ended_at: string | null;
  error: string | null;
}

function toTask(r: TaskRow): Task {
  const resultDocuments = parseJson<string[]>(r.result_documents);
  return {
    id: r.id,
    rootId: r.root_id,
    parentId: r.parent_id,
    number: r.number,
    kind: r.kind,
    agent: r.agent,
    status: r.status,
    request: r.request,
    documents: parseJson<string[]>(r.documents) ?? [],
    ...(r.result !== null ? { result: r.result } : {}),
    ...(resultDocuments ? { resultDocuments } : {}),
    ...(r.answered_by !== null ? { answeredBy: r.answered_by } : {}),
    depth: r.depth,
    invocationId: r.invocation_id,
    createdAt: r.created_at,
    ...(r.ended_at !== null ? { endedAt: r.ended_at } : {}),
    ...(r.error !== null ? { error: r.error } : {}),
  };
}

/** Characters of context either side of a search match in a snippet. */
const SNIPPET_CONTEXT = 60;

/** The text around the first place `folded` (lower case) is in it, on one line, `…` where cut. */
export function snippetOf(text: string, folded: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const at = flat.toLowerCase().indexOf(folded);
  if (at === -1) return flat.length <= SNIPPET_CONTEXT * 2 ? flat : `${flat.slice(0, SNIPPET_CONTEXT * 2).trimEnd()}…`;
  const start = Math.max(0, at - SNIPPET_CONTEXT);
  const end = Math.min(flat.length, at + folded.length + SNIPPET_CONTEXT);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The first non-empty line, cut to a title's length. */
function titleOf(text: string): string {
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '') ?? '';
  const max = Math.min(AUTO_TITLE_MAX_CHARS, TITLE_MAX);
  if (line.length <= max) return line;
  return `${line.slice(0, max - 1).trimEnd()}…`;
}

function json(v: unknown): string | null {
  return v === undefined ? null : JSON.stringify(v);
}

/** A stored JSON column that no longer parses is dropped rather than failing the whole conversation. */
function parseJson<T>(text: string | null): T | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function toConversation(r: ConversationRow): Conversation {
  const model = parseJson<Conversation['model']>(r.model);
  const tools = parseJson<Conversation['tools']>(r.tools);
  const extraction = ExtractionOverridesSchema.safeParse(parseJson<unknown>(r.extraction ?? null));
  const options = parseJson<{ systemPrompt?: unknown; params?: unknown }>(r.options ?? null);
  const systemPrompt = SystemPromptSchema.safeParse(options?.systemPrompt);
  const params = ModelParamsSchema.safeParse(options?.params);
  return {
    id: r.id,
    title: r.title,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    messageCount: r.message_count,
    ...(model ? { model } : {}),
    ...(tools ? { tools } : {}),
    ...(extraction.success && extraction.data ? { extraction: extraction.data } : {}),
    ...(systemPrompt.success && systemPrompt.data ? { systemPrompt: systemPrompt.data } : {}),
    ...(params.success && options?.params ? { params: params.data } : {}),
  };
}

function toMessage(r: MessageRow): Message {
  const tool = parseJson<Message['tool']>(r.tool);
  const outcomes = parseJson<Message['outcomes']>(r.outcomes);
  const model = parseJson<Message['model']>(r.model);
  const usage = parseJson<Message['usage']>(r.usage);
  const error = parseJson<Message['error']>(r.error);
  const files = storedAttachmentsOf(parseJson<unknown>(r.attachments ?? null));
  return {
    id: r.id,
    conversationId: r.conversation_id,
    role: r.role,
    createdAt: r.created_at,
    text: r.text,
    ...(tool ? { tool } : {}),
    ...(outcomes ? { outcomes } : {}),
    ...(r.turn_id ? { turnId: r.turn_id } : {}),
    ...(model ? { model } : {}),
    ...(usage ? { usage } : {}),
    ...(error ? { error } : {}),
    ...(files.length ? { attachments: shownAttachments(files) } : {}),
  };
}
