import { describe, expect, it } from 'vitest';
import type { EvalCaseResult, EvalRun } from '../../../shared/model/evals';
import { compareRuns, shareResults } from './compare';

function result(caseId: string, model: string, verdict: EvalCaseResult['verdict']): EvalCaseResult {
  const passed = verdict === 'pass' ? 1 : 0;
  return { caseId, bundleId: 'b1', name: caseId, model, attempts: [], passed, failed: 1 - passed, errors: 0, notRun: 0, passRate: passed, verdict, flaky: false, chosenInstead: [], inputTokens: 0, outputTokens: 0, meanDurationMs: 0 };
}

function run(id: string, startedAt: string, results: EvalCaseResult[]): EvalRun {
  const keys = [...new Set(results.map((r) => r.model))];
  return {
    id,
    startedAt,
    durationMs: 0,
    status: 'done',
    models: keys.map((key) => ({ providerId: key.split('/')[0]!, model: key.split('/')[1]!, key, label: key })),
    repeat: 1,
    passRate: 1,
    cases: [],
    results,
    tools: {},
    toolSets: {},
    totals: { results: results.length, passed: 0, failed: 0, errors: 0, notRun: 0, flaky: 0, attempts: 0, inputTokens: 0, outputTokens: 0 },
  };
}

describe('comparing runs', () => {
  // The last run asked two models; the earlier one's results of p/a come last.
  const before = run('r1', '2026-12-01T10:00:00Z', [result('c1', 'p/b', 'pass'), result('c1', 'p/a', 'fail')]);
  const now = run('r2', '2026-12-02T10:00:00Z', [result('c1', 'p/a', 'fail'), result('c1', 'p/b', 'pass')]);

  it('a model named on one side only is the other side’s model too, not whichever model came last', () => {
    const cmp = compareRuns({ run: before }, { run: now, model: 'p/b' });
    expect(cmp.base.model).toBe('p/b');
    expect(cmp.cases).toEqual([expect.objectContaining({ baseModel: 'p/b', headModel: 'p/b', change: 'same' })]);
    const other = compareRuns({ run: before, model: 'p/a' }, { run: now });
    expect(other.cases).toEqual([expect.objectContaining({ baseModel: 'p/a', headModel: 'p/a', change: 'same' })]);
    // The other side did not ask that model: said so.
    expect(() => compareRuns({ run: run('r0', '2026-11-30T10:00:00Z', [result('c1', 'p/c', 'pass')]) }, { run: now, model: 'p/b' })).toThrow(/did not ask 'p\/b'/);
  });

  it('without models, results are matched by case and model; the last run that shares one is found per model', () => {
    expect(compareRuns({ run: before }, { run: now }).cases.map((c) => [c.baseModel, c.headModel, c.change])).toEqual([
      ['p/a', 'p/a', 'same'],
      ['p/b', 'p/b', 'same'],
    ]);
    const onlyA = run('r0', '2026-11-30T10:00:00Z', [result('c1', 'p/a', 'pass')]);
    expect(shareResults(onlyA, now)).toBe(true);
    expect(shareResults(onlyA, now, 'p/b')).toBe(false);
  });

  it('a run in which nothing ran is not the last run, and a side that never ran is neither better nor worse', () => {
    const cancelled = run('r1', '2026-12-01T10:00:00Z', [{ ...result('c1', 'p/a', 'not-run'), passRate: null, failed: 0, notRun: 1 }]);
    expect(shareResults(cancelled, now, 'p/a')).toBe(false);
    const cmp = compareRuns({ run: cancelled }, { run: now, model: 'p/a' });
    expect(cmp.cases.map((c) => c.change)).toEqual(['same']);
    const back = compareRuns({ run: now, model: 'p/b' }, { run: run('r3', '2026-12-03T10:00:00Z', [{ ...result('c1', 'p/b', 'not-run'), passRate: null, passed: 0, failed: 0, notRun: 1 }]) });
    expect(back.cases.map((c) => c.change)).toEqual(['same']);
  });
});
