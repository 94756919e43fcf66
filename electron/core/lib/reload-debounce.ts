/**
 * The watcher's debounce: a burst of file events becomes one reload, run `waitMs` after the
 * last event, but never more than `maxWaitMs` after the first event of the burst. Without
 * the maximum, a writer that never pauses for `waitMs` (another host saving every 200 ms)
 * would keep this host's view stale for as long as it kept writing.
 */

/** The timers the debounce runs on; tests pass ones they move by hand. */
export interface DebounceTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const NODE_TIMERS: DebounceTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class ReloadDebounce {
  private handle: unknown;
  private burstStartedAt: number | undefined;

  constructor(
    private readonly run: () => void,
    private readonly waitMs: number,
    private readonly maxWaitMs: number,
    private readonly timers: DebounceTimers = NODE_TIMERS,
  ) {}

  /** An event: the run moves to `waitMs` from now, but not past the burst's deadline. */
  trigger(): void {
    const now = this.timers.now();
    this.burstStartedAt ??= now;
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    const due = Math.min(now + this.waitMs, this.burstStartedAt + this.maxWaitMs);
    this.handle = this.timers.setTimeout(() => this.fire(), Math.max(0, due - now));
  }

  cancel(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
    this.burstStartedAt = undefined;
  }

  private fire(): void {
    this.handle = undefined;
    this.burstStartedAt = undefined;
    this.run();
  }
}
