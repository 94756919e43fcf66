/**
 * A modal dialog: the native <dialog>, opened with showModal() (the page behind is inert and
 * the browser keeps the focus inside), named by its title. Opening moves the focus in (to the
 * element marked `data-autofocus`, else the first control); Escape closes it; closing gives
 * the focus back to the element that had it. It is drawn over the page (a portal into the
 * body), and keys and clicks inside it stay in it: the screen behind does not act on them.
 *
 *   <Dialog open={asking} title="Delete “Notes”?" onClose={() => setAsking(false)}>
 *     <div className="form-actions">…</div>
 *   </Dialog>
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import './parts.css';

export interface DialogProps {
  open: boolean;
  /** Its heading, which names it. */
  title: ReactNode;
  /** Escape was pressed (or the browser asked to close it): the caller sets `open` to false. */
  onClose(): void;
  children: ReactNode;
  /** 'alertdialog' for a question that needs an answer before anything else (a confirmation). */
  role?: 'dialog' | 'alertdialog';
  /** The id of the text that says more than the title. */
  describedBy?: string;
  className?: string;
  'data-testid'?: string;
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Dialog({ open, title, onClose, children, role = 'dialog', describedBy, className, 'data-testid': testId }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!open || !dialog) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    (dialog.querySelector<HTMLElement>('[data-autofocus]') ?? dialog.querySelector<HTMLElement>(FOCUSABLE))?.focus();
    return () => {
      if (dialog.open) dialog.close();
      if (before?.isConnected) before.focus();
    };
  }, [open]);

  if (!open) return null;
  return createPortal(
    <dialog
      ref={ref}
      role={role === 'alertdialog' ? 'alertdialog' : undefined}
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      className={className ? `dialog ${className}` : 'dialog'}
      data-testid={testId}
      onCancel={(e) => {
        // The browser's own close (Escape): the caller closes it, so that `open` stays the truth.
        e.preventDefault();
        onClose();
      }}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Escape') {
          e.preventDefault();
          onClose();
        }
      }}
      onClick={(e) => e.stopPropagation()}
    >
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>,
    document.body,
  );
}
