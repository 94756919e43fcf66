// @vitest-environment happy-dom
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, renderWithApi } from '../../../testing/render';
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
});
