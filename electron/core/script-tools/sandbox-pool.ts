/**
 * The sandbox workers (./script-worker.ts): started on demand, one call at a time each, kept
 * while they have work and for a while after (the first one for as long as the core runs, so a
 * warm call finds one ready). A call waits when all `maxWorkers` are busy. A call made by a
 * running script (ctx.call of another script tool) never waits for one (it could wait for its own
 * caller): it may start one of `nestedWorkers` more (as many as calls nest deep: enough for a
 * chain of nested calls on its own), or fails at once saying so.
 *
 * The core's event loop is never blocked by a script: the script runs on another thread; what
 * reaches the core are messages. A script that does not stop when the worker's interrupt handler
 * or deadline says so (QuickJS busy in one long native step) is ended by terminating its worker
 * `graceMs` after its time limit or its cancel.
 */
import type { Worker } from 'node:worker_threads';
import { AppError } from '../../../shared/errors';
import { Deadlines, type DeadlineEntry } from '../invoke/deadlines';
import { MAX_SEQUENCE_DEPTH } from '../invoke/sequence';
import { startWorker } from '../lib/worker-entry';
import { FLAG_CANCEL, FLAG_POSTED, FLAG_WORDS, type FromWorker, type OpKind, type RunEnd, type RunRequest, type ToWorker } from './protocol';
import { quickjsWasm } from './wasm';

export type { RunRequest } from './protocol';

export type OpAnswer = { ok: true; json: string } | { ok: false; error: { code: AppError['code']; message: string } };

export interface RunHost {
  /** The call is being handed to its worker: its time limit runs from now there. */
  started?(): void;
  /** A ctx.fetch or ctx.call of the script: its payload (JSON) in, its answer out. */
  op(kind: OpKind, payload: string): Promise<OpAnswer>;
  onLog?(line: Extract<FromWorker, { t: 'log' }>['line']): void;
}

/**
 * How a call is cancelled: an AbortSignal, or the dispatcher's cheaper hook (BackendCall.onAbort),
 * which tells the listener at once when the call is aborted already and answers the unsubscribe.
 */
export type Cancellation = AbortSignal | { onAbort(listener: () => void): () => void };

function subscribe(c: Cancellation | undefined, listener: () => void): () => void {
  if (!c) return noop;
  if (!('addEventListener' in c)) return c.onAbort(listener);
  if (c.aborted) {
    listener();
    return noop;
  }
  c.addEventListener('abort', listener, { once: true });
  return () => c.removeEventListener('abort', listener);
}

const noop = () => undefined;

export interface PoolOptions {
  maxWorkers?: number;
  /** How long a worker beyond the first is kept idle. */
  idleMs?: number;
  /** How long after its time limit (or its cancel) a call's worker is terminated if it has not answered. */
  graceMs?: number;
  /** The worker thread's own heap (the engine's memory is the script's limit, apart from this). */
  workerHeapMb?: number;
  /** The worker module beside this file (tests start one that misbehaves on purpose). */
  workerName?: string;
  /** Workers that may be started beyond `maxWorkers` for nested calls (a script's ctx.call of a script). */
  nestedWorkers?: number;
}

/** What listens to a worker now: its start, then each call in turn. */
interface SlotListener {
  message(m: FromWorker): void;
  error(e: Error): void;
  exit(): void;
}

interface Slot {
  worker: Worker;
  /** The worker's listeners stay; they pass each event to this one. */
  listener: SlotListener | undefined;
  flag: Int32Array;
  ready: Promise<void>;
  /** `ready` has resolved. */
  started: boolean;
  busy: boolean;
  dead: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (e: unknown) => void;
  unsubscribe: () => void;
}

export const DEFAULT_MAX_WORKERS = 4;

export class SandboxPool {
  private readonly slots: Slot[] = [];
  private readonly waiters: Waiter[] = [];
  private nextCall = 1;
  private closed = false;
  /** The calls' last-resort deadlines: one ticking timer for all, none set and cleared per call. */
  private readonly deadlines = new Deadlines();
  private readonly opts: Required<PoolOptions>;
  /** Workers started and terminated (tests read them). */
  readonly counts = { started: 0, terminated: 0 };

  constructor(opts: PoolOptions = {}) {
    this.opts = {
      maxWorkers: opts.maxWorkers ?? DEFAULT_MAX_WORKERS,
      idleMs: opts.idleMs ?? 60_000,
      graceMs: opts.graceMs ?? 1000,
      workerHeapMb: opts.workerHeapMb ?? 256,
      workerName: opts.workerName ?? 'script-worker',
      nestedWorkers: opts.nestedWorkers ?? MAX_SEQUENCE_DEPTH,
    };
  }

  /** Workers alive now. */
  get size(): number {
    return this.slots.length;
  }

