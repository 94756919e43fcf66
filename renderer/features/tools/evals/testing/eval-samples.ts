/** Eval results and attempts as the core reports them, for the report's tests. */
import type { EvalAttempt, EvalCall, EvalCaseResult } from '../../../../../shared/model/evals';

export function call(over: Partial<EvalCall> & Pick<EvalCall, 'name'>): EvalCall {
  return { kind: 'tool', args: {}, status: 'ok', ...over };
}

export function attempt(over: Partial<EvalAttempt> = {}): EvalAttempt {
  return { n: 1, outcome: 'pass', checks: [], calls: [], answer: '', steps: [], inputTokens: 10, outputTokens: 5, durationMs: 40, ...over };
}

export function result(over: Partial<EvalCaseResult> & Pick<EvalCaseResult, 'caseId' | 'model'>): EvalCaseResult {
  const passed = over.passed ?? 1;
  const failed = over.failed ?? 0;
  return {
    bundleId: 'b1',
    name: over.caseId,
    attempts: [attempt()],
    passed,
    failed,
    errors: 0,
    notRun: 0,
    passRate: passed + failed ? passed / (passed + failed) : null,
    verdict: failed ? 'fail' : 'pass',
    flaky: passed > 0 && failed > 0,
    chosenInstead: [],
    inputTokens: 10,
    outputTokens: 5,
    meanDurationMs: 40,
    ...over,
  };
}
