import { describe, expect, it } from 'vitest';
import { ManualTimers } from '../bundles/testing/manual-timers';
import { ReloadDebounce } from './reload-debounce';

describe('the watcher debounce', () => {
  it('a writer that never pauses still gets a reload at least every maxWaitMs', () => {
    const timers = new ManualTimers();
    const runs: number[] = [];
    const d = new ReloadDebounce(() => runs.push(timers.now()), 250, 1000, timers);
    // Another host writes every 200 ms for 5 s: the 250 ms quiet time never comes.
    for (let t = 0; t < 5000; t += 200) {
      d.trigger();
      timers.advance(200);
    }
    expect(runs).toEqual([1000, 2000, 3000, 4000, 5000]);
  });

  it('a burst becomes one reload, waitMs after its last event', () => {
    const timers = new ManualTimers();
    const runs: number[] = [];
    const d = new ReloadDebounce(() => runs.push(timers.now()), 250, 1000, timers);
    d.trigger();
    timers.advance(100);
    d.trigger();
    timers.advance(100);
    d.trigger();
    timers.advance(1000);
    expect(runs).toEqual([450]);
    // The next burst has its own deadline.
    d.trigger();
    timers.advance(1000);
    expect(runs).toEqual([450, 1450]);
  });

  it('cancel drops a pending reload', () => {
    const timers = new ManualTimers();
    let runs = 0;
    const d = new ReloadDebounce(() => runs++, 250, 1000, timers);
    d.trigger();
    d.cancel();
    timers.advance(5000);
    expect(runs).toBe(0);
    expect(timers.pending).toBe(0);
  });
});
