/**
 * Served tools run as MCP tasks, for the slow tools (./annotations.ts `servedTaskSupport`):
 * - MCP 2025-11-25: a client that asks (`tools/call` with `task`) gets a task at once, asks after
 *   it (`tasks/get`, `tasks/list`), fetches its result once it is done (`tasks/result` waits for
 *   it), and may cancel it (`tasks/cancel`);
 * - the tasks extension of 2026-07-28: a client that declares it gets a task for such a call
 *   (`resultType: "task"`), asks after it with `tasks/get`, whose answer carries the result (or
 *   the JSON-RPC error) once it is done (`detailed`), and may cancel it (`tasks/cancel`). A
 *   task may wait for its client (`input_required`, its questions in `inputRequests`), which
 *   answers with `tasks/update`.
 * A task belongs to the session that created it. A finished task is kept for its time to live
 * (what the client asked, within bounds), then forgotten; a session's tasks are cancelled and
 * forgotten when it ends.
 */
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import { v7 as uuidv7 } from 'uuid';

/** The tasks extension of MCP 2026-07-28 (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A question a task asks its client (2026-07-28): a request the client answers, e.g. `elicitation/create`. */
export interface TaskInputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** Asks the task's client `request` under `key`; answers what the client sent, or undefined when the task ended first. */
export type AskClient = (key: string, request: TaskInputRequest) => Promise<unknown>;

/** A task still running (working, or waiting for its client). */
const running = (status: TaskStatus) => status === 'working' || status === 'input_required';

/** A task as 2025-11-25 shows it. */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  ttl: number;
  createdAt: string;
  lastUpdatedAt: string;
  pollInterval: number;
  statusMessage?: string;
}

/** A task as the tasks extension of 2026-07-28 shows it (tasks/get): once done, its result or its error. */
export interface DetailedTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: CallToolResult;
  error?: { code: number; message: string };
  inputRequests?: Record<string, TaskInputRequest>;
}

/** How often a client is told to ask (ms). */
export const TASK_POLL_INTERVAL_MS = 500;
/** How long a finished task is kept, at least and at most, whatever the client asks. */
export const TASK_TTL_MS = { min: 10_000, default: 10 * 60_000, max: 60 * 60_000 };
/** Tasks one session may have running at once, and kept in all (the oldest finished ones go first). */
export const MAX_RUNNING_TASKS = 16;
export const MAX_KEPT_TASKS = 100;

interface Entry {
  owner: string;
  view: TaskView;
  abort: AbortController;
  done: Promise<CallToolResult>;
  /** What the call gave once it ended: its result, or the error it threw (as JSON-RPC says it). */
  result?: CallToolResult;
  error?: { code: number; message: string };
  expiry?: ReturnType<typeof setTimeout>;
  /** The questions waiting for the client's answer, by key. */
  questions: Map<string, { request: TaskInputRequest; answer: (value: unknown) => void }>;
}

export class ServedTasks {
  private readonly tasks = new Map<string, Entry>();

  constructor(private readonly now: () => Date) {}

