// @vitest-environment happy-dom
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { EvalRunSummary } from '../../../../shared/model/evals';
import { fakeApi, ok, renderWithApi } from '../../../testing/render';
import { EvalRunsList } from './EvalRunsList';

const totals = { results: 2, passed: 0, failed: 0, errors: 0, notRun: 0, flaky: 0, attempts: 2, inputTokens: 0, outputTokens: 0 };
const summary = (id: string, over: Partial<EvalRunSummary['totals']>, status: EvalRunSummary['status'] = 'done'): EvalRunSummary => ({
  id,
  startedAt: id === 'r2' ? '2026-11-29T11:00:00.000Z' : '2026-11-29T10:00:00.000Z',
  durationMs: 10,
  status,
  models: [{ providerId: 'p1', model: 'm', key: 'p1/m', label: 'Local/m' }],
  repeat: 1,
  bundles: [{ bundleId: 'b1', bundleSlug: 'weather' }],
  cases: 2,
  totals: { ...totals, ...over },
});

describe('the saved runs of a bundle', () => {
  it('does not show a run in which nothing ran as a success', async () => {
    const api = fakeApi({
      'evals.listRuns': ok([summary('r2', { notRun: 2 }, 'cancelled'), summary('r1', { passed: 2 })]),
      'providers.list': ok([]),
    }).api;
    renderWithApi(<EvalRunsList bundleId="b1" bundleSlug="weather" cases={[]} onOpenTool={vi.fn()} />, api);
    const rows = await screen.findAllByTestId('eval-run-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]!.textContent).toContain('0 passed, 0 failed, 2 not run');
    expect(rows[0]!.querySelector('.badge.ok')).toBeNull();
    expect(rows[1]!.textContent).toContain('2 passed, 0 failed');
    expect(rows[1]!.querySelector('.badge.ok')).not.toBeNull();
  });

  it('gives the focus back to the run’s own Open button after Back', async () => {
    const user = userEvent.setup();
    const full = { id: 'r1', startedAt: '2026-11-29T10:00:00.000Z', durationMs: 10, status: 'done', models: [], repeat: 1, passRate: 1, cases: [], results: [], tools: {}, toolSets: {}, totals };
    const api = fakeApi({
      'evals.listRuns': ok([summary('r2', { passed: 2 }), summary('r1', { passed: 2 })]),
      'evals.getRun': ok(full as never),
      'providers.list': ok([]),
    }).api;
    renderWithApi(<EvalRunsList bundleId="b1" bundleSlug="weather" cases={[]} onOpenTool={vi.fn()} />, api);
    const rows = await screen.findAllByTestId('eval-run-row');
    await user.click(rows[1]!.querySelector<HTMLElement>('[data-testid="eval-run-open"]')!);
    await user.click(await screen.findByTestId('eval-run-back'));
    const again = await screen.findAllByTestId('eval-run-row');
    expect(document.activeElement).toBe(again[1]!.querySelector('[data-testid="eval-run-open"]'));
  });
});
