/**
 * Timeouts for many short calls: one ticking timer checks every deadline, instead of a
 * timer set and cleared per call (which costs more than a quick local tool itself).
 * A deadline fires within TICK_MS after it passes.
 */
export const TICK_MS = 20;

export class Deadlines {
  private readonly entries = new Map<object, { at: number; fire: () => void }>();
  private timer: NodeJS.Timeout | null = null;

  /** Calls `fire` once `ms` have passed, unless cleared first. */
  add(key: object, ms: number, fire: () => void): void {
    this.entries.set(key, { at: Date.now() + ms, fire });
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
    }
  }

  clear(key: object): void {
    this.entries.delete(key);
  }

  private tick(): void {
    const now = Date.now();
    for (const [key, e] of this.entries) {
      if (e.at <= now) {
        this.entries.delete(key);
        e.fire();
      }
    }
    if (this.entries.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}
