/**
 * A button for an action that cannot be undone: pressing it asks first. It asks in a modal
 * dialog (the default: a row's ✕, a list's Delete) or in place of the button ('inline': a
 * form's Delete, where the question, its failure and the pending state stay in view). The
 * confirming button has the focus, so Enter confirms and Escape (or the other button) keeps
 * things as they are; either way the focus comes back to the button.
 *
 *   <ConfirmButton question={`Delete “${name}”?`} confirmLabel="Delete" onConfirm={remove} aria-label={`Delete ${name}`}>✕</ConfirmButton>
 *
 * Test ids, from the button's `data-testid` T: the question is `T-confirmation`, its buttons
 * `T-confirm` and `T-keep`.
 */
import { useId, useRef, useState, type ButtonHTMLAttributes } from 'react';
import { formStrings } from '../i18n/form-strings';
import { Dialog } from './Dialog';
import { FieldError } from './Field';
import './parts.css';

export interface ConfirmButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'type'> {
  /** What is asked, naming what goes. */
  question: string;
  /** The button that does it ("Delete"). */
  confirmLabel: string;
  /** The button that keeps things as they are. */
  cancelLabel?: string;
  onConfirm(): void;
  /** 'dialog': a modal dialog asks (it closes as the action starts); 'inline': the question takes the button's place until the action's outcome removes it or the person keeps things. */
  asks?: 'dialog' | 'inline';
  /** While the action runs: the button (and the inline question's confirming button) says it is unavailable, keeps the focus, and ignores presses. */
  pending?: boolean;
  /** Inline: the last try's failure, under the question. */
  error?: { message: string } | null;
  /** Inline: the class of the question's box (`confirm-inline` by default). */
  boxClassName?: string;
  /** The confirming button's class (`confirm-danger` by default). */
  confirmClassName?: string;
  'data-testid'?: string;
}

export function ConfirmButton({
  question,
  confirmLabel,
  cancelLabel = formStrings.confirm.cancel,
  onConfirm,
  asks = 'dialog',
  pending = false,
  error,
  boxClassName = 'confirm-inline',
  confirmClassName = 'confirm-danger',
  'data-testid': testId,
  ...button
}: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const questionId = useId();
  /** Set when the question closes without the action: the button, drawn again, takes the focus. */
  const refocus = useRef(false);
  const keep = () => {
    // A dialog gives the focus back itself.
    if (asks === 'inline') refocus.current = true;
    setAsking(false);
  };
  const confirm = () => {
    if (pending) return;
    if (asks === 'dialog') setAsking(false);
    onConfirm();
  };
  const sub = (part: string) => (testId ? `${testId}-${part}` : undefined);
  const actions = (
    <div className="form-actions">
      <button type="button" className={confirmClassName} data-testid={sub('confirm')} data-autofocus aria-disabled={pending || undefined} autoFocus={asks === 'inline'} onClick={confirm}>
        {confirmLabel}
      </button>
      <button type="button" data-testid={sub('keep')} onClick={keep}>
        {cancelLabel}
      </button>
    </div>
  );

  if (asks === 'inline' && asking) {
    return (
      <div
        className={boxClassName}
        role="alertdialog"
        aria-labelledby={questionId}
        data-testid={sub('confirmation')}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            keep();
          }
        }}
      >
        <p id={questionId}>{question}</p>
        {error && <FieldError role="alert">{error.message}</FieldError>}
        {actions}
      </div>
    );
  }
  return (
    <>
      <button
        {...button}
        ref={(el) => {
          // The inline question gave its place back: the new button takes the focus.
          if (el && refocus.current) {
            refocus.current = false;
            el.focus();
          }
        }}
        type="button"
        data-testid={testId}
        aria-haspopup={asks === 'dialog' ? 'dialog' : undefined}
        aria-disabled={pending || undefined}
        onClick={() => !pending && setAsking(true)}
      />
      {asks === 'dialog' && (
        <Dialog open={asking} title={question} role="alertdialog" onClose={keep} data-testid={sub('confirmation')}>
          {actions}
        </Dialog>
      )}
    </>
  );
}
