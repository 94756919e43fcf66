import { describe, expect, it } from 'vitest';
import { createdCount, refusedStatus, runImport, type RunOutcome, type RunProgress } from './openapi-run';

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

  it('a bundle that is full ends the run: the refused operation and every one after it are reported, and none is sent after it', async () => {
    const limit = 3;
    const sent: string[] = [];
    const message = "bundle 'demo' holds 3 tools, the most Settings → Limits → Tools per bundle allows (3); delete some of its tools, put the new one in another bundle, or raise the limit";
    // A store that holds `limit` tools at most, refusing as the core does (CONFLICT, rule bundle-tool-limit).
    const put = async (op: { key: string; slug: string }): Promise<RunOutcome> => {
      sent.push(op.slug);
      if (sent.length <= limit) return { key: op.key, slug: op.slug, status: 'created' };
      return { key: op.key, slug: op.slug, status: refusedStatus('CONFLICT', { rule: 'bundle-tool-limit', held: 3, limit }), message };
    };
    const r = await runImport(ops, put, new AbortController().signal, () => undefined);
    expect(sent).toEqual(['item-0', 'item-1', 'item-2', 'item-3']);
    expect(r).toMatchObject({ cancelled: false, notStarted: 0, limited: 7 });
    expect(createdCount(r.outcomes)).toBe(3);
    // Every operation is in the report: the created ones, the refused one with the core's words, those not sent.
    expect(r.outcomes.map((o) => o.slug)).toEqual(ops.map((o) => o.slug));
    expect(r.outcomes[3]).toEqual({ key: 'GET /items/3', slug: 'item-3', status: 'limit', message });
    expect(r.outcomes.slice(4).every((o) => o.status === 'limit' && o.message === undefined)).toBe(true);
  });

  it('tells a full bundle from a <slug, version> that exists and from other refusals', () => {
    expect(refusedStatus('CONFLICT', { rule: 'bundle-tool-limit' })).toBe('limit');
    expect(refusedStatus('CONFLICT', { rule: 'exists' })).toBe('conflict');
    expect(refusedStatus('CONFLICT', undefined)).toBe('conflict');
    expect(refusedStatus('CONFLICT', { rule: 'bundle-disabled' })).toBe('error');
    expect(refusedStatus('VALIDATION_FAILED', { rule: 'bundle-tool-limit' })).toBe('error');
  });
});
