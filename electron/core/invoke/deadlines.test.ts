import { describe, expect, it } from 'vitest';
import { Deadlines } from './deadlines';

/**
 * The deadlines are added on a clock far ahead of performance.now(), so the real timer
 * never finds them due: each test moves time itself with tick(now) and checks what fired.
 */
const FAR = () => performance.now() + 1e9;

describe('Deadlines', () => {
  it('fires a passed deadline once, not before it passes, and never a cleared one', () => {
    const d = new Deadlines();
    const base = FAR();
    const fired: string[] = [];
    const a = { expire: () => fired.push('a') };
    const b = { expire: () => fired.push('b') };
    d.add(a, 30, base);
    d.add(b, 30, base);
    d.clear(b);
    d.tick(base + 29);
    expect(fired).toEqual([]);
    d.tick(base + 30);
    expect(fired).toEqual(['a']);
    d.tick(base + 1000);
    expect(fired).toEqual(['a']);
  });

  it('keeps lanes of different lengths apart: a short deadline added last fires first, a long one waits', () => {
    const d = new Deadlines();
    const base = FAR();
    const fired: string[] = [];
    const entry = (name: string) => ({ expire: () => fired.push(name) });
    d.add(entry('long'), 400, base);
    d.add(entry('short-1'), 10, base + 1);
    d.add(entry('short-2'), 10, base + 2);
    d.tick(base + 12);
    expect(fired).toEqual(['short-1', 'short-2']);
    d.tick(base + 399);
    expect(fired).toEqual(['short-1', 'short-2']);
    d.tick(base + 400);
    expect(fired).toEqual(['short-1', 'short-2', 'long']);
  });

  it('fires each entry once, even when its handler adds a new deadline or throws', () => {
    const d = new Deadlines();
    const base = FAR();
    let count = 0;
    const again = { expire: () => count++ };
    const thrower = {
      expire: () => {
        d.add(again, 5, base + 5);
        throw new Error('handler failed');
      },
    };
    d.add(thrower, 5, base);
    d.tick(base + 5);
    expect(count).toBe(0);
    d.tick(base + 10);
    d.tick(base + 20);
    expect(count).toBe(1);
  });

  it('clears an entry anywhere in its lane, and moves an entry added again to its new deadline', () => {
    const d = new Deadlines();
    const base = FAR();
    const fired: string[] = [];
    const entry = (name: string) => ({ expire: () => fired.push(name) });
    const [a, b, c, e] = [entry('a'), entry('b'), entry('c'), entry('e')];
    for (const [i, x] of [a, b, c, e].entries()) d.add(x, 10, base + i);
    d.clear(b); // the middle
    d.clear(e); // the tail
    d.clear(e); // twice: nothing
    d.add(a, 100, base + 5); // moved to another lane, out of this one
    d.tick(base + 50);
    expect(fired).toEqual(['c']);
    d.add(e, 10, base + 60); // back after being cleared
    d.tick(base + 105);
    expect(fired).toEqual(['c', 'a', 'e']);
    d.tick(base + 10_000);
    expect(fired).toEqual(['c', 'a', 'e']);
  });

  it('fires from its own timer when the deadline passes on the real clock', async () => {
    const d = new Deadlines();
    const fired: string[] = [];
    d.add({ expire: () => fired.push('real') }, 5);
    // The poll's timeout only ends the test; what is checked is that the timer fired it, once.
    await expect.poll(() => fired, { timeout: 5_000 }).toEqual(['real']);
  });
});
