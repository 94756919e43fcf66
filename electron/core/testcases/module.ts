/** Saved test cases and suite runs over bundles (the Tools screen's tester, `toolsmith test`). */
import { suiteRuns, testcaseHandlers } from './testcase-handlers';
import { defineModule } from '../platform/feature-module';
import { runSuite, type SuiteOptions } from './run-suite';
import { TestCaseStore } from './test-case-store';

export const testcasesModule = defineModule({
  name: 'testcases',
  start: ({ dataDir, now, problems, registry, dispatcher, events }) => {
    const testCases = new TestCaseStore({ dataDir, now, problems: (p) => problems.report(p) });
    const runTestSuite = (options: SuiteOptions) => runSuite({ cases: testCases, tools: registry.store, invoke: (r) => dispatcher.invoke({ ...r, source: 'tester' }), now }, options);
    const suites = suiteRuns(now);
    return {
      api: { testCases, runTestSuite },
      handlers: testcaseHandlers({ store: testCases, dispatcher, toolStore: registry.store, runSuite: runTestSuite, suites, events }),
      stop: () => suites.cancelAll(),
    };
  },
});
