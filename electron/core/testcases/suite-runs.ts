/**
 * Suites started from a window ('testcases.runSuite'), each under the run id its caller chose,
 * so another call ('testcases.cancelSuite') can stop it: the cases not started yet are then
 * reported as not run. The app's close stops them all.
 */
import { AppError } from '../../../shared/errors';
import type { SuiteProgress, SuiteResult } from '../../../shared/model/testcase';
import type { SuiteOptions } from './run-suite';

export class SuiteRuns {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly runSuite: (options: SuiteOptions) => Promise<SuiteResult>) {}

  /** Runs a suite under `runId`; a second suite under an id that is still running is refused. */
  async run(runId: string, options: { bundles: SuiteOptions['bundles']; onProgress?: (p: SuiteProgress) => void; signal?: AbortSignal }): Promise<SuiteResult> {
    if (this.running.has(runId)) throw new AppError('CONFLICT', `a test suite with the run id '${runId}' is already running`, { runId });
    const ctrl = new AbortController();
    const onCallerAbort = () => ctrl.abort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (options.signal?.aborted) ctrl.abort();
    this.running.set(runId, ctrl);
    try {
      return await this.runSuite({ bundles: options.bundles, signal: ctrl.signal, onProgress: options.onProgress });
    } finally {
      this.running.delete(runId);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Asks the suite to stop; false when no suite runs under that id (it may have just ended). */
  cancel(runId: string): boolean {
    const ctrl = this.running.get(runId);
    if (!ctrl) return false;
    ctrl.abort();
    return true;
  }

  cancelAll(): void {
    for (const ctrl of this.running.values()) ctrl.abort();
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }
}
