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
  /** JavaScript's RegExp source, or with engine 're2' an RE2 source (./ecma-to-re2.ts). */
  pattern: string;
  flags: string;
  input: string;
  /** Which engine runs it: JavaScript's (default), or re2js for a program too large to run on the caller's thread. */
  engine?: 're2';
  /** With engine 're2': the whole text must match. */
  whole?: boolean;
}
export type SyncRegexReply = { seq: number; ok: true; matched: boolean } | { seq: number; ok: false; message: string };
