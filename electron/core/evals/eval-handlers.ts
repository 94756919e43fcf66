/** Eval cases of a bundle, runs against models (started, followed, cancelled), saved runs and their comparison. */
import { AppError, toErrorInfo } from '../../../shared/errors';
import type { Bundle } from '../../../shared/model/bundle';
import type { EvalCase, EvalProgress, EvalRun } from '../../../shared/model/evals';
import { quote, violationError } from '../../../shared/model/validation';
import type { ToolStore } from '../bundles/tool-store';
import type { EventBus } from '../events';
import { RunsById } from '../lib/runs-by-id';
import type { Handler } from '../router';
import { bundlesToRun } from '../testcases/all-bundles';
import type { ConversationStore } from '../timeline/conversation-store';
import { compareRuns, shareResults } from './compare';
import { expectsTool, type EvalCaseStore } from './eval-case-store';
import { draftFromChat } from './from-chat';
import { modelKey, type EvalRunOptions } from './run-evals';
import type { EvalRunStore } from './run-store';
import { cannedResultsViolation } from './tool-refs';

type EvalOps =
  | 'evals.list'
  | 'evals.save'
  | 'evals.delete'
  | 'evals.fromChat'
  | 'evals.run'
  | 'evals.cancel'
  | 'evals.running'
  | 'evals.listRuns'
  | 'evals.getRun'
  | 'evals.deleteRun'
  | 'evals.compare';

export interface EvalHandlerDeps {
  cases: EvalCaseStore;
  saved: EvalRunStore;
  /** Runs and saves a run (the run ends when it is saved). */
  run: (o: EvalRunOptions) => Promise<EvalRun>;
  active: EvalRuns;
  toolStore: ToolStore;
  conversations: Pick<ConversationStore, 'get' | 'timeline'>;
  events: Pick<EventBus, 'emit'>;
}

/** The runs going on, by run id, so 'evals.cancel' can stop one and a window opened while one runs can follow it ('evals.running'). */
export type EvalRuns = RunsById<EvalProgress, { bundleIds: string[] | null; models: string[] }>;
export const evalRuns = (now?: () => Date): EvalRuns => new RunsById('an eval run', now);

/** How many earlier runs 'evals.compare' reads looking for the last one that shares a case. */
const LAST_RUN_LOOKBACK = 20;
/** The largest run (as JSON text) 'evals.done' carries; a larger one is read with 'evals.getRun'. */
export const MAX_EVENT_RUN_CHARS = 4 * 1024 * 1024;

const TOO_LARGE = Symbol('too large');

/** Whether the run is small enough to go with 'evals.done' (counting stops past the limit). */
export function fitsEvent(run: EvalRun): boolean {
  let chars = 0;
  try {
    JSON.stringify(run, (key: string, value: unknown) => {
      chars += key.length + (typeof value === 'string' ? value.length : 8);
      if (chars > MAX_EVENT_RUN_CHARS) throw TOO_LARGE;
      return value;
    });
    return true;
  } catch (e) {
    if (e === TOO_LARGE) return false;
    throw e;
  }
}

