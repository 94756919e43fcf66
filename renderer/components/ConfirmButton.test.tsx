// @vitest-environment happy-dom
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import '../testing/render';
import { ConfirmButton } from './ConfirmButton';

describe('ConfirmButton, asking in a dialog', () => {
  function setup() {
    const onConfirm = vi.fn();
    render(
      <ConfirmButton aria-label="Delete secret GITHUB_TOKEN" data-testid="secret-delete" question="Delete the secret GITHUB_TOKEN?" confirmLabel="Delete" onConfirm={onConfirm}>
        ✕
      </ConfirmButton>,
    );
    return { onConfirm, button: screen.getByRole('button', { name: 'Delete secret GITHUB_TOKEN' }) };
  }

  it('asks first: an alert dialog named by the question, its confirming button focused', async () => {
    const user = userEvent.setup();
    const { onConfirm, button } = setup();
    expect(button.getAttribute('aria-haspopup')).toBe('dialog');
    await user.click(button);
    const dialog = screen.getByRole('alertdialog', { name: 'Delete the secret GITHUB_TOKEN?' });
    expect(dialog.getAttribute('data-testid')).toBe('secret-delete-confirmation');
    expect(document.activeElement).toBe(screen.getByTestId('secret-delete-confirm'));
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('does it on Enter, closes, and gives the focus back', async () => {
    const user = userEvent.setup();
    const { onConfirm, button } = setup();
    button.focus();
    await user.keyboard('{Enter}');
    await user.keyboard('{Enter}');
    expect(onConfirm).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  it('keeps things as they are on Escape or Cancel', async () => {
    const user = userEvent.setup();
    const { onConfirm, button } = setup();
    await user.click(button);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(button);
    await user.click(button);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('ignores presses while its action runs, keeping the focus', async () => {
    const user = userEvent.setup();
    render(
      <ConfirmButton pending question="Remove it?" confirmLabel="Remove" onConfirm={vi.fn()}>
        Remove
      </ConfirmButton>,
    );
    const button = screen.getByRole('button', { name: 'Remove' });
    expect(button.getAttribute('aria-disabled')).toBe('true');
    await user.click(button);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});

describe('ConfirmButton, asking in place', () => {
  function setup(props: { pending?: boolean; error?: { message: string } | null } = {}) {
    const onConfirm = vi.fn();
    const view = render(
      <ConfirmButton asks="inline" data-testid="bundle-delete" question="Delete the bundle “Demo”?" confirmLabel="Delete bundle" cancelLabel="Keep it" onConfirm={onConfirm} {...props}>
        Delete
      </ConfirmButton>,
    );
    return { onConfirm, view };
  }

  it('puts the question in the button’s place, its confirming button focused', async () => {
    const user = userEvent.setup();
    const { onConfirm } = setup();
    await user.click(screen.getByTestId('bundle-delete'));
    expect(screen.queryByTestId('bundle-delete')).toBeNull();
    const question = screen.getByRole('alertdialog', { name: 'Delete the bundle “Demo”?' });
    expect(question.getAttribute('data-testid')).toBe('bundle-delete-confirmation');
    expect(document.activeElement).toBe(screen.getByTestId('bundle-delete-confirm'));
    await user.keyboard('{Enter}');
    expect(onConfirm).toHaveBeenCalledTimes(1);
    // The question stays until the action's outcome removes it (or shows its failure).
    expect(screen.getByRole('alertdialog')).toBeTruthy();
  });

  it('gives the button back, focused, on Escape or Keep it', async () => {
    const user = userEvent.setup();
    setup();
    await user.click(screen.getByTestId('bundle-delete'));
    await user.keyboard('{Escape}');
    expect(document.activeElement).toBe(screen.getByTestId('bundle-delete'));
    await user.click(screen.getByTestId('bundle-delete'));
    await user.click(screen.getByTestId('bundle-delete-keep'));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByTestId('bundle-delete'));
  });

  it('shows the last failure under the question, and refuses a second press while pending', async () => {
    const user = userEvent.setup();
    const { onConfirm, view } = setup();
    await user.click(screen.getByTestId('bundle-delete'));
    view.rerender(
      <ConfirmButton asks="inline" data-testid="bundle-delete" question="Delete the bundle “Demo”?" confirmLabel="Delete bundle" onConfirm={onConfirm} pending error={{ message: 'The bundle has tools.' }}>
        Delete
      </ConfirmButton>,
    );
    expect(screen.getByRole('alert').textContent).toBe('The bundle has tools.');
    const confirm = screen.getByTestId('bundle-delete-confirm');
    expect(confirm.getAttribute('aria-disabled')).toBe('true');
    await user.click(confirm);
    expect(onConfirm).not.toHaveBeenCalled();
  });
});
