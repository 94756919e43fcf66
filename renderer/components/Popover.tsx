/**
 * A panel that opens beside the button that opens it (a menu, a small form): rendered while
 * open, it closes on a press anywhere outside it and its button, and on Escape inside it,
 * which gives the focus back to the button. Opening can move the focus in. `usePopover` adds
 * the usual button: it toggles the panel and says so (aria-expanded, aria-controls).
 *
 *   const { open, close, buttonProps, popoverProps } = usePopover(panelId);
 *   <button {...buttonProps}>Tools</button>
 *   {open && <Popover {...popoverProps} role="dialog" aria-label="Tools">…<button onClick={close}>Close</button></Popover>}
 */
import { useEffect, useEffectEvent, useRef, useState, type FormHTMLAttributes, type KeyboardEvent, type Ref, type RefObject } from 'react';

/** Whether `target` lies outside every one of `elements` (an element not rendered holds nothing). */
export function isOutside(target: Node, elements: readonly (Pick<Node, 'contains'> | null | undefined)[]): boolean {
  return !elements.some((el) => el?.contains(target));
}

export type PopoverCloseReason = 'outside' | 'escape';

export interface PopoverProps extends FormHTMLAttributes<HTMLElement> {
  /** The element: a div, a span (inside a line of text or a row of buttons), or a form. */
  as?: 'div' | 'span' | 'form';
  /** The button that opens it: a press on it is not "outside" (its own click toggles), and Escape gives it the focus back. */
  anchorRef: RefObject<HTMLElement | null>;
  /** Asked to close: a press outside ('outside': the focus stays where the press put it) or Escape ('escape': the focus is back on the button). */
  onClose(reason: PopoverCloseReason): void;
  /** On opening, the focus goes to the first element inside that matches this selector. */
  initialFocus?: string;
  ref?: Ref<HTMLElement>;
  'data-testid'?: string;
}

export function Popover({ as: Tag = 'div', anchorRef, onClose, initialFocus, onKeyDown, ref, ...rest }: PopoverProps) {
  const panelRef = useRef<HTMLElement | null>(null);
  const closeOutside = useEffectEvent(() => onClose('outside'));

  useEffect(() => {
    if (initialFocus) panelRef.current?.querySelector<HTMLElement>(initialFocus)?.focus();
  }, [initialFocus]);

  useEffect(() => {
    const onDown = (e: MouseEvent) => {
      if (isOutside(e.target as Node, [panelRef.current, anchorRef.current])) closeOutside();
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [anchorRef]);

  const setRef = (el: HTMLElement | null) => {
    panelRef.current = el;
    if (typeof ref === 'function') ref(el);
    else if (ref) ref.current = el;
  };

  return (
    <Tag
      {...rest}
      ref={setRef}
      onKeyDown={(e: KeyboardEvent<HTMLElement>) => {
        onKeyDown?.(e);
        if (e.key !== 'Escape' || e.defaultPrevented) return;
        e.preventDefault();
        e.stopPropagation();
        anchorRef.current?.focus();
        onClose('escape');
      }}
    />
  );
}

/**
 * The state of a button and its popover panel (the chat's tool selection and extraction
 * thresholds): the button toggles the panel, opening focuses the panel's first input, and
 * `close` (its Close button) closes it and gives the focus back to the button. `onOpen` runs
 * in the click that opens it (a form shows what is saved now).
 */
export function usePopover(panelId: string, onOpen?: () => void) {
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
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
  const popoverProps = { id: panelId, anchorRef: buttonRef, initialFocus: 'input', onClose: () => setOpen(false) };
  return { open, close, buttonProps, popoverProps };
}
