// @vitest-environment happy-dom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Bundle } from '../../../../shared/model/bundle';
import { fakeApi, ok, renderWithApi } from '../../../testing/render';
import { EvalsPane } from './EvalsPane';

const bundle: Bundle = {
  id: '0190a000-0000-7000-8000-0000000000b1',
  slug: 'demo',
  displayName: 'Demo',
  description: '',
  isEnabled: true,
  isBuiltIn: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  modifiedAt: '2026-01-01T00:00:00.000Z',
};

function setup() {
  const fake = fakeApi({ 'evals.list': ok([]), 'providers.list': ok([]), 'tools.list': ok({ items: [], nextCursor: null }) });
  const onDirtyChange = vi.fn();
  const onClose = vi.fn();
  renderWithApi(<EvalsPane bundle={bundle} onOpenTool={vi.fn()} onClose={onClose} onDirtyChange={onDirtyChange} />, fake.api);
  return { onDirtyChange, onClose };
}

const selected = (name: string) => screen.getByTestId(`evals-tab-${name}`).getAttribute('aria-selected');

describe('EvalsPane: leaving a changed case', () => {
  it('asks before another tab; Keep editing stays on the case, Discard goes to the tab', async () => {
    const user = userEvent.setup();
    const { onDirtyChange } = setup();
    await user.click(await screen.findByTestId('eval-new'));
    await user.type(screen.getByTestId('eval-name'), 'Weather in Oslo');
    await waitFor(() => expect(onDirtyChange).toHaveBeenLastCalledWith(true));

    const tab = screen.getByTestId('evals-tab-run');
    await user.click(tab);
    const dialog = screen.getByRole('alertdialog', { name: 'Discard unsaved changes?' });
    expect(dialog.textContent).toContain('The changes to this eval case are lost.');
    await user.click(screen.getByTestId('unsaved-keep'));
    expect(selected('cases')).toBe('true');
    expect((screen.getByTestId('eval-name') as HTMLInputElement).value).toBe('Weather in Oslo');
    expect(document.activeElement).toBe(tab);

    await user.click(tab);
    await user.click(screen.getByTestId('unsaved-discard'));
    expect(selected('run')).toBe('true');
    expect(onDirtyChange).toHaveBeenLastCalledWith(false);
    await user.click(screen.getByTestId('evals-tab-cases'));
    expect(screen.queryByTestId('eval-name')).toBeNull();
  });

  it('moves between tabs by arrow key at once when nothing is typed, and asks (then moves the focus) when something is', async () => {
    const user = userEvent.setup();
    const { onClose } = setup();
    screen.getByTestId('evals-tab-cases').focus();
    await user.keyboard('{ArrowRight}');
    expect(selected('run')).toBe('true');
    expect(document.activeElement).toBe(screen.getByTestId('evals-tab-run'));

    await user.keyboard('{ArrowLeft}');
    await user.click(await screen.findByTestId('eval-new'));
    await user.type(screen.getByTestId('eval-name'), 'x');
    screen.getByTestId('evals-tab-cases').focus();
    // Home on the chosen tab moves nothing and asks nothing.
    await user.keyboard('{Home}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(screen.getByTestId('eval-name')).toHaveProperty('value', 'x');
    await user.keyboard('{End}');
    expect(screen.getByRole('alertdialog')).toBeTruthy();
    await user.keyboard('{Shift>}{Tab}{/Shift}{Enter}');
    expect(selected('runs')).toBe('true');
    expect(document.activeElement).toBe(screen.getByTestId('evals-tab-runs'));

    // Close with nothing typed: closes at once.
    await user.click(screen.getByTestId('evals-close'));
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