  run(req: RunRequest, host: RunHost, cancel?: Cancellation, opts: { nested?: boolean } = {}): Promise<RunEnd> {
    // The common case, without a promise step: a started worker is free.
    const idle = this.closed ? undefined : this.slots.find((s) => !s.busy && !s.dead && s.started);
    if (idle) {
      idle.busy = true;
      clearTimeout(idle.idleTimer);
      return this.runOn(idle, req, host, cancel);
    }
    return this.runWhenFree(req, host, cancel, !!opts.nested);
  }

  private async runWhenFree(req: RunRequest, host: RunHost, cancel: Cancellation | undefined, nested: boolean): Promise<RunEnd> {
    let cancelled = false;
    const stopWatching = subscribe(cancel, () => (cancelled = true));
    let slot: Slot;
    try {
      if (cancelled) return cancelledEnd([]);
      slot = await this.acquire(nested, cancel);
    } finally {
      stopWatching();
    }
    if (cancelled) {
      this.release(slot);
      return cancelledEnd([]);
    }
    return this.runOn(slot, req, host, cancel);
  }

  /** Ends every worker; calls still running end as UNAVAILABLE. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new AppError('UNAVAILABLE', 'script tools are shutting down'));
    await Promise.all(this.slots.splice(0).map((s) => this.terminate(s)));
  }

  private runOn(slot: Slot, req: RunRequest, host: RunHost, cancel: Cancellation | undefined): Promise<RunEnd> {
    const callId = this.nextCall;
    this.nextCall = this.nextCall >= 0x7fffffff ? 1 : this.nextCall + 1;
    return new Promise<RunEnd>((resolve) => {
      let settled = false;
      let unsubscribe: () => void = noop;
      const logs: RunEnd['logs'] = [];
      // The last resort: a worker that neither answers nor stops by itself is terminated.
      const lastResort: DeadlineEntry = {
        expire: () =>
          finish(
            {
              ok: false,
              error: { code: 'TIMEOUT', message: `the script did not stop at its time limit of ${req.limits.timeLimitMs} ms; its sandbox was ended`, details: { limit: 'time' } },
              logs,
            },
            true,
          ),
      };
      const finish = (end: RunEnd, drop: boolean) => {
        if (settled) return;
        settled = true;
        this.deadlines.clear(lastResort);
        slot.listener = undefined;
        unsubscribe();
        if (drop || slot.dead) this.drop(slot);
        else this.release(slot);
        resolve(end);
      };
      const onMessage = (m: FromWorker) => {
        if (m.t === 'op' && m.callId === callId) {
          host.op(m.kind, m.payload).then(
            (answer) => {
              if (!settled) this.post(slot, { t: 'op-result', callId, opId: m.opId, ...answer });
            },
            (e: unknown) => {
              const error = e instanceof AppError ? { code: e.code, message: e.message } : { code: 'INTERNAL' as const, message: (e as Error).message };
              if (!settled) this.post(slot, { t: 'op-result', callId, opId: m.opId, ok: false, error });
            },
          );
        } else if (m.t === 'log' && m.callId === callId) {
          logs.push(m.line);
          host.onLog?.(m.line);
        } else if (m.t === 'done' && m.callId === callId) {
          // The message is the end as it is (its other fields are not read): no copy made of it.
          finish(m, !!m.retire);
        }
      };
      const onError = (e: Error) => finish({ ok: false, error: { code: 'INTERNAL', message: `the script's sandbox failed: ${e.message}` }, logs }, true);
      const onExit = () => finish({ ok: false, error: { code: 'INTERNAL', message: "the script's sandbox stopped unexpectedly" }, logs }, true);
      let cancelSent = false;
      const onCancel = () => {
        if (settled || cancelSent) return;
        cancelSent = true;
        // Seen by the interrupt handler while the script computes, and by the worker while it waits.
        Atomics.store(slot.flag, FLAG_CANCEL, callId);
        this.post(slot, { t: 'cancel', callId });
        // A worker that does not answer the cancel within the grace is ended.
        this.deadlines.add(lastResort, this.opts.graceMs);
        lastResort.expire = () => finish(cancelledEnd(logs), true);
      };
      slot.listener = { message: onMessage, error: onError, exit: onExit };
      this.deadlines.add(lastResort, req.limits.timeLimitMs + this.opts.graceMs);
      host.started?.();
      this.post(slot, { t: 'run', callId, ...req });
      unsubscribe = subscribe(cancel, onCancel);
    });
  }

  private post(slot: Slot, m: ToWorker): void {
    if (slot.dead) return;
    slot.worker.postMessage(m);
    // An idle worker waits on this word for it (script-worker.ts).
    Atomics.add(slot.flag, FLAG_POSTED, 1);
    Atomics.notify(slot.flag, FLAG_POSTED);
  }

  private async acquire(nested: boolean, cancel: Cancellation | undefined): Promise<Slot> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'script tools are shutting down');
    const idle = this.slots.find((s) => !s.busy && !s.dead);
    if (idle) {
      idle.busy = true;
      clearTimeout(idle.idleTimer);
      await idle.ready;
      return idle;
    }
    if (nested && this.slots.length >= this.opts.maxWorkers + this.opts.nestedWorkers) {
      const all = this.opts.maxWorkers + this.opts.nestedWorkers;
      throw new AppError(
        'RATE_LIMITED',
        `all ${all} script sandboxes are busy (scripts waiting for the tools they called): this script, called by another tool, was not started; make fewer calls at once, or try again when the running scripts end`,
        { limit: 'workers', workers: all },
      );
    }
    if (this.slots.length < this.opts.maxWorkers || nested) {
      const slot = this.spawn();
      slot.busy = true;
      try {
        await slot.ready;
      } catch (e) {
        this.drop(slot);
        throw e;
      }
      return slot;
    }
    return new Promise<Slot>((resolve, reject) => {
      const w: Waiter = { resolve, reject, unsubscribe: noop };
      this.waiters.push(w);
      w.unsubscribe = subscribe(cancel, () => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new AppError('CANCELLED', 'cancelled while waiting for a free script sandbox'));
      });
    });
  }

  private spawn(): Slot {
    const flag = new Int32Array(new SharedArrayBuffer(4 * FLAG_WORDS));
    const worker = startWorker(import.meta.url, this.opts.workerName, { maxOldGenerationSizeMb: this.opts.workerHeapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 });
    // The worker never keeps the process alive; a running call's timer does.
    worker.unref();
    this.counts.started++;
    const slot: Slot = { worker, listener: undefined, flag, ready: Promise.resolve(), started: false, busy: false, dead: false, idleTimer: undefined };
    worker.on('message', (m: FromWorker) => slot.listener?.message(m));
    worker.on('error', (e: Error) => slot.listener?.error(e));
    slot.ready = new Promise<void>((resolve, reject) => {
      const done = (e?: Error) => {
        slot.listener = undefined;
        if (e) reject(e);
        else resolve();
      };
      const onMessage = (m: FromWorker) => {
        if (m.t === 'ready') {
          slot.started = true;
          done();
        }
        else if (m.t === 'init-failed') done(new AppError('UNAVAILABLE', `script tools cannot start their sandbox: ${m.message}`));
      };
      const onError = (e: Error) => done(new AppError('UNAVAILABLE', `script tools cannot start their sandbox: ${e.message}`));
      const onExit = () => done(new AppError('UNAVAILABLE', 'script tools cannot start their sandbox: it stopped at once'));
      slot.listener = { message: onMessage, error: onError, exit: onExit };
      quickjsWasm().then(
        (wasm) => worker.postMessage({ t: 'init', wasm, flag: flag.buffer as SharedArrayBuffer } satisfies ToWorker),
        (e: unknown) => done(new AppError('UNAVAILABLE', `script tools cannot load their engine (QuickJS): ${(e as Error).message}`)),
      );
    });
    slot.ready.catch(() => undefined);
    // A worker that dies is let go (a call running on it hears of it first).
    worker.once('exit', () => {
      slot.listener?.exit();
      if (!slot.dead) {
        slot.dead = true;
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots.splice(i, 1);
      }
    });
    this.slots.push(slot);
    return slot;
  }

  private release(slot: Slot): void {
    const next = this.waiters.shift();
    if (next) {
      next.unsubscribe();
      next.resolve(slot);
      return;
    }
    slot.busy = false;
    // The first worker stays; others go after a while without work.
    if (this.slots.indexOf(slot) > 0) {
      slot.idleTimer = setTimeout(() => {
        if (!slot.busy) this.drop(slot);
      }, this.opts.idleMs);
      slot.idleTimer.unref();
    }
  }

  /** Terminates a worker and, if calls wait, starts one for the first of them. */
  private drop(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void this.terminate(slot);
    const next = this.waiters.shift();
    if (next && !this.closed) {
      next.unsubscribe();
      const fresh = this.spawn();
      fresh.busy = true;
      fresh.ready.then(
        () => next.resolve(fresh),
        (e: unknown) => {
          this.drop(fresh);
          next.reject(e);
        },
      );
    }
  }

  private async terminate(slot: Slot): Promise<void> {
    if (slot.dead) return;
    slot.dead = true;
    clearTimeout(slot.idleTimer);
    this.counts.terminated++;
    await slot.worker.terminate().catch(() => undefined);
  }
}

function cancelledEnd(logs: RunEnd['logs']): RunEnd {
  return { ok: false, error: { code: 'CANCELLED', message: 'the script was cancelled' }, logs };
}
