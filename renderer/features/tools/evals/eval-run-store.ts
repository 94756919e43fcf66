/**
 * The eval run started from the Tools screen: one at a time, kept for as long as the window
 * lives (going to the Chat and back finds its report, and a run still going on goes on
 * reporting). It follows the run's progress events under its run id and ends with the saved
 * run the call answers. A run goes on in the app, not the window: a window opened while one
 * runs (a reload) finds it with 'evals.running' and follows it (`attach`).
 */
import { v7 as uuidv7 } from 'uuid';
import { create } from 'zustand';
import type { ContractClient, EventPayload, OpInput } from '../../../../shared/contract';
import type { ErrorInfo } from '../../../../shared/errors';
import type { EvalRun } from '../../../../shared/model/evals';
import { applyEvalProgress, EMPTY_LIVE, type LiveEval, type TableCase, type TableModel } from './eval-report';

export type EvalRunInput = Omit<OpInput<'evals.run'>, 'runId'>;

export interface EvalRunning {
  runId: string;
  /** The bundles it runs (null: every bundle switched on). */
  bundleIds: string[] | null;
  /** The models asked, by key (providerId/model), with their labels where known. */
  models: TableModel[];
  /** The cases asked, where known (a run this window started): their rows show before their results come. */
  cases: TableCase[];
  live: LiveEval;
  status: 'running' | 'done' | 'failed';
  cancelling: boolean;
  /** The saved run, once done. */
  result?: EvalRun;
  error?: ErrorInfo;
  /** Started elsewhere (another window, or before a reload). */
  attached?: boolean;
  /** What it was started with (a run this window started): "Run again" sends the same. */
  input?: EvalRunInput;
}

interface EvalRunState {
  run: EvalRunning | null;
  /** Starts a run unless one is going on; answers its id, or null. */
  start(client: ContractClient, input: EvalRunInput, shown: { models: TableModel[]; cases: TableCase[] }): string | null;
  /** Starts the finished run's input again; answers its id, or null. */
  again(client: ContractClient): string | null;
  cancel(client: ContractClient): Promise<void>;
  /** Follows a run going on in the app that this window did not start; answers whether one was found. */
  attach(client: ContractClient): Promise<boolean>;
  /** Forgets a finished run. */
  clear(): void;
}

const unavailable = (e: unknown): ErrorInfo => ({ code: 'UNAVAILABLE', message: (e as Error).message });

export const useEvalRun = create<EvalRunState>((set, get) => ({
  run: null,
  start(client, input, { models, cases }) {
    if (get().run?.status === 'running') return null;
    const runId = uuidv7();
    const mine = (f: (run: EvalRunning) => EvalRunning) => set((st) => (st.run?.runId === runId ? { run: f(st.run) } : st));
    set({ run: { runId, bundleIds: input.bundleIds ?? null, models, cases, live: EMPTY_LIVE, status: 'running', cancelling: false, input } });
    const off = client.on('evals.progress', (e) => {
      if (e.runId === runId) mine((run) => ({ ...run, live: applyEvalProgress(run.live, e.progress) }));
    });
    void client
      .call('evals.run', { ...input, runId })
      .catch((e: unknown) => ({ ok: false as const, error: unavailable(e) }))
      .then((r) => {
        off();
        mine((run) => (r.ok ? { ...run, status: 'done', result: r.value, models: r.value.models.map((m) => ({ key: m.key, label: m.label })) } : { ...run, status: 'failed', error: r.error }));
      });
    return runId;
  },
  again(client) {
    const run = get().run;
    if (!run?.input || run.status === 'running') return null;
    return get().start(client, run.input, { models: run.models, cases: run.cases });
  },
  async cancel(client) {
    const run = get().run;
    if (!run || run.status !== 'running' || run.cancelling) return;
    set({ run: { ...run, cancelling: true } });
    // The run's own answer ends it (its attempts not reached are not run); this only asks.
    const r = await client.call('evals.cancel', { runId: run.runId }).catch(() => undefined);
    if (r?.ok && r.value.cancelled) return;
    // Nothing was stopped (it had just ended, or the ask did not get through): Cancel can be pressed again.
    set((st) => (st.run?.runId === run.runId && st.run.status === 'running' ? { run: { ...st.run, cancelling: false } } : st));
  },
  async attach(client) {
    if (get().run?.status === 'running') return false;
    // Steps and ends told while the list is on its way are kept, then replayed past it.
    const early: EventPayload<'evals.progress'>[] = [];
    const earlyDone: EventPayload<'evals.done'>[] = [];
    const live: { follow?: (e: EventPayload<'evals.progress'>) => void; finish?: (e: EventPayload<'evals.done'>) => void } = {};
    const offProgress = client.on('evals.progress', (e) => (live.follow ? live.follow(e) : early.push(e)));
    const offDone = client.on('evals.done', (e) => (live.finish ? live.finish(e) : earlyDone.push(e)));
    const stop = () => {
      offProgress();
      offDone();
    };
    const r = await client.call('evals.running', {}).catch(() => undefined);
    const found = r?.ok ? r.value.runs[0] : undefined;
    // Nothing running, or this window started one of its own meanwhile.
    if (!found || get().run?.status === 'running') {
      stop();
      return false;
    }
    const { runId } = found;
    let next = found.progress.length;
    const mine = (f: (run: EvalRunning) => EvalRunning) => set((st) => (st.run?.runId === runId ? { run: f(st.run) } : st));
    set({
      run: {
        runId,
        bundleIds: found.bundleIds,
        models: found.models.map((key) => ({ key, label: key })),
        cases: [],
        live: found.progress.reduce(applyEvalProgress, EMPTY_LIVE),
        status: 'running',
        cancelling: false,
        attached: true,
      },
    });
    live.follow = (e) => {
      if (e.runId !== runId || e.seq < next) return;
      next = e.seq + 1;
      mine((run) => ({ ...run, live: applyEvalProgress(run.live, e.progress) }));
    };
    const done = (result: EvalRun) => mine((run) => ({ ...run, status: 'done', result, models: result.models.map((m) => ({ key: m.key, label: m.label })) }));
    const failed = (error: ErrorInfo) => mine((run) => ({ ...run, status: 'failed', error }));
    live.finish = (e) => {
      if (e.runId !== runId) return;
      stop();
      if (e.run) done(e.run);
      else if (e.error) failed(e.error);
      else {
        // A run too large to go with the event is saved: read it.
        void client
          .call('evals.getRun', { runId })
          .catch((err: unknown) => ({ ok: false as const, error: unavailable(err) }))
          .then((r) => (r.ok ? done(r.value) : failed(r.error)));
      }
    };
    for (const e of early) live.follow(e);
    for (const e of earlyDone) live.finish(e);
    return true;
  },
  clear() {
    if (get().run?.status !== 'running') set({ run: null });
  },
}));
