import { describe, expect, it } from 'vitest';
import type { EvalAttempt, EvalCaseResult, EvalRun } from '../../../shared/model/evals';
import { evalRunToJUnit } from './junit';

const attempt = (n: number, over: Partial<EvalAttempt>): EvalAttempt => ({ n, outcome: 'pass', checks: [], calls: [], answer: '', steps: [], inputTokens: 0, outputTokens: 0, durationMs: 1500, ...over });

function result(name: string, model: string, over: Partial<EvalCaseResult>): EvalCaseResult {
  return { caseId: name, bundleId: 'b1', name, model, attempts: [attempt(1, {})], passed: 1, failed: 0, errors: 0, notRun: 0, passRate: 1, verdict: 'pass', flaky: false, chosenInstead: [], inputTokens: 0, outputTokens: 0, meanDurationMs: 1500, ...over };
}

describe('an eval run as JUnit XML', () => {
  it('one suite per model, a failure per case below the pass rate, an error per case not judged or not run, every name escaped', () => {
    const failedCheck = { part: 'args' as const, passed: false, message: 'expected $.city to equal "Paris", got "Lyon"' };
    const run: EvalRun = {
      id: 'r',
      startedAt: '2026-12-01T10:00:00.250Z',
      durationMs: 4200,
      status: 'cancelled',
      models: [
        { providerId: 'p', model: 'a', key: 'p/a', label: 'Local <LLM>/a' },
        { providerId: 'p', model: 'b', key: 'p/b', label: 'Local <LLM>/b' },
      ],
      repeat: 2,
      passRate: 1,
      cases: ['ok', 'flaky "one"', 'down', 'late'].map((id) => ({ bundleId: 'b1', bundleSlug: 'weather', case: { id } as never })),
      results: [
        result('ok', 'p/a', {}),
        result('flaky "one"', 'p/a', { verdict: 'fail', flaky: true, passed: 1, failed: 1, passRate: 0.5, attempts: [attempt(1, {}), attempt(2, { outcome: 'fail', checks: [failedCheck] })] }),
        result('down', 'p/b', { verdict: 'error', passed: 0, errors: 1, passRate: null, attempts: [attempt(1, { outcome: 'error', error: { code: 'UNAVAILABLE', message: 'the provider is down' } })] }),
        result('late', 'p/b', { verdict: 'not-run', passed: 0, notRun: 1, passRate: null, attempts: [attempt(1, { outcome: 'not-run', durationMs: 0 })] }),
      ],
      tools: {},
      toolSets: {},
      totals: { results: 4, passed: 1, failed: 1, errors: 1, notRun: 1, flaky: 1, attempts: 5, inputTokens: 0, outputTokens: 0 },
    };
    const xml = evalRunToJUnit(run);
    // As the Jenkins JUnit schema allows: no skipped or timestamp on <testsuites>.
    expect(xml).toContain('<testsuites name="toolsmith eval" tests="4" failures="1" errors="2" time="4.200">');
    expect(xml).toContain('<testsuite name="Local &lt;LLM&gt;/a" tests="2" failures="1" errors="0" skipped="0" time="4.500"');
    expect(xml).toContain('<testcase name="ok" classname="weather" time="1.500"/>');
    expect(xml).toContain('<testcase name="flaky &quot;one&quot;" classname="weather" time="3.000">');
    expect(xml).toContain('<failure message="expected $.city to equal &quot;Paris&quot;, got &quot;Lyon&quot; (1 of 2 attempts passed (flaky))" type="eval">attempt 1: PASS&#10;attempt 2: FAIL&#10;  FAIL args: expected');
    expect(xml).toContain('<error message="the provider is down" type="UNAVAILABLE">attempt 1: ERROR (UNAVAILABLE: the provider is down)</error>');
    expect(xml).toContain('<error message="not run: the eval run was cancelled" type="cancelled"/>');
    expect(xml.trim().endsWith('</testsuites>')).toBe(true);
  });
});
