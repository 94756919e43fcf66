/** Timers a test moves by hand: nothing runs until advance() passes its due time. */
export class ManualTimers {
  private t = 0;
  private nextId = 1;
  private readonly due = new Map<number, { at: number; fn: () => void; everyMs?: number }>();

  now = (): number => this.t;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = this.nextId++;
    this.due.set(id, { at: this.t + ms, fn });
    return id;
  };

  clearTimeout = (handle: unknown): void => {
    this.due.delete(handle as number);
  };

  setInterval = (fn: () => void, ms: number): unknown => {
    const id = this.nextId++;
    this.due.set(id, { at: this.t + ms, fn, everyMs: ms });
    return id;
  };

  clearInterval = (handle: unknown): void => {
    this.due.delete(handle as number);
  };

  /** How many timers are waiting. */
  get pending(): number {
    return this.due.size;
  }

  /** Moves time forward by `ms`, running every timer that comes due, in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void; everyMs?: number }] | undefined;
      for (const entry of this.due) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      const [id, timer] = next;
      this.t = timer.at;
      if (timer.everyMs) timer.at += timer.everyMs;
      else this.due.delete(id);
      timer.fn();
    }
    this.t = end;
  }
}
