// @vitest-environment happy-dom
import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useEffect } from 'react';
import { describe, expect, it, vi } from 'vitest';
import '../testing/render';
import { hashChangeHeld, useUnsavedChanges } from './UnsavedChanges';

/** A form with a guarded move, and (with `screen`) a sidebar and the shell's own listeners. */
function Harness({ dirty, move, screen: guardScreen = false, shell }: { dirty: boolean; move?: () => void; screen?: boolean; shell?: { go(to: string): void; key(e: KeyboardEvent): void; hash(e: HashChangeEvent): void } }) {
  const unsaved = useUnsavedChanges(dirty, { screen: guardScreen, detail: 'The draft is lost.' });
  useEffect(() => {
    if (!shell) return;
    // As the app's shell does: the back button is followed unless a guard holds it.
    const onHash = (e: HashChangeEvent) => {
      if (!hashChangeHeld(e)) shell.hash(e);
    };
    window.addEventListener('keydown', shell.key);
    window.addEventListener('hashchange', onHash);
    return () => {
      window.removeEventListener('keydown', shell.key);
      window.removeEventListener('hashchange', onHash);
    };
  }, [shell]);
  return (
    <>
      <nav>
        <button type="button" data-testid="nav-chat" onClick={() => shell?.go('chat')}>
          Chat
        </button>
        <button type="button" data-testid="nav-tools" aria-current="page" onClick={() => shell?.go('tools')}>
          Tools
        </button>
      </nav>
      <input aria-label="Name" />
      <button type="button" onClick={() => unsaved.guard(move ?? (() => undefined))}>
        Open another
      </button>
      {unsaved.prompt}
    </>
  );
}

const question = () => screen.queryByRole('alertdialog', { name: 'Discard unsaved changes?' });

describe('useUnsavedChanges: a move inside the screen', () => {
  it('makes the move at once when nothing is unsaved', async () => {
    const user = userEvent.setup();
    const move = vi.fn();
    render(<Harness dirty={false} move={move} />);
    await user.click(screen.getByRole('button', { name: 'Open another' }));
    expect(move).toHaveBeenCalledTimes(1);
    expect(question()).toBeNull();
  });

  it('asks first, in an alert dialog with Keep editing focused and the detail as its description', async () => {
    const user = userEvent.setup();
    const move = vi.fn();
    render(<Harness dirty move={move} />);
    await user.click(screen.getByRole('button', { name: 'Open another' }));
    const dialog = question()!;
    expect(dialog).not.toBeNull();
    expect(dialog.getAttribute('data-testid')).toBe('unsaved-changes');
    expect(document.getElementById(dialog.getAttribute('aria-describedby')!)?.textContent).toBe('The draft is lost.');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Keep editing' }));
    expect(move).not.toHaveBeenCalled();
  });

  it('Discard makes the move once, after the dialog has closed', async () => {
    const user = userEvent.setup();
    let dialogGone: boolean | undefined;
    const move = vi.fn(() => {
      dialogGone = question() === null;
    });
    render(<Harness dirty move={move} />);
    await user.click(screen.getByRole('button', { name: 'Open another' }));
    await user.click(screen.getByRole('button', { name: 'Discard' }));
    expect(move).toHaveBeenCalledTimes(1);
    expect(dialogGone).toBe(true);
    expect(question()).toBeNull();
  });

  it('Keep editing stays, and gives the focus back where it was', async () => {
    const user = userEvent.setup();
    const move = vi.fn();
    render(<Harness dirty move={move} />);
    const opener = screen.getByRole('button', { name: 'Open another' });
    await user.click(opener);
    await user.click(screen.getByRole('button', { name: 'Keep editing' }));
    expect(question()).toBeNull();
    expect(move).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(opener);
  });

  it('Escape is Keep editing; the keyboard alone can discard', async () => {
    const user = userEvent.setup();
    const move = vi.fn();
    render(<Harness dirty move={move} />);
    const opener = screen.getByRole('button', { name: 'Open another' });
    opener.focus();
    await user.keyboard('{Enter}');
    await user.keyboard('{Escape}');
    expect(question()).toBeNull();
    expect(move).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(opener);

    await user.keyboard('{Enter}');
    await user.keyboard('{Shift>}{Tab}{/Shift}');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Discard' }));
    await user.keyboard('{Enter}');
    expect(move).toHaveBeenCalledTimes(1);
  });
});

