/**
 * Timeouts for many short calls: one ticking timer checks every deadline, instead of a
 * timer set and cleared per call (which costs more than a quick local tool itself).
 * A deadline fires within TICK_MS after it passes.
 *
 * Deadlines are kept in lanes, one per timeout length. Within a lane, entries added later
 * expire later (the clock is monotonic), so a lane is a queue in insertion order: adding
 * and clearing are O(1), and a tick looks only at the expired entries and at the head of
 * each lane. A lane is a list linked through the entries themselves (the caller's own
 * objects, whose `expire` is called): nothing is allocated or hashed per deadline.
 */
export const TICK_MS = 20;

/** One timeout length's entries, oldest first. */
export interface Lane {
  readonly ms: number;
  head: DeadlineEntry | null;
  tail: DeadlineEntry | null;
}

export interface DeadlineEntry {
  /** Called once, from the timer, when the deadline has passed and was not cleared. */
  expire(): void;
  /** Kept by Deadlines: when it expires, and its place in its lane (an entry is in one lane at most). */
  deadlineAt?: number;
  deadlineLane?: Lane | null;
  deadlinePrev?: DeadlineEntry | null;
  deadlineNext?: DeadlineEntry | null;
}

export class Deadlines {
  /** Timeout length (ms) -> its lane. */
  private readonly lanes = new Map<number, Lane>();
  private timer: NodeJS.Timeout | null = null;

  /** Calls `entry.expire()` once `ms` have passed since `now` (performance.now()), unless cleared first. */
  add(entry: DeadlineEntry, ms: number, now: number = performance.now()): void {
    if (entry.deadlineLane) this.clear(entry);
    let lane = this.lanes.get(ms);
    if (!lane) {
      lane = { ms, head: null, tail: null };
      this.lanes.set(ms, lane);
    }
    entry.deadlineAt = now + ms;
    entry.deadlineLane = lane;
    entry.deadlinePrev = lane.tail;
    entry.deadlineNext = null;
    if (lane.tail) lane.tail.deadlineNext = entry;
    else lane.head = entry;
    lane.tail = entry;
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
    }
  }

  /** Forgets an entry's deadline (nothing happens for one that has none). */
  clear(entry: DeadlineEntry): void {
    const lane = entry.deadlineLane;
    if (!lane) return;
    const prev = entry.deadlinePrev ?? null;
    const next = entry.deadlineNext ?? null;
    if (prev) prev.deadlineNext = next;
    else lane.head = next;
    if (next) next.deadlinePrev = prev;
    else lane.tail = prev;
    entry.deadlineLane = null;
    entry.deadlinePrev = null;
    entry.deadlineNext = null;
  }

  /** Fires every deadline passed at `now`; the timer calls it each TICK_MS (tests call it with a clock of their own). */
  tick(now: number = performance.now()): void {
    const due: DeadlineEntry[] = [];
    for (const lane of this.lanes.values()) {
      for (let e = lane.head; e && (e.deadlineAt ?? 0) <= now; e = lane.head) {
        this.clear(e);
        due.push(e);
      }
      if (!lane.head) this.lanes.delete(lane.ms);
    }
    if (this.lanes.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
    for (const entry of due) {
      try {
        entry.expire();
      } catch (e) {
        console.warn('a deadline handler failed:', (e as Error).message);
      }
    }
  }
}
