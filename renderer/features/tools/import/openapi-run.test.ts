import { describe, expect, it } from 'vitest';
import { createdCount, runImport, type RunOutcome, type RunProgress } from './openapi-run';

const ops = Array.from({ length: 10 }, (_, i) => ({ key: `GET /items/${i}`, slug: `item-${i}` }));

/** A store that writes a tool whole when its save finishes, as the core does. */
function fakeStore() {
  const written: string[] = [];
  const started: string[] = [];
  const put = async (op: { key: string; slug: string }): Promise<RunOutcome> => {
    started.push(op.slug);
    await new Promise((r) => setTimeout(r, 2));
    written.push(op.slug);
    return { key: op.key, slug: op.slug, status: 'created' };
  };
  return { written, started, put };
}

describe('runImport', () => {
  it('saves every operation in order when nobody cancels', async () => {
    const store = fakeStore();
    const progress: RunProgress[] = [];
    const r = await runImport(ops, store.put, new AbortController().signal, (p) => progress.push({ ...p }));
    expect(r).toMatchObject({ cancelled: false, notStarted: 0 });
    expect(store.written).toEqual(ops.map((o) => o.slug));
    expect(createdCount(r.outcomes)).toBe(10);
    expect(progress.at(-1)).toMatchObject({ done: 10, total: 10 });
    expect(progress.map((p) => p.current).filter(Boolean)).toEqual(ops.map((o) => o.slug));
  });

  it('stops after the save in flight when cancelled, and reports exactly what was written', async () => {
    const store = fakeStore();
    const cancel = new AbortController();
    const put = async (op: { key: string; slug: string }) => {
      // The person cancels while the fourth tool is being saved.
      if (op.slug === 'item-3') cancel.abort();
      return store.put(op);
    };
    const r = await runImport(ops, put, cancel.signal, () => undefined);
    expect(r.cancelled).toBe(true);
    expect(store.started).toEqual(['item-0', 'item-1', 'item-2', 'item-3']);
    // The save in flight finished and is reported: nothing was written that is not in the outcomes.
    expect(r.outcomes.map((o) => o.slug)).toEqual(store.written);
    expect(createdCount(r.outcomes)).toBe(4);
    expect(r.notStarted).toBe(6);
  });

  it('sends nothing when cancelled before the first save', async () => {
    const store = fakeStore();
    const r = await runImport(ops, store.put, AbortSignal.abort(), () => undefined);
    expect(r).toMatchObject({ cancelled: true, notStarted: 10, outcomes: [] });
    expect(store.started).toEqual([]);
  });

  it('counts conflicts and errors apart from created tools', async () => {
    const statuses: RunOutcome['status'][] = ['created', 'conflict', 'error', 'created'];
    let i = 0;
    const r = await runImport(ops.slice(0, 4), async (op) => ({ key: op.key, slug: op.slug, status: statuses[i++]! }), new AbortController().signal, () => undefined);
    expect(createdCount(r.outcomes)).toBe(2);
    expect(r.cancelled).toBe(false);
  });
});
