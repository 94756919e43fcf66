/**
 * Long runs going on now (a test suite, an eval run), each under the run id its caller chose, so
 * another call can stop it (`cancel`). Each keeps the steps it has told, numbered from 0, so a
 * window opened while it runs (a reload, another tab) can follow it from where it is (`list`).
 * The app's close stops them all (`cancelAll`, then `idle`).
 */
import { AppError } from '../../../shared/errors';

/** A run going on, as `list` tells it: what it was started with (`info`), when, and its steps so far. */
export type RunningView<P, I> = I & { runId: string; startedAt: string; progress: P[] };

export interface StartOptions<P, R> {
  /** The caller's signal: its abort stops the run. */
  signal?: AbortSignal;
  /** Each step, with its place in the run's list of steps. */
  onProgress?: (p: P, seq: number) => void;
  /** The run has ended (and left the list), with its result or its error; not called for a run refused at the start. */
  onEnd?: (end: { value: R } | { error: unknown }) => void;
}

interface Running<P, I> {
  ctrl: AbortController;
  info: I;
  startedAt: string;
  progress: P[];
  /** Settles when the run has ended, however. */
  done?: Promise<void>;
}

export class RunsById<P, I extends object = object> {
  private readonly running = new Map<string, Running<P, I>>();

  /** `label` names a run in messages: 'an eval run'. */
  constructor(
    private readonly label: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Runs `run` under `runId` with a signal that `cancel` (or the caller's signal) aborts and a
   * function that tells a step. A second run under an id that is still running is refused (CONFLICT).
   */
  async start<R>(runId: string, info: I, o: StartOptions<P, R>, run: (signal: AbortSignal, tell: (p: P) => void) => Promise<R>): Promise<R> {
    if (this.running.has(runId)) throw new AppError('CONFLICT', `${this.label} with the run id '${runId}' is already running`, { runId });
    const ctrl = new AbortController();
    const onCallerAbort = () => ctrl.abort();
    o.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (o.signal?.aborted) ctrl.abort();
    const entry: Running<P, I> = { ctrl, info, startedAt: this.now().toISOString(), progress: [] };
    this.running.set(runId, entry);
    let end: { value: R } | { error: unknown };
    try {
      const running = run(ctrl.signal, (p) => {
        entry.progress.push(p);
        o.onProgress?.(p, entry.progress.length - 1);
      });
      entry.done = running.then(
        () => undefined,
        () => undefined,
      );
      end = { value: await running };
    } catch (e) {
      end = { error: e };
    } finally {
      this.running.delete(runId);
      o.signal?.removeEventListener('abort', onCallerAbort);
    }
    o.onEnd?.(end);
    if ('error' in end) throw end.error;
    return end.value;
  }

  /** Asks a run to stop; false when none runs under that id (it may have just ended). */
  cancel(runId: string): boolean {
    const r = this.running.get(runId);
    if (!r) return false;
    r.ctrl.abort();
    return true;
  }

  cancelAll(): void {
    for (const r of this.running.values()) r.ctrl.abort();
  }

  /** Settles when no run is going on (after cancelAll: when each has stopped). */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** The runs going on, oldest first, each with the steps told so far (copies: the caller may keep them). */
  list(): RunningView<P, I>[] {
    return [...this.running].map(([runId, r]) => ({ ...structuredClone(r.info), runId, startedAt: r.startedAt, progress: [...r.progress] }));
  }
}
