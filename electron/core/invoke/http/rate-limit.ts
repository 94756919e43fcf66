/**
 * Per-tool `maxCallsPerMinute`: a sliding window (the exact log of call times in the last
 * minute) keyed by tool id. A call over the limit is refused with RATE_LIMITED and
 * `retryAfterMs`, the time until the oldest call in the window leaves it. Each call of a
 * tool counts once, however many attempts (retries) it makes; refused calls do not count.
 */
import { AppError } from '../../../../shared/errors';

export const RATE_WINDOW_MS = 60_000;

/** A growable queue of timestamps with O(1) amortised push and drop-from-front. */
class TimeQueue {
  private items: number[] = [];
  private head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  /** The i-th oldest timestamp (0 = oldest). */
  at(i: number): number | undefined {
    return this.items[this.head + i];
  }
  push(t: number): void {
    this.items.push(t);
  }
  dropBefore(t: number): void {
    while (this.head < this.items.length && this.items[this.head]! <= t) this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

export class RateLimiter {
  private readonly windows = new Map<string, TimeQueue>();
  private readonly now: () => number;
  private readonly windowMs: number;

  constructor(opts: { now?: () => number; windowMs?: number } = {}) {
    this.now = opts.now ?? Date.now;
    this.windowMs = opts.windowMs ?? RATE_WINDOW_MS;
  }

  /**
   * Records one call of `toolId`, or throws RATE_LIMITED (details: toolId, limit,
   * retryAfterMs) when `maxPerMinute` calls were already made in the last minute.
   * No limit (undefined) always passes and records nothing.
   */
  take(toolId: string, maxPerMinute: number | undefined): void {
    if (maxPerMinute === undefined) return;
    const t = this.now();
    let q = this.windows.get(toolId);
    if (!q) this.windows.set(toolId, (q = new TimeQueue()));
    q.dropBefore(t - this.windowMs);
    if (q.size >= maxPerMinute) {
      // Enough calls must leave the window that fewer than `maxPerMinute` remain (more than
      // one when the limit was lowered since they were made).
      const leaving = q.at(q.size - maxPerMinute) ?? t;
      const retryAfterMs = Math.max(1, leaving + this.windowMs - t);
      throw new AppError('RATE_LIMITED', `this tool may be called at most ${maxPerMinute} times per minute; try again in ${Math.ceil(retryAfterMs / 1000)} s`, {
        toolId,
        limit: maxPerMinute,
        retryAfterMs,
      });
    }
    q.push(t);
    this.prune(t);
  }

  /** How many calls of `toolId` are in the current window. */
  count(toolId: string): number {
    const q = this.windows.get(toolId);
    if (!q) return 0;
    q.dropBefore(this.now() - this.windowMs);
    return q.size;
  }

  /** Forgets the calls of one tool (e.g. after its limit was edited) or of all. */
  reset(toolId?: string): void {
    if (toolId === undefined) this.windows.clear();
    else this.windows.delete(toolId);
  }

  private lastPrune = 0;
  /** Drops tools with no call in the window, at most once per window, so the map stays small. */
  private prune(t: number): void {
    if (t - this.lastPrune < this.windowMs) return;
    this.lastPrune = t;
    for (const [id, q] of this.windows) {
      q.dropBefore(t - this.windowMs);
      if (q.size === 0) this.windows.delete(id);
    }
  }
}
