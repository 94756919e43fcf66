/**
 * Suites started from a window ('testcases.runSuite'), each under the run id its caller chose,
 * so another call ('testcases.cancelSuite') can stop it: the cases not started yet are then
 * reported as not run. Each keeps the steps it has told, so a window opened while it runs (a
 * reload, another tab) can follow it from where it is ('testcases.runningSuites'). The app's
 * close stops them all.
 */
import { AppError } from '../../../shared/errors';
import type { RunningSuite, SuiteProgress, SuiteResult } from '../../../shared/model/testcase';
import type { SuiteOptions } from './run-suite';

interface Running {
  ctrl: AbortController;
  bundleIds: string[] | null;
  startedAt: string;
  progress: SuiteProgress[];
}

export interface SuiteRunOptions {
  bundles: SuiteOptions['bundles'];
  /** The bundles the caller named (null: every bundle switched on), as other windows are told. */
  bundleIds?: readonly string[] | null;
  /** Each step, with its place in the suite's list of steps. */
  onProgress?: (p: SuiteProgress, seq: number) => void;
  signal?: AbortSignal;
}

export class SuiteRuns {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly runSuite: (options: SuiteOptions) => Promise<SuiteResult>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Runs a suite under `runId`; a second suite under an id that is still running is refused. */
  async run(runId: string, options: SuiteRunOptions): Promise<SuiteResult> {
    if (this.running.has(runId)) throw new AppError('CONFLICT', `a test suite with the run id '${runId}' is already running`, { runId });
    const ctrl = new AbortController();
    const onCallerAbort = () => ctrl.abort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (options.signal?.aborted) ctrl.abort();
    const entry: Running = { ctrl, bundleIds: options.bundleIds ? [...options.bundleIds] : null, startedAt: this.now().toISOString(), progress: [] };
    this.running.set(runId, entry);
    try {
      return await this.runSuite({
        bundles: options.bundles,
        signal: ctrl.signal,
        onProgress: (p) => {
          entry.progress.push(p);
          options.onProgress?.(p, entry.progress.length - 1);
        },
      });
    } finally {
      this.running.delete(runId);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Asks the suite to stop; false when no suite runs under that id (it may have just ended). */
  cancel(runId: string): boolean {
    const r = this.running.get(runId);
    if (!r) return false;
    r.ctrl.abort();
    return true;
  }

  cancelAll(): void {
    for (const r of this.running.values()) r.ctrl.abort();
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** The suites running now, oldest first, each with the steps told so far. */
  list(): RunningSuite[] {
    return [...this.running].map(([runId, r]) => ({ runId, bundleIds: r.bundleIds && [...r.bundleIds], startedAt: r.startedAt, progress: [...r.progress] }));
  }
}