export function evalHandlers(d: EvalHandlerDeps): { [N in EvalOps]: Handler<N> } {
  return {
    'evals.list': async ({ bundleId, tool }) => {
      const bundle = d.toolStore.getBundle(bundleId);
      const cases = await d.cases.list(bundle.id);
      return tool ? cases.filter((c) => expectsTool(c, tool, bundle.slug)) : cases;
    },
    'evals.save': ({ bundleId, evalCase }) => {
      // Refuses a bundle that does not exist, and canned results no call could use, before anything is written.
      const bundle = d.toolStore.getBundle(bundleId);
      const bad = cannedResultsViolation({ results: evalCase.results ?? [] }, bundle, d.toolStore);
      if (bad) throw violationError(bad);
      return d.cases.save(bundleId, { ...evalCase, id: evalCase.id || undefined });
    },
    'evals.delete': async ({ bundleId, id }) => {
      await d.cases.delete(bundleId, id);
      return { deleted: true as const };
    },
    'evals.fromChat': async ({ conversationId, messageId, bundleId, save }) => {
      const made = draftFromChat({ conversations: d.conversations, store: d.toolStore }, { conversationId, messageId, ...(bundleId ? { bundleId } : {}) });
      if (!save) return made;
      return { ...made, saved: await d.cases.save(made.bundleId, made.draft) };
    },
    'evals.run': async ({ runId, bundleIds, caseIds, models, repeat, passRate, judge, timeoutMs }, ctx) => {
      const cases = await casesOf(d.cases, bundlesToRun(d.toolStore, bundleIds), caseIds);
      const tell = {
        signal: ctx.signal,
        onProgress: (progress: EvalProgress, seq: number) => d.events.emit('evals.progress', { runId, seq, progress }),
        // Saved by now (`run` runs and saves it). A large run is not carried by the event: a window reads it with 'evals.getRun'.
        onEnd: (end: { value: EvalRun } | { error: unknown }) =>
          d.events.emit('evals.done', 'error' in end ? { runId, error: toErrorInfo(end.error, 'evals.run') } : { runId, ...(fitsEvent(end.value) ? { run: end.value } : {}) }),
      };
      const options = {
        runId,
        cases,
        models,
        ...(repeat !== undefined ? { repeat } : {}),
        ...(passRate !== undefined ? { passRate } : {}),
        ...(judge ? { judge } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      };
      return d.active.start(runId, { bundleIds: bundleIds ?? null, models: models.map(modelKey) }, tell, (signal, onProgress) => d.run({ ...options, signal, onProgress }));
    },
    'evals.cancel': ({ runId }) => ({ cancelled: d.active.cancel(runId) }),
    'evals.running': () => ({ runs: d.active.list() }),
    'evals.listRuns': ({ limit }) => d.saved.list(limit),
    'evals.getRun': ({ runId }) => d.saved.get(runId),
    'evals.deleteRun': async ({ runId }) => {
      await d.saved.delete(runId);
      return { deleted: true as const };
    },
    'evals.compare': async ({ head, base }) => {
      const headRun = await d.saved.get(head.runId);
      let baseRun: EvalRun | undefined;
      if (base) baseRun = await d.saved.get(base.runId);
      else {
        for (const s of (await d.saved.list()).filter((r) => r.id !== headRun.id && r.startedAt <= headRun.startedAt).slice(0, LAST_RUN_LOOKBACK)) {
          const candidate = await d.saved.get(s.id).catch(() => undefined);
          if (candidate && shareResults(candidate, headRun, head.model)) {
            baseRun = candidate;
            break;
          }
        }
        if (!baseRun) throw new AppError('NOT_FOUND', 'no earlier saved run asked any of these cases of the same model: run them again to compare, or name the run to compare with', { runId: head.runId });
      }
      // A model named on one side only is the other side's too (compareRuns).
      return compareRuns({ run: baseRun, ...(base?.model ? { model: base.model } : {}) }, { run: headRun, ...(head.model ? { model: head.model } : {}) });
    },
  };
}

/** Each bundle's cases (only `caseIds` when given: one not found is NOT_FOUND); bundles without any are left out. */
async function casesOf(store: EvalCaseStore, bundles: readonly Bundle[], caseIds: readonly string[] | undefined): Promise<{ bundle: Bundle; cases: EvalCase[] }[]> {
  const wanted = caseIds ? new Set(caseIds) : undefined;
  const found = new Set<string>();
  const out: { bundle: Bundle; cases: EvalCase[] }[] = [];
  for (const bundle of bundles) {
    let cases = await store.list(bundle.id);
    if (wanted) cases = cases.filter((c) => wanted.has(c.id));
    for (const c of cases) found.add(c.id);
    if (cases.length) out.push({ bundle, cases });
  }
  if (wanted) {
    const missing = [...wanted].filter((id) => !found.has(id));
    if (missing.length) throw new AppError('NOT_FOUND', `no eval case ${missing.slice(0, 5).map(quote).join(', ')} in the bundles named; they may have been deleted`, { ids: missing });
  }
  return out;
}
