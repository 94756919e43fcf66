// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Provider } from '../../../../shared/model/provider';
import { modelValue } from './eval-case-form';
import { ModelSelect } from './ModelSelect';

const providers = [{ id: 'p1', name: 'Local', models: ['a', 'b'] }] as unknown as Provider[];

afterEach(cleanup);

describe('the model select', () => {
  it('shows a chosen model no provider offers any more as not set up, instead of another choice', () => {
    const gone = modelValue({ providerId: 'p9', model: 'judge' });
    render(<ModelSelect providers={providers} value={gone} onChange={vi.fn()} empty="The run’s judge model" data-testid="sel" />);
    const sel = screen.getByTestId('sel') as HTMLSelectElement;
    expect(sel.value).toBe(gone);
    expect(sel.selectedOptions[0]!.textContent).toBe('p9/judge (not set up)');
  });

  it('offers no such choice for a model that is set up', () => {
    render(<ModelSelect providers={providers} value={modelValue({ providerId: 'p1', model: 'b' })} onChange={vi.fn()} data-testid="sel" />);
    const sel = screen.getByTestId('sel') as HTMLSelectElement;
    expect(sel.selectedOptions[0]!.textContent).toBe('b');
    expect([...sel.options].some((o) => o.textContent?.includes('not set up'))).toBe(false);
  });
});
