/**
 * Runs going on now, each under the run id its caller chose, so another call ('evals.cancel')
 * can stop it. Each keeps the steps it has told, so a window opened while it runs can follow
 * it ('evals.running'). The app's close stops them all.
 */
import { AppError } from '../../../shared/errors';
import type { EvalProgress, EvalRun, RunningEval } from '../../../shared/model/evals';
import type { EvalRunOptions } from './run-evals';

interface Running {
  ctrl: AbortController;
  bundleIds: string[] | null;
  models: string[];
  startedAt: string;
  progress: EvalProgress[];
  /** Settles when the run has ended, however. */
  done?: Promise<void>;
}

export type StartOptions = Omit<EvalRunOptions, 'onProgress' | 'signal'> & {
  bundleIds: readonly string[] | null;
  signal?: AbortSignal;
  onProgress?: (p: EvalProgress, seq: number) => void;
};

export class EvalRuns {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly run: (o: EvalRunOptions) => Promise<EvalRun>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Runs under `runId`; a second run under an id that is still running is refused. */
  async start(o: StartOptions): Promise<EvalRun> {
    if (this.running.has(o.runId)) throw new AppError('CONFLICT', `an eval run with the id '${o.runId}' is already running`, { runId: o.runId });
    const ctrl = new AbortController();
    const onCallerAbort = () => ctrl.abort();
    o.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (o.signal?.aborted) ctrl.abort();
    const entry: Running = { ctrl, bundleIds: o.bundleIds ? [...o.bundleIds] : null, models: o.models.map((m) => `${m.providerId}/${m.model}`), startedAt: this.now().toISOString(), progress: [] };
    this.running.set(o.runId, entry);
    const { bundleIds: _ids, onProgress, ...rest } = o;
    try {
      const run = this.run({
        ...rest,
        signal: ctrl.signal,
        onProgress: (p) => {
          entry.progress.push(p);
          onProgress?.(p, entry.progress.length - 1);
        },
      });
      entry.done = run.then(
        () => undefined,
        () => undefined,
      );
      return await run;
    } finally {
      this.running.delete(o.runId);
      o.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Asks a run to stop; false when none runs under that id. */
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

  list(): RunningEval[] {
    return [...this.running].map(([runId, r]) => ({ runId, startedAt: r.startedAt, bundleIds: r.bundleIds && [...r.bundleIds], models: [...r.models], progress: [...r.progress] }));
  }
}
