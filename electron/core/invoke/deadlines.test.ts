import { describe, expect, it } from 'vitest';
import { Deadlines, TICK_MS } from './deadlines';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Deadlines', () => {
  it('fires a passed deadline within a tick, and never a cleared one', async () => {
    const d = new Deadlines();
    const fired: string[] = [];
    const t0 = Date.now();
    const a = { expire: () => fired.push(`a after ${Date.now() - t0}`) };
    const b = { expire: () => fired.push('b') };
    d.add(a, 30);
    d.add(b, 30);
    d.clear(b, 30);
    await sleep(30 + TICK_MS * 4);
    expect(fired).toHaveLength(1);
    const after = Number(fired[0]!.split(' ')[2]);
    expect(after).toBeGreaterThanOrEqual(30);
    expect(after).toBeLessThan(30 + TICK_MS * 4);
  });

  it('keeps lanes of different lengths apart: a short deadline added last fires first, a long one waits', async () => {
    const d = new Deadlines();
    const fired: string[] = [];
    const entry = (name: string) => ({ expire: () => fired.push(name) });
    d.add(entry('long'), 400);
    d.add(entry('short-1'), 10);
    d.add(entry('short-2'), 10);
    await sleep(10 + TICK_MS * 4);
    expect(fired).toEqual(['short-1', 'short-2']);
    await sleep(400);
    expect(fired).toEqual(['short-1', 'short-2', 'long']);
  });

  it('fires each entry once, even when its handler adds a new deadline or throws', async () => {
    const d = new Deadlines();
    let count = 0;
    const again = { expire: () => count++ };
    const thrower = {
      expire: () => {
        d.add(again, 5);
        throw new Error('handler failed');
      },
    };
    d.add(thrower, 5);
    await sleep(5 + TICK_MS * 6);
    expect(count).toBe(1);
  });
});
