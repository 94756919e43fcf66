/** Saved test cases of a tool, and running them against a saved version or the editor's draft, or those of whole bundles as a suite. */
import { AppError, isAppError, toErrorInfo } from '../../../shared/errors';
import type { SuiteResult } from '../../../shared/model/testcase';
import { isBundleUsable, type Bundle } from '../../../shared/model/bundle';
import { ToolPutBodySchema, type JsonSchemaObject } from '../../../shared/model/tool';
import { quote } from '../../../shared/model/validation';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { Handler } from '../router';
import type { ToolStore } from '../bundles/tool-store';
import { allBundles } from './all-bundles';
import { runTestCases } from './run-tests';
import type { TestCaseStore } from './test-case-store';
import type { SuiteRuns } from './suite-runs';
import type { EventBus } from '../events';

type TestCaseOps = 'testcases.list' | 'testcases.save' | 'testcases.delete' | 'testcases.runAll' | 'testcases.runSuite' | 'testcases.cancelSuite' | 'testcases.runningSuites';

export interface TestCaseHandlerDeps {
  store: TestCaseStore;
  dispatcher: InvokeDispatcher;
  toolStore: ToolStore;
  suites: SuiteRuns;
  events: Pick<EventBus, 'emit'>;
}

export function testcaseHandlers({ store, dispatcher, toolStore, suites, events }: TestCaseHandlerDeps): { [N in TestCaseOps]: Handler<N> } {
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
    'testcases.runSuite': async ({ runId, bundleIds }, ctx) => {
      const bundles = bundleIds ? namedBundles(toolStore, bundleIds) : usableBundles(toolStore);
      let result: SuiteResult;
      try {
        result = await suites.run(runId, {
          bundles,
          bundleIds: bundleIds ?? null,
          signal: ctx.signal,
          onProgress: (progress, seq) => events.emit('testcases.suiteProgress', { runId, seq, progress }),
        });
      } catch (e) {
        // A second suite under a running id is the caller's mistake, not the end of that suite.
        if (!(isAppError(e) && e.code === 'CONFLICT')) events.emit('testcases.suiteDone', { runId, error: toErrorInfo(e, 'testcases') });
        throw e;
      }
      events.emit('testcases.suiteDone', { runId, result });
      return result;
    },
    'testcases.cancelSuite': ({ runId }) => ({ cancelled: suites.cancel(runId) }),
    'testcases.runningSuites': () => ({ suites: suites.list() }),
  };
}

/** The bundles named, in the order given, each once; an unknown id is NOT_FOUND before anything runs. */
function namedBundles(toolStore: ToolStore, ids: readonly string[]): Bundle[] {
  const out: Bundle[] = [];
  for (const id of ids) {
    const b = toolStore.getBundle(id);
    if (!out.some((x) => x.id === b.id)) out.push(b);
  }
  return out;
}

/** Every bundle switched on and not deleted (as `toolsmith test` without names). */
function usableBundles(toolStore: ToolStore): Bundle[] {
  return allBundles(toolStore).filter(isBundleUsable);
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
