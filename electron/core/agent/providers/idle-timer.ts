/**
 * A watchdog for a streamed model reply. The client libraries' `timeout` covers only the
 * wait for the response headers: a server that stalls after them would hold the turn until
 * the user presses Stop. An IdleTimer, armed once the headers are in and reset on every
 * chunk, aborts the request when nothing arrived for `ms`, and says so in the error.
 *
 * Its `signal` follows the caller's signal (Stop) and adds the idle abort; give it to the
 * library instead of the caller's.
 */
import { AppError } from '../../../../shared/errors';

/** How long a stream may stay silent before the request is abandoned. */
export const STREAM_IDLE_TIMEOUT_MS = 120_000;

export class IdleTimer {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private done = false;
  /** True once the timer fired (the request was aborted for silence). */
  fired = false;

  constructor(
    private readonly ms: number,
    private readonly outer: AbortSignal,
  ) {
    if (outer.aborted) this.controller.abort(outer.reason);
    else outer.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  /** The signal to give the client library. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts (or restarts) the countdown: call when the headers arrived and on every chunk. */
  touch(): void {
    if (this.done || this.fired) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error('the stream went idle'));
    }, this.ms);
  }

  /** Stops watching; call when the stream ended, however it ended. */
  stop(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.outer.removeEventListener('abort', this.onOuterAbort);
  }

  /** The error for a request abandoned for silence. */
  error(baseUrl: string): AppError {
    return new AppError('UNAVAILABLE', `the provider stopped sending for ${describeMs(this.ms)} (${baseUrl}); try again`, {
      baseUrl,
      reason: 'stream-idle',
      idleMs: this.ms,
    });
  }

  private readonly onOuterAbort = (): void => {
    this.controller.abort(this.outer.reason);
  };
}

/** 120000 → "120 s", 1500 → "1.5 s", 200 → "200 ms". */
export function describeMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 100) / 10;
  return `${s} s`;
}
