import { describe, expect, it } from 'vitest';
import type { EvalRun } from '../../../shared/model/evals';
import { fitsEvent, MAX_EVENT_RUN_CHARS } from './eval-handlers';

const run = (answer: string): EvalRun =>
  ({
    id: 'r',
    results: [{ attempts: [{ answer }] }],
  }) as unknown as EvalRun;

describe("the run 'evals.done' carries", () => {
  it('is the run while it is small; a larger one is left for evals.getRun (counting stops past the limit)', () => {
    expect(fitsEvent(run('a'.repeat(1000)))).toBe(true);
    expect(fitsEvent(run('a'.repeat(MAX_EVENT_RUN_CHARS)))).toBe(false);
  });
});
