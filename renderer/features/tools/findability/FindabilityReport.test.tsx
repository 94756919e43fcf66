// @vitest-environment happy-dom
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { FindabilityReport as Report } from '../../../../shared/model/findability';
import { fakeApi, ok, renderWithApi } from '../../../testing/render';
import { FindabilityReport } from './FindabilityReport';

const tool = (slug: string, isBuiltIn = false) => ({ bundleId: isBuiltIn ? 'builtin' : 'b1', bundleSlug: isBuiltIn ? 'text' : 'weather', slug, version: '1', displayName: slug, isBuiltIn });

const report: Report = {
  ranked: 40,
  checked: 2,
  omitted: 0,
  counts: { high: 0, medium: 1, low: 0 },
  findings: [{ kind: 'collision', severity: 'medium', tools: [tool('forecast'), tool('count', true)], message: 'They read alike.', suggestion: 'Say what differs.' }],
};

describe('the findability report', () => {
  it('links a flagged tool of the user’s to the eval cases that expect it', async () => {
    const onOpenEvals = vi.fn();
    renderWithApi(<FindabilityReport onOpenTool={vi.fn()} onOpenEvals={onOpenEvals} onClose={vi.fn()} />, fakeApi({ 'tools.findability': ok(report) }).api);
    await userEvent.click(await screen.findByRole('button', { name: 'Evals of weather/forecast: the eval cases that expect it' }));
    expect(onOpenEvals).toHaveBeenCalledWith({ bundleId: 'b1', tool: 'forecast' });
    // Once per finding, for its first tool.
    expect(screen.getAllByRole('button', { name: /^Evals of / })).toHaveLength(1);
  });
});
