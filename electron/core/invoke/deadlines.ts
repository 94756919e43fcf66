/**
 * Timeouts for many short calls: one ticking timer checks every deadline, instead of a
 * timer set and cleared per call (which costs more than a quick local tool itself).
 * A deadline fires within TICK_MS after it passes.
 *
 * Deadlines are kept in lanes, one per timeout length. Within a lane, entries added later
 * expire later (the clock is monotonic), so a lane is a queue in insertion order: adding
 * and clearing are O(1), and a tick looks only at the expired entries and at the head of
 * each lane. An entry is the caller's own object (its `expire` is called); nothing is
 * allocated per deadline but the lane's slot.
 */
export const TICK_MS = 20;

export interface DeadlineEntry {
  /** Called once, from the timer, when the deadline has passed and was not cleared. */
  expire(): void;
}

export class Deadlines {
  /** Timeout length (ms) -> entries in insertion (= deadline) order -> when they expire. */
  private readonly lanes = new Map<number, Map<DeadlineEntry, number>>();
  private timer: NodeJS.Timeout | null = null;

  /** Calls `entry.expire()` once `ms` have passed since `now` (performance.now()), unless cleared first. */
  add(entry: DeadlineEntry, ms: number, now: number = performance.now()): void {
    let lane = this.lanes.get(ms);
    if (!lane) {
      lane = new Map();
      this.lanes.set(ms, lane);
    }
    lane.set(entry, now + ms);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
    }
  }

  /** Forgets an entry's deadline; `ms` is the length it was added with. */
  clear(entry: DeadlineEntry, ms: number): void {
    this.lanes.get(ms)?.delete(entry);
  }

  /** Fires every deadline passed at `now`; the timer calls it each TICK_MS (tests call it with a clock of their own). */
  tick(now: number = performance.now()): void {
    const due: DeadlineEntry[] = [];
    for (const [ms, lane] of this.lanes) {
      for (const [entry, at] of lane) {
        if (at > now) break;
        lane.delete(entry);
        due.push(entry);
      }
      if (lane.size === 0) this.lanes.delete(ms);
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
