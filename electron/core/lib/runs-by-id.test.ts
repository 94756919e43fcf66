import { describe, expect, it } from 'vitest';
import { RunsById } from './runs-by-id';

/** A run that tells `steps` and then waits for its signal (or `finish`), ending with its steps or the abort. */
function waiting() {
  let finish!: (v: string) => void;
  const finished = new Promise<string>((r) => (finish = r));
  const run = (steps: string[]) => (signal: AbortSignal, tell: (p: string) => void) => {
    for (const s of steps) tell(s);
    return new Promise<string>((resolve, reject) => {
      if (signal.aborted) reject(new Error('stopped'));
      signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
      void finished.then(resolve);
    });
  };
  return { run, finish };
}

describe('RunsById', () => {
  it('keeps a run under its id with its steps numbered for a late follower, refuses the id twice, and forgets the run when it ends', async () => {
    let t = Date.parse('2026-12-01T10:00:00Z');
    const runs = new RunsById<string, { bundleIds: string[] | null }>('a test run', () => new Date((t += 1000)));
    const told: [string, number][] = [];
    const ends: unknown[] = [];
    const w = waiting();
    const info = { bundleIds: ['b1'] };
    const first = runs.start('r1', info, { onProgress: (p, seq) => told.push([p, seq]), onEnd: (e) => ends.push(e) }, w.run(['plan', 'case']));

    expect(told).toEqual([['plan', 0], ['case', 1]]);
    const listed = runs.list();
    expect(listed).toEqual([{ runId: 'r1', bundleIds: ['b1'], startedAt: '2026-12-01T10:00:01.000Z', progress: ['plan', 'case'] }]);
    // Copies: what a caller does with the list is not the run's.
    listed[0]!.bundleIds!.push('x');
    listed[0]!.progress.push('x');
    expect(runs.list()[0]).toMatchObject({ bundleIds: ['b1'], progress: ['plan', 'case'] });

    // A second run under the same id is the caller's mistake: refused, and not the end of the first.
    await expect(runs.start('r1', info, { onEnd: (e) => ends.push(e) }, w.run([]))).rejects.toMatchObject({ code: 'CONFLICT', message: "a test run with the run id 'r1' is already running" });
    expect(ends).toEqual([]);

    w.finish('done');
    expect(await first).toBe('done');
    expect(ends).toEqual([{ value: 'done' }]);
    expect(runs.list()).toEqual([]);
    expect(runs.cancel('r1')).toBe(false);
  });

  it('stops a run by its id, by the caller’s signal, or all at once; the end is told with the error', async () => {
    const runs = new RunsById<string>('a test run');
    const ends: unknown[] = [];
    const one = runs.start('one', {}, { onEnd: (e) => ends.push(e) }, waiting().run([]));
    expect(runs.cancel('one')).toBe(true);
    await expect(one).rejects.toThrow('stopped');
    expect(ends).toEqual([{ error: expect.objectContaining({ message: 'stopped' }) }]);

    const caller = new AbortController();
    const two = runs.start('two', {}, { signal: caller.signal }, waiting().run([]));
    caller.abort();
    await expect(two).rejects.toThrow('stopped');
    // A signal that has fired already stops the run at once.
    await expect(runs.start('three', {}, { signal: caller.signal }, waiting().run([]))).rejects.toThrow('stopped');

    const more = ['a', 'b'].map((id) => runs.start(id, {}, {}, waiting().run([])).catch((e: Error) => e.message));
    expect(runs.list().map((r) => r.runId)).toEqual(['a', 'b']);
    runs.cancelAll();
    await runs.idle();
    expect(await Promise.all(more)).toEqual(['stopped', 'stopped']);
    expect(runs.list()).toEqual([]);
  });
});
