/**
 * Closing, reloading or quitting while the window holds unsaved changes. The page cancels its
 * `beforeunload` then (renderer/components/UnsavedChanges.tsx); a browser asks on its own, but
 * Electron only tells the main process (`will-prevent-unload`) and would otherwise keep the
 * window open without a word. This is the question asked there: Keep editing is the default and
 * what Escape answers; Discard lets the window close or reload.
 */
import type { MessageBoxSyncOptions } from 'electron';

export const UNSAVED_KEEP = 0;
export const UNSAVED_DISCARD = 1;

export const UNSAVED_PROMPT: MessageBoxSyncOptions = {
  type: 'question',
  title: 'Unsaved changes',
  message: 'Discard unsaved changes?',
  detail: 'The changes not saved yet are lost if the window closes or reloads now.',
  buttons: ['Keep editing', 'Discard'],
  defaultId: UNSAVED_KEEP,
  cancelId: UNSAVED_KEEP,
  noLink: true,
};

/** Whether the answer of the question lets the window go. */
export function mayUnload(answer: number): boolean {
  return answer === UNSAVED_DISCARD;
}
