// @vitest-environment happy-dom
import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { EvalRun } from '../../../../shared/model/evals';
import { fakeApi, renderWithApi } from '../../../testing/render';
import { EvalReport } from './EvalReport';

const models = [
  { providerId: 'p1', model: 'a', key: 'p1/a', label: 'Local/a', price: { inputPerMillion: 1, outputPerMillion: 2 } },
  { providerId: 'p1', model: 'b', key: 'p1/b', label: 'Local/b' },
];
const run = (priced: typeof models): EvalRun =>
  ({
    id: 'r1',
    startedAt: '2026-11-29T10:00:00.000Z',
    durationMs: 1000,
    status: 'done',
    models: priced,
    repeat: 1,
    passRate: 1,
    cases: [],
    results: [],
    tools: {},
    toolSets: {},
    totals: { results: 0, passed: 0, failed: 0, errors: 0, notRun: 0, flaky: 0, attempts: 0, inputTokens: 10, outputTokens: 5, cost: 0.00002 },
  }) as EvalRun;

describe('a run’s summary', () => {
  it('says its cost covers only the models with prices when some had none', () => {
    const view = renderWithApi(<EvalReport models={models} cases={[]} results={[]} run={run(models)} caseOf={() => undefined} onOpenTool={vi.fn()} />, fakeApi().api);
    expect(screen.getByTestId('eval-report').textContent).toContain('cost 0.000020 (the 1 of 2 models with prices)');
    view.unmount();
    renderWithApi(<EvalReport models={models} cases={[]} results={[]} run={run([models[0]!])} caseOf={() => undefined} onOpenTool={vi.fn()} />, fakeApi().api);
    expect(screen.getByTestId('eval-report').textContent).toContain('cost 0.000020');
    expect(screen.getByTestId('eval-report').textContent).not.toContain('models with prices');
  });
});
