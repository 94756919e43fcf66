/**
 * The test suite run from the Tools screen: one at a time, kept for as long as the window
 * lives, so going to the Chat and back finds the report (and a suite still running goes on
 * reporting). The report follows the suite's progress events under its run id, and is
 * replaced by the suite's result when the call answers. A suite runs in the app, not the
 * window: a window opened while one runs (a reload) finds it and follows it (`attach`).
 */
import { v7 as uuidv7 } from 'uuid';
import { create } from 'zustand';
import type { ContractClient } from '../../../../shared/contract';
import type { ErrorInfo } from '../../../../shared/errors';
import type { EventPayload } from '../../../../shared/contract';
import type { RunningSuite } from '../../../../shared/model/testcase';
import { applyProgress, EMPTY_REPORT, fromResult, type SuiteReport } from './suite-report';

/** What a suite runs: one bundle's cases, several bundles' (a suite started by a script), or those of every bundle switched on. */
export type SuiteScope = { kind: 'all' } | { kind: 'bundle'; bundleId: string; name: string } | { kind: 'bundles'; bundleIds: string[]; names: string[] };

export interface SuiteRun {
  runId: string;
  scope: SuiteScope;
  report: SuiteReport;
  status: 'running' | 'done' | 'failed';
  /** Cancel was asked for. */
  cancelling: boolean;
  error?: ErrorInfo;
  /** Started elsewhere (another window, or before a reload): it ends when the app says so. */
  attached?: boolean;
}

/** An attached suite no longer running in the app, whose end this window did not hear (its connection dropped meanwhile). */
const endedUnheard: ErrorInfo = { code: 'UNAVAILABLE', message: 'the suite ended while this window was not connected: its last steps and its result were not received' };

interface SuiteRunState {
  run: SuiteRun | null;
  /** Starts a suite unless one is running; answers whether it started. `onSettled`: told when it ends, however it ends. */
  start(client: ContractClient, scope: SuiteScope, onSettled?: () => void): boolean;
  cancel(client: ContractClient): Promise<void>;
  /**
   * Follows a suite running in the app that this window did not start (it was reloaded, or
   * opened in another tab): its report so far, then its steps and its end. Answers whether one
   * was found. `scopeOf` names what the suite runs.
   */
  attach(client: ContractClient, scopeOf: (suite: RunningSuite) => Promise<SuiteScope>): Promise<boolean>;
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
      .call('testcases.runSuite', { runId, ...(scope.kind === 'bundle' ? { bundleIds: [scope.bundleId] } : scope.kind === 'bundles' ? { bundleIds: scope.bundleIds } : {}) })
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
    const r = await client.call('testcases.cancelSuite', { runId: run.runId }).catch(() => undefined);
    if (r?.ok && r.value.cancelled) return;
    // Not running any more, and this window never heard it end: say so rather than wait.
    if (run.attached && r?.ok && (await endIfGone(client, run.runId, set))) return;
    // The ask did not get through (or nothing was stopped yet): Cancel can be pressed again.
    set((st) => (st.run?.runId === run.runId && st.run.status === 'running' ? { run: { ...st.run, cancelling: false } } : st));
  },
  async attach(client, scopeOf) {
    const current = get().run;
    if (current?.status === 'running') {
      if (!current.attached) return false;
      // Followed from elsewhere: still running in the app? If not, it ended unheard.
      if (!(await endIfGone(client, current.runId, set))) return false;
    }
    // Steps and ends told while the list is on its way are kept, then replayed past the list.
    const early: EventPayload<'testcases.suiteProgress'>[] = [];
    const earlyDone: EventPayload<'testcases.suiteDone'>[] = [];
    const live: { follow?: (e: EventPayload<'testcases.suiteProgress'>) => void; finish?: (e: EventPayload<'testcases.suiteDone'>) => void; runId?: string } = {};
    const offProgress = client.on('testcases.suiteProgress', (e) => (live.follow ? live.follow(e) : early.push(e)));
    const offDone = client.on('testcases.suiteDone', (e) => (live.finish ? live.finish(e) : earlyDone.push(e)));
    const stop = () => {
      offProgress();
      offDone();
      if (live.runId !== undefined && listening.get(live.runId) === stop) listening.delete(live.runId);
    };
    let suite: RunningSuite | undefined;
    let scope: SuiteScope;
    try {
      const r = await client.call('testcases.runningSuites', {});
      suite = r.ok ? r.value.suites[0] : undefined;
      if (!suite) {
        stop();
        return false;
      }
      scope = await scopeOf(suite);
    } catch {
      stop();
      return false;
    }
    // This window started one of its own meanwhile: that is the one it shows.
    if (get().run?.status === 'running') {
      stop();
      return false;
    }
    const { runId } = suite;
    live.runId = runId;
    listening.set(runId, stop);
    let next = suite.progress.length;
    const mine = (f: (run: SuiteRun) => SuiteRun) => set((st) => (st.run?.runId === runId ? { run: f(st.run) } : st));
    set({ run: { runId, scope, report: suite.progress.reduce(applyProgress, EMPTY_REPORT), status: 'running', cancelling: false, attached: true } });
    const follow = (e: EventPayload<'testcases.suiteProgress'>) => {
      if (e.runId !== runId || e.seq < next) return;
      next = e.seq + 1;
      mine((run) => ({ ...run, report: applyProgress(run.report, e.progress) }));
    };
    const finish = (e: EventPayload<'testcases.suiteDone'>) => {
      if (e.runId !== runId) return;
      stop();
      mine((run) => (e.result ? { ...run, status: 'done', report: fromResult(e.result) } : { ...run, status: 'failed', error: e.error ?? { code: 'INTERNAL', message: 'the suite ended without a result' }, report: { ...run.report, finished: true } }));
    };
    live.follow = follow;
    live.finish = finish;
    for (const e of early) follow(e);
    for (const e of earlyDone) finish(e);
    return true;
  },
  clear() {
    if (get().run?.status !== 'running') set({ run: null });
  },
}));

/** Ends an attached run the app no longer lists as running; answers whether it was gone. */
/** What stops following each attached run (by run id): one that ended unheard is let go too. */
const listening = new Map<string, () => void>();

async function endIfGone(client: ContractClient, runId: string, set: (f: (st: SuiteRunState) => Partial<SuiteRunState>) => void): Promise<boolean> {
  const r = await client.call('testcases.runningSuites', {}).catch(() => undefined);
  if (!r?.ok || r.value.suites.some((x) => x.runId === runId)) return false;
  listening.get(runId)?.();
  set((st) => (st.run?.runId === runId && st.run.status === 'running' ? { run: { ...st.run, status: 'failed', error: endedUnheard, report: { ...st.run.report, finished: true } } } : st));
  return true;
}
