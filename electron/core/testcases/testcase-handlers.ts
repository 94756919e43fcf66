/** Saved test cases of a tool, and running them against a saved version or the editor's draft, or those of whole bundles as a suite. */
import { AppError, toErrorInfo } from '../../../shared/errors';
import type { SuiteProgress, SuiteResult } from '../../../shared/model/testcase';
import { ToolPutBodySchema, type JsonSchemaObject } from '../../../shared/model/tool';
import { quote } from '../../../shared/model/validation';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { Handler } from '../router';
import type { ToolStore } from '../bundles/tool-store';
import { RunsById } from '../lib/runs-by-id';
import { bundlesToRun } from './all-bundles';
import type { SuiteOptions } from './run-suite';
import { runTestCases } from './run-tests';
import type { TestCaseStore } from './test-case-store';
import type { EventBus } from '../events';

type TestCaseOps = 'testcases.list' | 'testcases.save' | 'testcases.delete' | 'testcases.runAll' | 'testcases.runSuite' | 'testcases.cancelSuite' | 'testcases.runningSuites';

export interface TestCaseHandlerDeps {
  store: TestCaseStore;
  dispatcher: InvokeDispatcher;
  toolStore: ToolStore;
  /** Runs a suite (Core.runTestSuite). */
  runSuite: (options: SuiteOptions) => Promise<SuiteResult>;
  suites: SuiteRuns;
  events: Pick<EventBus, 'emit'>;
}

/**
 * The suites started from a window ('testcases.runSuite'), by run id, so 'testcases.cancelSuite'
 * can stop one (the cases not started yet are then reported as not run) and a window opened
 * while one runs can follow it ('testcases.runningSuites').
 */
export type SuiteRuns = RunsById<SuiteProgress, { bundleIds: string[] | null }>;
export const suiteRuns = (now?: () => Date): SuiteRuns => new RunsById('a test suite', now);

export function testcaseHandlers({ store, dispatcher, toolStore, runSuite, suites, events }: TestCaseHandlerDeps): { [N in TestCaseOps]: Handler<N> } {
  return {
    'testcases.list': ({ bundleId, slug }) => store.list(bundleId, slug),
    'testcases.save': ({ bundleId, slug, testCase }) => {
      // Cases may be saved for a slug that has no saved version yet (a new tool's draft), but not for a bundle that does not exist.
      toolStore.getBundle(bundleId);
      return store.save(bundleId, slug, { ...testCase, id: testCase.id || undefined });
    },
    'testcases.delete': async ({ bundleId, slug, id }) => {
      await store.delete(bundleId, slug, id);
      return { deleted: true as const };
    },
    'testcases.runAll': async ({ bundleId, slug, version, draft, ids }, ctx) => {
      // Refuse a missing tool or a broken draft once, rather than once per case.
      const outputSchema: JsonSchemaObject = draft === undefined ? toolStore.getTool(bundleId, slug, version).outputSchema : draftOutputSchema(draft);
      const all = await store.list(bundleId, slug);
      let cases = all;
      if (ids) {
        const wanted = new Set(ids);
        const known = new Set(all.map((c) => c.id));
        const missing = [...wanted].filter((id) => !known.has(id));
        if (missing.length) throw new AppError('NOT_FOUND', `no test case ${missing.slice(0, 5).map(quote).join(', ')} for '${slug}'; they may have been deleted`, { ids: missing });
        cases = all.filter((c) => wanted.has(c.id));
      }
      const common = { bundleId, slug, version, source: 'tester' as const, signal: ctx.signal };
      return runTestCases(
        cases,
        (args) => (draft === undefined ? dispatcher.invoke({ ...common, args }) : dispatcher.invokeDraft({ ...common, args, body: draft })),
        { outputSchema },
        { signal: ctx.signal },
      );
    },
    'testcases.runSuite': ({ runId, bundleIds }, ctx) => {
      const bundles = bundlesToRun(toolStore, bundleIds);
      const tell = {
        signal: ctx.signal,
        onProgress: (progress: SuiteProgress, seq: number) => events.emit('testcases.suiteProgress', { runId, seq, progress }),
        onEnd: (end: { value: SuiteResult } | { error: unknown }) =>
          events.emit('testcases.suiteDone', 'error' in end ? { runId, error: toErrorInfo(end.error, 'testcases') } : { runId, result: end.value }),
      };
      return suites.start(runId, { bundleIds: bundleIds ?? null }, tell, (signal, onProgress) => runSuite({ bundles, signal, onProgress }));
    },
    'testcases.cancelSuite': ({ runId }) => ({ cancelled: suites.cancel(runId) }),
    'testcases.runningSuites': () => ({ suites: suites.list() }),
  };
}

/** The draft's outputSchema, or VALIDATION_FAILED as the dispatcher words it for a draft that is not a valid tool. */
function draftOutputSchema(draft: unknown): JsonSchemaObject {
  const body = ToolPutBodySchema.safeParse(draft);
  if (body.success) return body.data.outputSchema;
  const issue = body.error.issues[0];
  const field = issue?.path.map(String).join('.') || '(body)';
  throw new AppError('VALIDATION_FAILED', `the draft is not a valid tool: ${field}: ${issue?.message ?? 'invalid'}`, {
    phase: 'draft',
    issues: body.error.issues.slice(0, 20).map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
  });
}