describe('useUnsavedChanges: leaving the screen', () => {
  function shell() {
    return { go: vi.fn(), key: vi.fn(), hash: vi.fn() };
  }

  it('stops a sidebar click, and replays it once on Discard', async () => {
    const user = userEvent.setup();
    const sh = shell();
    render(<Harness dirty screen shell={sh} />);
    await user.click(screen.getByTestId('nav-chat'));
    expect(sh.go).not.toHaveBeenCalled();
    expect(question()).not.toBeNull();
    await user.click(screen.getByRole('button', { name: 'Discard' }));
    expect(sh.go).toHaveBeenCalledTimes(1);
    expect(sh.go).toHaveBeenCalledWith('chat');
  });

  it('lets the current screen’s entry and every click through when nothing is unsaved', async () => {
    const user = userEvent.setup();
    const sh = shell();
    const { rerender } = render(<Harness dirty screen shell={sh} />);
    await user.click(screen.getByTestId('nav-tools'));
    expect(sh.go).toHaveBeenCalledWith('tools');
    rerender(<Harness dirty={false} screen shell={sh} />);
    await user.click(screen.getByTestId('nav-chat'));
    expect(sh.go).toHaveBeenCalledWith('chat');
    expect(question()).toBeNull();
  });

  it('stops Alt+1 and keeps editing on Keep editing', async () => {
    const user = userEvent.setup();
    const sh = shell();
    render(<Harness dirty screen shell={sh} />);
    const name = screen.getByRole('textbox', { name: 'Name' });
    name.focus();
    fireEvent.keyDown(name, { key: '1', altKey: true });
    expect(sh.key).not.toHaveBeenCalled();
    expect(question()).not.toBeNull();
    await user.click(screen.getByRole('button', { name: 'Keep editing' }));
    expect(sh.key).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(name);
  });

  it('replays Alt+1 once on Discard', async () => {
    const user = userEvent.setup();
    const sh = shell();
    render(<Harness dirty screen shell={sh} />);
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'Name' }), { key: '1', altKey: true });
    await user.click(screen.getByRole('button', { name: 'Discard' }));
    expect(sh.key).toHaveBeenCalledTimes(1);
    expect(sh.key.mock.calls[0]![0]).toMatchObject({ key: '1', altKey: true });
  });

  it('undoes the back button while asking, and goes back on Discard', async () => {
    const user = userEvent.setup();
    const sh = shell();
    // Only the addresses written are looked at (this DOM fires hashchange on replaceState, which browsers do not).
    const replace = vi.spyOn(history, 'replaceState').mockImplementation(() => undefined);
    try {
      render(<Harness dirty screen shell={sh} />);
      const base = 'http://localhost:3000/';
      act(() => {
        window.dispatchEvent(new HashChangeEvent('hashchange', { oldURL: `${base}#/tools`, newURL: `${base}#/chat` }));
      });
      expect(sh.hash).not.toHaveBeenCalled();
      expect(replace.mock.calls.map((c) => c[2])).toEqual([`${base}#/tools`]);
      expect(question()).not.toBeNull();
      await user.click(screen.getByRole('button', { name: 'Discard' }));
      expect(sh.hash).toHaveBeenCalledTimes(1);
      expect(sh.hash.mock.calls[0]![0]).toMatchObject({ newURL: `${base}#/chat` });
      expect(replace.mock.calls.map((c) => c[2])).toEqual([`${base}#/tools`, `${base}#/chat`]);
    } finally {
      replace.mockRestore();
    }
  });
});
