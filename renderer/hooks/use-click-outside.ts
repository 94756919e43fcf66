import { useEffect, useEffectEvent, type RefObject } from 'react';

/** Whether `target` lies outside every one of `elements` (an element not rendered holds nothing). */
export function isOutside(target: Node, elements: readonly (Pick<Node, 'contains'> | null | undefined)[]): boolean {
  return !elements.some((el) => el?.contains(target));
}

/**
 * While `open`, a mouse press anywhere outside the elements of `refs` calls `close`: a popover
 * or menu closes on a click elsewhere. Its own button belongs in `refs`, so that the button's
 * click toggles it instead. Escape is left to each popover's key handling.
 */
export function useClickOutside(open: boolean, refs: readonly RefObject<HTMLElement | null>[], close: () => void): void {
  // The latest refs and close, without listening again on each render.
  const onPress = useEffectEvent((target: Node) => {
    if (isOutside(target, refs.map((r) => r.current))) close();
  });
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => onPress(e.target as Node);
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);
}
