// @vitest-environment happy-dom
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, renderWithApi } from '../../../testing/render';
import { rateTable } from './eval-report';
import { PassRateTable } from './PassRateTable';
import { result } from './testing/eval-samples';

const GOOD = { key: 'p1/good', label: 'Local/good' };
const BAD = { key: 'p1/bad', label: 'Local/bad' };

const table = rateTable(
  [GOOD, BAD],
  [
    { caseId: 'c1', bundleId: 'b1', name: 'weather in Paris' },
    { caseId: 'c2', bundleId: 'b1', name: 'forecast' },
  ],
  [
    result({ caseId: 'c1', name: 'weather in Paris', model: GOOD.key, passed: 3, failed: 0 }),
    result({ caseId: 'c1', name: 'weather in Paris', model: BAD.key, passed: 1, failed: 2 }),
    result({ caseId: 'c2', name: 'forecast', model: GOOD.key, passed: 0, failed: 0, errors: 1, passRate: null, verdict: 'error' }),
  ],
);

describe('the pass-rate table', () => {
  it('shows each case on each model with its verdict and rate, flaky marked, and each model over every case', () => {
    renderWithApi(<PassRateTable table={table} />, fakeApi().api);
    const t = screen.getByRole('table');
    expect(within(t).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Case', 'Local/good', 'Local/bad']);
    const [head, paris, forecast, total] = within(t).getAllByRole('row');
    expect(head).toBeDefined();
    expect(within(paris!).getByRole('rowheader').textContent).toBe('weather in Paris');
    const [good, bad] = within(paris!).getAllByRole('cell');
    expect(good!.textContent).toBe('pass 3/3 · 100 %');
    expect(bad!.textContent).toBe('fail 1/3 · 33 % flaky');
    expect(bad!.dataset.flaky).toBe('true');
    const [err, waiting] = within(forecast!).getAllByRole('cell');
    expect(err!.textContent).toBe('error not judged');
    expect(waiting!.textContent).toBe('waiting');
    expect(within(total!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['3/3 · 100 %', '1/3 · 33 %']);
  });

  it('lets a cell be chosen by its name, and says which one is', async () => {
    const onSelect = vi.fn();
    renderWithApi(<PassRateTable table={table} selected={{ caseId: 'c1', bundleId: 'b1', model: BAD.key }} onSelect={onSelect} />, fakeApi().api);
    const chosen = screen.getByRole('button', { name: 'weather in Paris on Local/bad: fail 1/3 · 33 % flaky' });
    expect(chosen.getAttribute('aria-pressed')).toBe('true');
    await userEvent.click(screen.getByRole('button', { name: 'weather in Paris on Local/good: pass 3/3 · 100 %' }));
    expect(onSelect).toHaveBeenCalledWith({ caseId: 'c1', bundleId: 'b1', model: GOOD.key });
  });
});
