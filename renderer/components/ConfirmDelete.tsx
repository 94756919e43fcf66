import { useId, useState } from 'react';

export interface ConfirmDeleteProps {
  /** `<testId>` is the Delete button; the question is `<testId>-confirmation`, its buttons `<testId>-confirm` and `<testId>-keep`. */
  testId: string;
  /** The Delete button's text. */
  label: string;
  /** What is asked, naming what goes. */
  question: string;
  /** The button that deletes. */
  confirmLabel: string;
  /** The button that keeps it and closes the question. */
  keepLabel: string;
  /** The delete's failure, shown under the question. */
  error: { message: string } | null;
  /** While the delete is under way the confirming button is off. */
  pending: boolean;
  onConfirm: () => void;
}

/**
 * A Delete button that asks first: the question (an alertdialog named by its text), the
 * failure of the last try, and two buttons, the confirming one focused. Inspect's buffers and
 * stored outputs use it (styled by inspect.css: `.inspect-confirm`, `.inspect-danger`).
 */
export function ConfirmDelete({ testId, label, question, confirmLabel, keepLabel, error, pending, onConfirm }: ConfirmDeleteProps) {
  const [confirming, setConfirming] = useState(false);
  const questionId = useId();
  if (!confirming) {
    return (
      <button type="button" className="inspect-danger" data-testid={testId} onClick={() => setConfirming(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="inspect-confirm" role="alertdialog" aria-labelledby={questionId} data-testid={`${testId}-confirmation`}>
      <p id={questionId}>{question}</p>
      {error && (
        <p className="field-error" role="alert">
          {error.message}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="inspect-danger" data-testid={`${testId}-confirm`} disabled={pending} onClick={onConfirm} autoFocus>
          {confirmLabel}
        </button>
        <button type="button" data-testid={`${testId}-keep`} onClick={() => setConfirming(false)}>
          {keepLabel}
        </button>
      </div>
    </div>
  );
}
