// @vitest-environment happy-dom
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok, renderWithApi } from '../../../testing/render';
import { SaveAsEvalButton } from './SaveAsEval';

describe('the Save as eval case button', () => {
  it('is named by what it is beside, cut when long, and is off while the turn runs', () => {
    const long = 'What will   the weather be in Paris for the next three days, and should I take an umbrella with me?';
    renderWithApi(
      <>
        <SaveAsEvalButton conversationId="c1" messageId="m1" about="Forecast" />
        <SaveAsEvalButton conversationId="c1" messageId="m2" about={long} disabled />
      </>,
      fakeApi().api,
    );
    expect(screen.getByRole('button', { name: 'Save as eval case: Forecast' })).toBeTruthy();
    const cut = screen.getByRole('button', { name: /^Save as eval case: What will the weather be in Paris/ });
    expect(cut.getAttribute('aria-label')!.endsWith('…')).toBe(true);
    expect(cut.getAttribute('aria-label')!.length).toBeLessThan(90);
    expect((cut as HTMLButtonElement).disabled).toBe(true);
  });

  it('offers another bundle when drafting for the chosen one fails', async () => {
    const user = userEvent.setup();
    const bundle = (id: string, slug: string) => ({ id, slug, displayName: slug, description: '', isEnabled: true, builtin: false, toolCount: 1 });
    const api = fakeApi({
      'evals.fromChat': (input) => (input.bundleId === 'b2' ? { ok: false, error: { code: 'NOT_FOUND', message: 'no tool of shop was called' } } : { ok: false, error: { code: 'NOT_FOUND', message: 'no tool of weather was called' } }),
      'bundles.list': ok({ items: [bundle('b1', 'weather'), bundle('b2', 'shop')], nextCursor: null } as never),
    }).api;
    renderWithApi(<SaveAsEvalButton conversationId="c1" messageId="m1" about="Forecast" />, api);
    await user.click(screen.getByRole('button', { name: 'Save as eval case: Forecast' }));
    expect((await screen.findByTestId('eval-draft-error')).textContent).toContain('weather');
    await user.selectOptions(screen.getByTestId('eval-draft-bundle'), 'b2');
    expect((await screen.findByText(/no tool of shop/)).textContent).toContain('shop');
    // Still there: another bundle can be chosen again.
    expect(screen.getByTestId('eval-draft-bundle')).toBeTruthy();
  });
});
