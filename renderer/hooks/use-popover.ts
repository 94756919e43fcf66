import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useClickOutside } from './use-click-outside';

/**
 * A button that opens a dialog beside it (the chat's tool selection and extraction thresholds):
 * the button toggles it, opening focuses the dialog's first input, a click outside both closes
 * it, and Escape inside it closes it and gives the focus back to the button, as does `close`
 * (its Close button). `onOpen` runs in the click that opens it (a form shows what is saved now).
 */
export function usePopover<P extends HTMLElement>(panelId: string, onOpen?: () => void) {
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<P>(null);
  useEffect(() => {
    if (open) panelRef.current?.querySelector<HTMLInputElement>('input')?.focus();
  }, [open]);
  useClickOutside(open, [panelRef, buttonRef], () => setOpen(false));
  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };
  /** The panel's onKeyDown: Escape closes it. */
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  };
  const buttonProps = {
    ref: buttonRef,
    type: 'button',
    'aria-expanded': open,
    'aria-controls': panelId,
    'aria-haspopup': 'dialog',
    onClick: () => {
      if (!open) onOpen?.();
      setOpen((o) => !o);
    },
  } as const;
  return { open, close, panelRef, onKeyDown, buttonProps };
}
