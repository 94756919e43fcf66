/**
 * The messages between the core and a sandbox worker (./script-worker.ts). One call runs in a
 * worker at a time. What a script asks of the host (ctx.fetch, ctx.call) goes to the core as an
 * `op` and comes back as an `op-result`; log lines go with the answer (and, when asked for, one
 * by one as they are written). Cancelling sets the shared flag (read by QuickJS's interrupt
 * handler while the script computes) and posts `cancel` (read while it waits).
 *
 * The flag (a SharedArrayBuffer of FLAG_WORDS 32-bit words) also counts the messages the core
 * posts: an idle worker waits on that word (Atomics.wait) and takes them from its port itself.
 */
import type { ErrorCode } from '../../../shared/errors';
import type { ScriptLogLineShape as ScriptLogLine } from '../../../shared/model/script-limits';

/** The flag's words: the call id being cancelled, and the count of messages the core posted (bumped and notified after each). */
export const FLAG_CANCEL = 0;
export const FLAG_POSTED = 1;
export const FLAG_WORDS = 2;

export interface RunLimits {
  timeLimitMs: number;
  memoryBytes: number;
  maxOutputBytes: number;
}

/** One call of a script, as the pool is asked for it and sends it on to a worker. */
export interface RunRequest {
  /** What a prepared sandbox of this script may be reused for: the same tool, source and limits. */
  key: string;
  source: string;
  /** The name the script's stack traces show (`<slug>.js`). */
  filename: string;
  argsJson: string;
  invocationId: string;
  limits: RunLimits;
  /** Send each log line as it is written (to the pool's `onLog`). */
  live: boolean;
}

export type ToWorker =
  | { t: 'init'; wasm: WebAssembly.Module; flag: SharedArrayBuffer }
  | ({ t: 'run'; callId: number } & RunRequest)
  | { t: 'op-result'; callId: number; opId: number; ok: true; json: string }
  | { t: 'op-result'; callId: number; opId: number; ok: false; error: { code: ErrorCode; message: string } }
  | { t: 'cancel'; callId: number };

export type OpKind = 'fetch' | 'call';

/** How a call ended in the sandbox. `retire`: the worker will not be used again (its engine may be damaged). */
export type RunEnd =
  | { ok: true; json: string; logs: ScriptLogLine[] }
  | { ok: false; error: { code: ErrorCode; message: string; details?: Record<string, unknown> }; logs: ScriptLogLine[] };

export type FromWorker =
  | { t: 'ready' }
  | { t: 'init-failed'; message: string }
  | { t: 'op'; callId: number; opId: number; kind: OpKind; payload: string }
  | { t: 'log'; callId: number; line: ScriptLogLine }
  | ({ t: 'done'; callId: number; retire?: boolean } & RunEnd);