  /**
   * Starts `run` as a task of `owner`; answers its first view. `run` may say how far it got
   * (`report`: the task's status message) and ask its client (`ask`: the task is input_required
   * until every question is answered with `update`).
   */
  create(owner: string, ttlAsked: unknown, run: (signal: AbortSignal, report: (message: string) => void, ask: AskClient) => Promise<CallToolResult>): TaskView {
    const mine = [...this.tasks.values()].filter((t) => t.owner === owner);
    if (mine.filter((t) => running(t.view.status)).length >= MAX_RUNNING_TASKS) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `this session already has ${MAX_RUNNING_TASKS} tasks running: wait for one to finish or cancel one (tasks/cancel)`);
    }
    // Finished tasks beyond what a session keeps are forgotten, oldest first (their results with them).
    for (const old of mine.filter((t) => !running(t.view.status)).slice(0, Math.max(0, mine.length + 1 - MAX_KEPT_TASKS))) this.forget(old);
    const ttl = Math.min(TASK_TTL_MS.max, Math.max(TASK_TTL_MS.min, typeof ttlAsked === 'number' && Number.isFinite(ttlAsked) ? ttlAsked : TASK_TTL_MS.default));
    const at = this.now().toISOString();
    const abort = new AbortController();
    const view: TaskView = { taskId: uuidv7(), status: 'working', ttl, createdAt: at, lastUpdatedAt: at, pollInterval: TASK_POLL_INTERVAL_MS };
    const entry: Entry = { owner, view, abort, done: undefined as unknown as Promise<CallToolResult>, questions: new Map() };
    const report = (message: string) => {
      if (!running(entry.view.status) || !message) return;
      entry.view.statusMessage = message.slice(0, 500);
      entry.view.lastUpdatedAt = this.now().toISOString();
    };
    const ask: AskClient = (key, request) =>
      new Promise((answer) => {
        if (!running(entry.view.status)) return answer(undefined);
        entry.questions.get(key)?.answer(undefined);
        entry.questions.set(key, { request, answer });
        this.touch(entry, 'input_required');
      });
    entry.done = run(abort.signal, report, ask).then(
      (r) => {
        entry.result = r;
        this.finish(entry, abort.signal.aborted ? 'cancelled' : r.isError ? 'failed' : 'completed');
        return r;
      },
      (e: unknown) => {
        entry.error = { code: e instanceof ProtocolError ? e.code : ProtocolErrorCode.InternalError, message: (e as Error)?.message ?? String(e) };
        this.finish(entry, abort.signal.aborted ? 'cancelled' : 'failed', (e as Error)?.message);
        return { content: [{ type: 'text', text: `the task failed: ${(e as Error)?.message ?? String(e)}` }], isError: true } satisfies CallToolResult;
      },
    );
    this.tasks.set(view.taskId, entry);
    return { ...view };
  }

  get(owner: string, taskId: unknown): TaskView {
    return { ...this.entry(owner, taskId).view };
  }

  /**
   * The task as the 2026 extension shows it: a call that ended with a result is completed with
   * it (an isError result too); one that threw failed, with its error.
   */
  detailed(owner: string, taskId: unknown): DetailedTask {
    const e = this.entry(owner, taskId);
    const { ttl, pollInterval, status, ...rest } = e.view;
    const base = { ...rest, ttlMs: ttl, pollIntervalMs: pollInterval };
    if (status === 'input_required') return { ...base, status, inputRequests: Object.fromEntries([...e.questions].map(([k, q]) => [k, q.request])) };
    if (status === 'working' || status === 'cancelled') return { ...base, status };
    if (e.result) return { ...base, status: 'completed', result: e.result };
    return { ...base, status: 'failed', error: e.error ?? { code: ProtocolErrorCode.InternalError, message: rest.statusMessage ?? 'the task failed' } };
  }

  list(owner: string): TaskView[] {
    return [...this.tasks.values()].filter((t) => t.owner === owner).map((t) => ({ ...t.view }));
  }

  /**
   * The client's answers to the task's questions (2026 `tasks/update`), by key: each answered
   * question is taken off, and the task works again once none is left. Answers to no waiting
   * question, and answers to an ended task, are ignored.
   */
  update(owner: string, taskId: unknown, inputResponses: unknown): void {
    const e = this.entry(owner, taskId);
    if (typeof inputResponses !== 'object' || inputResponses === null || Array.isArray(inputResponses)) return;
    for (const [key, value] of Object.entries(inputResponses)) {
      const q = e.questions.get(key);
      if (!q) continue;
      e.questions.delete(key);
      q.answer(value);
    }
    if (e.view.status === 'input_required' && e.questions.size === 0) this.touch(e, 'working');
  }

  /** The task's result, once it is done. */
  result(owner: string, taskId: unknown): Promise<CallToolResult> {
    return this.entry(owner, taskId).done;
  }

  /** Cancels a running task; one that already ended is an error, unless `endedIsFine` (2026, where a cancel is only a wish). */
  cancel(owner: string, taskId: unknown, endedIsFine = false): TaskView {
    const e = this.entry(owner, taskId);
    if (!running(e.view.status) && endedIsFine) return { ...e.view };
    if (!running(e.view.status)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the task ${e.view.taskId} is already ${e.view.status}`);
    e.abort.abort(new Error('the client cancelled the task'));
    this.finish(e, 'cancelled', 'cancelled by the client');
    return { ...e.view };
  }

  /** A session ended (or, with no owner, serving was switched off): its running tasks are cancelled and all of its tasks forgotten. */
  endSession(owner?: string): void {
    for (const e of [...this.tasks.values()]) {
      if (owner !== undefined && e.owner !== owner) continue;
      e.abort.abort(new Error(owner === undefined ? 'serving was switched off' : 'the session ended'));
      for (const q of e.questions.values()) q.answer(undefined);
      e.questions.clear();
      this.forget(e);
    }
  }

  /** A running task waits for its client, or works again. */
  private touch(e: Entry, status: 'working' | 'input_required'): void {
    if (!running(e.view.status) || e.view.status === status) return;
    e.view.status = status;
    e.view.lastUpdatedAt = this.now().toISOString();
  }

  private forget(e: Entry): void {
    if (e.expiry) clearTimeout(e.expiry);
    this.tasks.delete(e.view.taskId);
  }

  private entry(owner: string, taskId: unknown): Entry {
    const e = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
    if (!e || e.owner !== owner) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no task ${String(taskId).slice(0, 100)} in this session (finished tasks are kept for their time to live)`);
    return e;
  }

  private finish(e: Entry, status: TaskStatus, message?: string): void {
    if (!running(e.view.status)) return;
    e.view.status = status;
    // Questions still waiting get no answer.
    for (const q of e.questions.values()) q.answer(undefined);
    e.questions.clear();
    e.view.lastUpdatedAt = this.now().toISOString();
    if (message) e.view.statusMessage = message.slice(0, 500);
    // Its time to live counts from its creation.
    const left = Date.parse(e.view.createdAt) + e.view.ttl - this.now().getTime();
    e.expiry = setTimeout(() => this.tasks.delete(e.view.taskId), Math.max(0, left));
    e.expiry.unref?.();
  }
}
