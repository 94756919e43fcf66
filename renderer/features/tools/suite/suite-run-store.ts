/**
 * The test suite run from the Tools screen: one at a time, kept for as long as the window
 * lives, so going to the Chat and back finds the report (and a suite still running goes on
 * reporting). The report follows the suite's progress events under its run id, and is
 * replaced by the suite's result when the call answers.
 */
import { v7 as uuidv7 } from 'uuid';
import { create } from 'zustand';
import type { ContractClient } from '../../../../shared/contract';
import type { ErrorInfo } from '../../../../shared/errors';
import { applyProgress, EMPTY_REPORT, fromResult, type SuiteReport } from './suite-report';

/** What a suite runs: one bundle's cases, or those of every bundle switched on. */
export type SuiteScope = { kind: 'all' } | { kind: 'bundle'; bundleId: string; name: string };

export interface SuiteRun {
  runId: string;
  scope: SuiteScope;
  report: SuiteReport;
  status: 'running' | 'done' | 'failed';
  /** Cancel was asked for. */
  cancelling: boolean;
  error?: ErrorInfo;
}

interface SuiteRunState {
  run: SuiteRun | null;
  /** Starts a suite unless one is running; answers whether it started. `onSettled`: told when it ends, however it ends. */
  start(client: ContractClient, scope: SuiteScope, onSettled?: () => void): boolean;
  cancel(client: ContractClient): Promise<void>;
  /** Forgets a finished report. */
  clear(): void;
}

export const useSuiteRun = create<SuiteRunState>((set, get) => ({
  run: null,
  start(client, scope, onSettled) {
    if (get().run?.status === 'running') return false;
    const runId = uuidv7();
    const mine = (f: (run: SuiteRun) => SuiteRun) => set((st) => (st.run?.runId === runId ? { run: f(st.run) } : st));
    set({ run: { runId, scope, report: EMPTY_REPORT, status: 'running', cancelling: false } });
    const off = client.on('testcases.suiteProgress', (e) => {
      if (e.runId === runId) mine((run) => ({ ...run, report: applyProgress(run.report, e.progress) }));
    });
    void client
      .call('testcases.runSuite', { runId, ...(scope.kind === 'bundle' ? { bundleIds: [scope.bundleId] } : {}) })
      .catch((e: unknown) => ({ ok: false as const, error: { code: 'UNAVAILABLE' as const, message: (e as Error).message } }))
      .then((r) => {
        off();
        mine((run) => (r.ok ? { ...run, status: 'done', report: fromResult(r.value) } : { ...run, status: 'failed', error: r.error, report: { ...run.report, finished: true } }));
        onSettled?.();
      });
    return true;
  },
  async cancel(client) {
    const run = get().run;
    if (!run || run.status !== 'running' || run.cancelling) return;
    set({ run: { ...run, cancelling: true } });
    // The suite's own answer ends the run; this only asks.
    await client.call('testcases.cancelSuite', { runId: run.runId }).catch(() => undefined);
  },
  clear() {
    if (get().run?.status !== 'running') set({ run: null });
  },
}));
