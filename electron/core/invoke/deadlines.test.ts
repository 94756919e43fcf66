import { describe, expect, it } from 'vitest';
import { Deadlines, TICK_MS } from './deadlines';

describe('Deadlines', () => {
  it('fires a passed deadline within a tick, and never a cleared one', async () => {
    const d = new Deadlines();
    const fired: string[] = [];
    const a = {};
    const b = {};
    const t0 = Date.now();
    d.add(a, 30, () => fired.push(`a after ${Date.now() - t0}`));
    d.add(b, 30, () => fired.push('b'));
    d.clear(b);
    await new Promise((r) => setTimeout(r, 30 + TICK_MS * 4));
    expect(fired).toHaveLength(1);
    const after = Number(fired[0]!.split(' ')[2]);
    expect(after).toBeGreaterThanOrEqual(30);
    expect(after).toBeLessThan(30 + TICK_MS * 4);
  });
});
