/**
 * One running invocation as the dispatcher keeps it (see dispatcher.ts): its deadline, its
 * cancellation, its log record, and the context a local function gets.
 */
import { AppError } from '../../../shared/errors';
import type { HttpExchange, InvocationRecord } from '../../../shared/model/invocation';
import type { ScriptLogLine } from '../../../shared/model/script-tool';
import type { ToolView } from '../../../shared/model/tool';
import type { DeadlineEntry, Lane } from './deadlines';
import type { InvokeOutcome, InvokeRequest } from './dispatcher';
import { PROGRESS_TIMEOUT_FACTOR, type CallProgress } from './progress';
import type { LocalToolContext } from './types';

/** How a call ends itself when it is aborted (timeout, cancel, the caller's signal). */
export interface CallEnds {
  abort(call: Call, reason: unknown): void;
}

/**
 * One running invocation. It is its own deadline entry, its own listener on the caller's
 * signal and its own log entry, so a call allocates this object and little else. Its
 * AbortController is made only when a back-end asks for the signal.
 */
export class Call implements DeadlineEntry {
  tool: ToolView | undefined = undefined;
  local = false;
  done = false;
  aborted = false;
  reason: unknown = undefined;
  attempts: number | undefined = undefined;
  http: HttpExchange | undefined = undefined;
  logs: ScriptLogLine[] | undefined = undefined;
  outcome: InvokeOutcome | undefined = undefined;
  resolve: (o: InvokeOutcome) => void = noop;
  reject: (e: unknown) => void = noop;
  /** Made at its back-end's first progress report (progress.ts). */
  progress: CallProgress | undefined = undefined;
  private controller: AbortController | undefined = undefined;
  private abortListeners: ((reason: unknown) => void)[] | undefined = undefined;
  // Its place among the dispatcher's deadlines (deadlines.ts), set here so every call has one shape.
  deadlineAt = 0;
  deadlineLane: Lane | null = null;
  deadlinePrev: DeadlineEntry | null = null;
  deadlineNext: DeadlineEntry | null = null;

  constructor(
    private readonly ends: CallEnds,
    readonly req: InvokeRequest,
    readonly id: string,
    readonly saved: boolean,
    /** The deadline's length; a local function that waits for the user may make it longer before it starts. */
    public timeoutMs: number,
    /** performance.now() at the start, for the duration. */
    readonly t0: number,
    /** Wall-clock start (ms or the injected clock's Date), turned into text only for the log. */
    private readonly startedAt: number | Date,
  ) {}

  get signal(): AbortSignal {
    let c = this.controller;
    if (!c) {
      c = this.controller = new AbortController();
      if (this.aborted) c.abort(this.reason);
    }
    return c.signal;
  }

  abort(reason: unknown): void {
    if (this.done || this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.abortListeners;
    this.abortListeners = undefined;
    if (listeners) {
      for (const f of listeners) {
        try {
          f(reason);
        } catch (e) {
          console.warn('an abort listener failed:', (e as Error).message);
        }
      }
    }
    this.ends.abort(this, reason);
  }

  /**
   * Tells `listener` when the call is aborted (at once when it already is), without making an
   * AbortSignal (whose listeners cost a quick call more than its own work); returns the function
   * that stops telling it.
   */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.aborted) {
      listener(this.reason);
      return noop;
    }
    if (this.done) return noop;
    (this.abortListeners ??= []).push(listener);
    return () => {
      const i = this.abortListeners?.indexOf(listener) ?? -1;
      if (i >= 0) this.abortListeners!.splice(i, 1);
    };
  }

  /** The call has its answer: its promise's resolvers and its signal are let go (the log may hold the call a while). */
  forgetCaller(): void {
    this.resolve = noop;
    this.reject = noop;
    this.controller = undefined;
    this.abortListeners = undefined;
  }

  /** The deadline passed. */
  expire(): void {
    const p = this.progress;
    const words = !p
      ? `within ${this.timeoutMs} ms`
      : p.capped
        ? `within ${this.timeoutMs * PROGRESS_TIMEOUT_FACTOR} ms (its limit of ${this.timeoutMs} ms starts again at each progress report, up to ${PROGRESS_TIMEOUT_FACTOR} times that in all)`
        : `within ${this.timeoutMs} ms of its last progress report`;
    this.abort(new AppError('TIMEOUT', `the tool did not finish ${words}`));
  }

  /** The caller's signal fired (the call is registered as the listener itself). */
  handleEvent(): void {
    this.abort(new AppError('CANCELLED', 'cancelled'));
  }

  toRecord(): InvocationRecord {
    const { tool, req } = this;
    const o = this.outcome!;
    return {
      id: o.invocationId,
      toolId: tool!.id,
      bundleId: tool!.bundleId,
      slug: tool!.slug,
      version: tool!.version,
      source: req.source,
      args: req.args,
      ok: o.ok,
      ...(o.ok ? { value: o.value } : { error: o.error }),
      startedAt: new Date(this.startedAt).toISOString(),
      durationMs: o.durationMs,
      attempts: o.attempts,
      ...(o.http ? { http: o.http } : {}),
      ...(o.logs ? { logs: o.logs } : {}),
    };
  }
}

const noop = () => undefined;

export function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof (x as PromiseLike<unknown> | null)?.then === 'function';
}

/** Every field of LocalToolContext, named: a field added there must be added here (this fails to compile otherwise). */
type ContextFields = 'workspaceDir' | 'signal' | 'now' | 'transport' | 'allowedHosts' | 'regexTimeLimitMs' | 'ownerId' | 'invocationId' | 'emit' | 'wrote';
const allContextFieldsCopied: [keyof LocalToolContext] extends [ContextFields] ? ([ContextFields] extends [keyof LocalToolContext] ? true : never) : never = true;
void allContextFieldsCopied;

/**
 * A local function's context: fields copied one by one (cheaper than a spread); the signal is
 * made when it is first read. A class, so its getter lives on the prototype: an object literal
 * with a getter makes a new accessor for every call.
 */
class CallContext implements LocalToolContext {
  readonly workspaceDir: string;
  readonly now: LocalToolContext['now'];
  readonly transport: LocalToolContext['transport'];
  readonly allowedHosts: LocalToolContext['allowedHosts'];
  readonly regexTimeLimitMs: LocalToolContext['regexTimeLimitMs'];
  readonly wrote: LocalToolContext['wrote'];
  readonly ownerId: LocalToolContext['ownerId'];
  readonly invocationId: string;
  readonly emit: LocalToolContext['emit'];

  constructor(
    base: Omit<LocalToolContext, 'signal'>,
    private readonly call: Call,
  ) {
    this.workspaceDir = base.workspaceDir;
    this.now = base.now;
    this.transport = base.transport;
    this.allowedHosts = base.allowedHosts;
    this.regexTimeLimitMs = base.regexTimeLimitMs;
    this.wrote = base.wrote;
    this.ownerId = call.req.ownerId;
    this.invocationId = call.id;
    this.emit = call.req.onEvent;
  }

  get signal(): AbortSignal {
    return this.call.signal;
  }
}

export function localContext(base: Omit<LocalToolContext, 'signal'>, call: Call): LocalToolContext {
  return new CallContext(base, call);
}
