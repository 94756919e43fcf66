/**
 * A button that keeps the keyboard focus while it cannot act (busy, or nothing to act on).
 * A natively disabled button drops the focus to the page the moment it is disabled, so a
 * person who pressed Enter on "Run" could no longer press Escape in the tester, and Tab
 * would start over from wherever the browser chooses. This one says it is unavailable
 * (aria-disabled, dimmed) and ignores presses instead.
 *
 *   <BusyButton unavailable={running} data-testid="tester-run" onClick={start}>Run</BusyButton>
 */
import type { ButtonHTMLAttributes, Ref } from 'react';
import './busy-button.css';

export interface BusyButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'disabled' | 'type'> {
  /** True while a press would do nothing. */
  unavailable: boolean;
  /** A submit button is refused too while unavailable (Enter in a field of its form included). */
  submit?: boolean;
  'data-testid'?: string;
  ref?: Ref<HTMLButtonElement>;
}

export function BusyButton({ unavailable, submit, onClick, ...rest }: BusyButtonProps) {
  return (
    <button
      {...rest}
      type={submit ? 'submit' : 'button'}
      aria-disabled={unavailable || undefined}
      onClick={(e) => {
        if (unavailable) {
          e.preventDefault();
          return;
        }
        onClick?.(e);
      }}
    />
  );
}
