/**
 * Every user-visible string of the test report (renderer/features/tools/suite): the saved
 * test cases of a bundle, or of every bundle, run as one suite.
 */
import { isOne } from './plural';
const plural = (n: number, one: string, many: string) => `${n} ${isOne(n) ? one : many}`;

export const suiteStrings = {
  runBundle: 'Run test cases',
  runBundleLabel: (bundle: string) => `Run the saved test cases of the bundle ${bundle}`,
  runAll: 'Run all test cases',
  runAllLabel: 'Run the saved test cases of every bundle switched on',
  showRunning: 'Tests are running: show their report',
  title: 'Test report',
  scopeAll: 'All bundles switched on',
  scopeBundle: (bundle: string) => `Bundle “${bundle}”`,
  scopeBundles: (bundles: string[]) => `Bundles ${bundles.map((b) => `“${b}”`).join(', ')}`,
  cancel: 'Cancel',
  cancelling: 'Cancelling…',
  again: 'Run again',
  close: 'Close',
  onlyFailed: 'Only failed cases',
  starting: 'Starting…',
  progressLabel: 'Cases done',
  running: (done: number, total: number) => `Running: ${done} of ${plural(total, 'case', 'cases')} done…`,
  summary: (total: number, tools: number, passed: number, failed: number, skipped: number, seconds: string) =>
    `${plural(total, 'case', 'cases')} in ${plural(tools, 'tool', 'tools')}: ${passed} passed, ${failed} failed, ${skipped} skipped (${seconds} s)`,
  cancelled: 'Cancelled: the cases not reached were not run.',
  failedToRun: 'The tests could not be run:',
  none: 'No saved test cases here.',
  noneHelp: 'Save test cases in a tool’s tester (Test cases), then run them here.',
  noFailures: 'No case failed.',
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  runningCase: (name: string) => `Running “${name}”…`,
  skippedBecause: (why: string) => `Skipped: ${why}`,
  toolCounts: (passed: number, failed: number) => `${passed} passed, ${failed} failed`,
  openTool: 'Open tool',
  openToolLabel: (tool: string) => `Open ${tool} in the editor and tester`,
  ms: (ms: number) => `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`,
  diff: {
    label: (path: string) => `Expected and actual value of ${path}: lines starting with - are expected, + are actual`,
    legend: '− expected  + actual',
    same: 'The values print the same (they differ in a way JSON text does not show).',
    tooLarge: 'The values are too large or too different to show line by line.',
    expected: 'expected',
    actual: 'actual',
  },
} as const;
