// @vitest-environment happy-dom
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import '../testing/render';
import { Dialog } from './Dialog';

function Harness({ onKey }: { onKey?: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <div onKeyDown={onKey}>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      <Dialog open={open} title="Rename the bundle" onClose={() => setOpen(false)} data-testid="dialog">
        <input aria-label="Name" />
        <button type="button" data-autofocus onClick={() => setOpen(false)}>
          Done
        </button>
      </Dialog>
    </div>
  );
}

describe('Dialog', () => {
  it('opens as a modal named by its title, over the page, with the focus inside', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    expect(screen.queryByTestId('dialog')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Open' }));

    const dialog = screen.getByRole('dialog', { name: 'Rename the bundle' }) as HTMLDialogElement;
    expect(dialog.tagName).toBe('DIALOG');
    expect(dialog.open).toBe(true);
    // Drawn in the body, not inside the component that opened it.
    expect(dialog.parentElement).toBe(document.body);
    expect(screen.getByRole('heading', { name: 'Rename the bundle' }).id).toBe(dialog.getAttribute('aria-labelledby'));
    // The element marked data-autofocus takes the focus (else the first control would).
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Done' }));
  });

  it('closes on Escape and gives the focus back to the button that opened it', async () => {
    const user = userEvent.setup();
    const onKey = vi.fn();
    render(<Harness onKey={onKey} />);
    const open = screen.getByRole('button', { name: 'Open' });
    await user.click(open);
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('dialog')).toBeNull();
    expect(document.activeElement).toBe(open);
    // Keys pressed in the dialog stay in it: the screen behind does not act on them.
    expect(onKey).not.toHaveBeenCalled();
  });

  it('gives the focus back when closed by one of its own buttons too', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const open = screen.getByRole('button', { name: 'Open' });
    await user.click(open);
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(open);
  });

  it('focuses the first control when none is marked', async () => {
    function Plain() {
      const [open, setOpen] = useState(true);
      return (
        <Dialog open={open} title="Plain" onClose={() => setOpen(false)}>
          <input aria-label="First" />
        </Dialog>
      );
    }
    render(<Plain />);
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'First' }));
  });
});
