/**
 * Queues that run async tasks one at a time, in the order they were given: two quick
 * changes to one file can never interleave their writes. A task's failure is its caller's
 * (the promise `run` returns rejects); the tasks after it run as usual.
 */

type Task<T> = () => T | Promise<T>;

/** One queue: every task waits for the one before it. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every task queued before it has settled; resolves or rejects as `task` does. */
  run<T>(task: Task<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Settles once every task queued so far has settled; never rejects. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}

/** One queue per key: tasks of one key run one at a time, tasks of other keys freely. */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` once every task queued before it under `key` has settled. */
  async run<T>(key: string, task: Task<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await run;
    } finally {
      // A drained key is forgotten, so the map does not grow with every key ever used.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.tails.size;
  }
}
