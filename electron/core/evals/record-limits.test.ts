import { describe, expect, it } from 'vitest';
import type { EvalAttempt, EvalCall } from '../../../shared/model/evals';
import { ATTEMPT_RECORD_CHARS, MAX_ANSWER_CHARS, MAX_ARGS_CHARS, MAX_CALLS_KEPT, RecordBudget } from './record-limits';

const call = (args: unknown): EvalCall => ({ name: 'forecast', kind: 'tool', tool: 'weather/forecast@1', bundleId: 'b1', slug: 'forecast', args, status: 'ok' });
const attempt = (over: Partial<EvalAttempt>): EvalAttempt => ({ n: 1, outcome: 'fail', checks: [], calls: [], answer: '', steps: [], inputTokens: 0, outputTokens: 0, durationMs: 1, ...over });
const size = (v: unknown) => JSON.stringify(v).length;

describe('what an attempt stores', () => {
  it('at most MAX_CALLS_KEPT calls, arguments past MAX_ARGS_CHARS as the start of their text, the answer cut past MAX_ANSWER_CHARS', () => {
    const kept = new RecordBudget().keep(attempt({ calls: Array.from({ length: MAX_CALLS_KEPT + 5 }, (_, i) => call({ i })), answer: 'a'.repeat(MAX_ANSWER_CHARS + 10) }));
    expect(kept.calls).toHaveLength(MAX_CALLS_KEPT);
    expect(kept.calls[0]!.args).toEqual({ i: 0 });
    expect(kept.answer).toBe(`${'a'.repeat(MAX_ANSWER_CHARS)}…`);
    const big = new RecordBudget().keep(attempt({ calls: [call({ text: 'x'.repeat(MAX_ARGS_CHARS) })] }));
    expect(big.calls[0]!.args).toBe(`${JSON.stringify({ text: 'x'.repeat(MAX_ARGS_CHARS) }).slice(0, MAX_ARGS_CHARS)}…`);
  });

  it('one past ATTEMPT_RECORD_CHARS is stored slim: its outcome, error, failed checks first, steps and figures stay', () => {
    const checks = Array.from({ length: 40 }, (_, i) => ({ part: 'args' as const, passed: i !== 30, message: `check ${i} ${'m'.repeat(400)}`, check: { kind: 'jsonPathEquals' as const, path: '$.a', value: 'v'.repeat(1000) }, compared: { expected: 1, actual: 2 } }));
    const a = attempt({ outcome: 'error', error: { code: 'TIMEOUT', message: 'stopped' }, calls: Array.from({ length: 10 }, () => call({ text: 'x'.repeat(30_000) })), checks, steps: [{ toolSet: 'k', durationMs: 5, inputTokens: 3 }], inputTokens: 3 });
    expect(size(a)).toBeGreaterThan(ATTEMPT_RECORD_CHARS);
    const kept = new RecordBudget().keep(a);
    expect(size(kept)).toBeLessThan(16 * 1024);
    expect(kept).toMatchObject({ outcome: 'error', error: { code: 'TIMEOUT', message: 'stopped' }, steps: [{ toolSet: 'k', durationMs: 5, inputTokens: 3 }], inputTokens: 3 });
    expect(kept.checks).toHaveLength(20);
    expect(kept.checks.map((c) => c.passed).filter((p) => !p)).toHaveLength(1);
    expect(kept.checks[0]!.check).toBeUndefined();
    expect(kept.checks[0]!.compared).toBeUndefined();
  });

  it('a run stores its attempts whole until its budget is spent, then slim', () => {
    const budget = new RecordBudget(2 * 1024 * 1024);
    const a = attempt({ calls: Array.from({ length: 4 }, () => call({ text: 'x'.repeat(60_000) })), answer: 'y'.repeat(16_000) });
    let total = 0;
    let slim = 0;
    for (let i = 0; i < 500; i++) {
      const kept = budget.keep(a);
      const n = size(kept);
      total += n;
      if (n < 10_000) slim++;
    }
    // About eight whole ones fit in 2 MB; the rest are slim.
    expect(slim).toBeGreaterThan(480);
    expect(total).toBeLessThan(2 * 1024 * 1024 + 500 * 10_000);
  });
});
