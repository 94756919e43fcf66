// @vitest-environment happy-dom
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useRef, useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import '../testing/render';
import { isOutside, Popover, usePopover } from './Popover';

/** A node of a tree: it contains itself and everything below it, as DOM nodes do. */
class TreeNode {
  constructor(readonly parent?: TreeNode) {}
  contains(other: Node | null): boolean {
    for (let n = other as unknown as TreeNode | undefined; n; n = n.parent) if (n === this) return true;
    return false;
  }
}
const asNode = (n: TreeNode) => n as unknown as Node;

describe('isOutside', () => {
  const page = new TreeNode();
  const button = new TreeNode(page);
  const buttonIcon = new TreeNode(button);
  const panel = new TreeNode(page);
  const panelInput = new TreeNode(panel);
  const elsewhere = new TreeNode(page);

  it('is false for a press on one of the elements or anything inside them', () => {
    for (const target of [button, buttonIcon, panel, panelInput]) expect(isOutside(asNode(target), [panel, button])).toBe(false);
  });

  it('is true for a press anywhere else, the page around them included', () => {
    expect(isOutside(asNode(elsewhere), [panel, button])).toBe(true);
    expect(isOutside(asNode(page), [panel, button])).toBe(true);
  });

  it('counts an element that is not rendered (a null ref) as holding nothing', () => {
    expect(isOutside(asNode(panelInput), [null, button])).toBe(true);
    expect(isOutside(asNode(buttonIcon), [null, button])).toBe(false);
    expect(isOutside(asNode(elsewhere), [])).toBe(true);
  });
});

/** A menu button with its menu, as the chat's Export menu uses Popover. */
function Menu({ onClose }: { onClose?: (reason: string) => void }) {
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  return (
    <div>
      <button ref={buttonRef} type="button" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        Export
      </button>
      {open && (
        <Popover
          anchorRef={buttonRef}
          initialFocus='[role="menuitem"]'
          role="menu"
          aria-label="Export"
          onClose={(reason) => {
            onClose?.(reason);
            setOpen(false);
          }}
        >
          <button type="button" role="menuitem">
            Markdown
          </button>
          <button type="button" role="menuitem">
            JSON
          </button>
        </Popover>
      )}
      <p>Elsewhere</p>
    </div>
  );
}

describe('Popover', () => {
  it('moves the focus in on opening, and Escape closes it with the focus back on its button', async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    render(<Menu onClose={onClose} />);
    const button = screen.getByRole('button', { name: 'Export' });
    await user.click(button);
    expect(screen.getByRole('menu', { name: 'Export' })).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('menuitem', { name: 'Markdown' }));

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(onClose).toHaveBeenCalledWith('escape');
    expect(document.activeElement).toBe(button);
  });

  it('closes on a press outside, but not on one inside; its button toggles it', async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    render(<Menu onClose={onClose} />);
    const button = screen.getByRole('button', { name: 'Export' });
    await user.click(button);
    await user.click(screen.getByRole('menuitem', { name: 'JSON' }));
    expect(screen.getByRole('menu')).toBeTruthy();
    await user.click(screen.getByText('Elsewhere'));
    expect(screen.queryByRole('menu')).toBeNull();
    expect(onClose).toHaveBeenCalledWith('outside');

    await user.click(button);
    await user.click(button);
    expect(screen.queryByRole('menu')).toBeNull();
    // The button's own press toggled it: that was not a press outside.
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('leaves a key its content handled alone', async () => {
    const user = userEvent.setup();
    function Own() {
      const ref = useRef<HTMLButtonElement>(null);
      return (
        <>
          <button ref={ref} type="button">
            Anchor
          </button>
          <Popover anchorRef={ref} onClose={onClose} initialFocus="input" onKeyDown={(e) => e.key === 'Escape' && e.preventDefault()}>
            <input aria-label="Search" />
          </Popover>
        </>
      );
    }
    const onClose = vi.fn();
    render(<Own />);
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Search' }));
    await user.keyboard('{Escape}');
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe('usePopover', () => {
  function Panel() {
    const { open, close, buttonProps, popoverProps } = usePopover('tools-panel');
    return (
      <>
        <button {...buttonProps}>Tools</button>
        {open && (
          <Popover {...popoverProps} role="dialog" aria-label="Tools">
            <input type="checkbox" aria-label="All tools" />
            <button type="button" onClick={close}>
              Close
            </button>
          </Popover>
        )}
      </>
    );
  }

  it('ties the button to its panel, focuses the panel’s first input, and Close gives the focus back', async () => {
    const user = userEvent.setup();
    render(<Panel />);
    const button = screen.getByRole('button', { name: 'Tools' });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(button.getAttribute('aria-haspopup')).toBe('dialog');
    await user.click(button);
    const panel = screen.getByRole('dialog', { name: 'Tools' });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(button.getAttribute('aria-controls')).toBe(panel.id);
    expect(document.activeElement).toBe(screen.getByRole('checkbox', { name: 'All tools' }));
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(button);
  });
});
