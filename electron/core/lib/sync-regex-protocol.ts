/**
 * What ./sync-regex.ts and its worker (./sync-regex-worker.ts) share: the slots of the shared
 * state and the messages. Kept apart so that neither side loads the other's code.
 */
import type { MessagePort } from 'node:worker_threads';

/** Slot that holds the seq of the job the worker picked up last. */
export const STARTED = 0;
/** Slot that holds the seq of the job whose reply was posted last. */
export const DONE = 1;

export interface SyncRegexInit {
  init: { shared: SharedArrayBuffer; port: MessagePort };
}
export interface SyncRegexJob {
  seq: number;
  pattern: string;
  flags: string;
  input: string;
}
export type SyncRegexReply = { seq: number; ok: true; matched: boolean } | { seq: number; ok: false; message: string };
