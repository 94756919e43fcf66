import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LOGGED_TOOL_IDS } from '../../../shared/contract/invoke';
import type { InvocationRecord } from '../../../shared/model/invocation';
import { InvocationLog } from './invocation-log';

const logs: InvocationLog[] = [];
afterEach(() => {
  for (const l of logs.splice(0)) l.close();
});
function open(): InvocationLog {
  const log = InvocationLog.open(':memory:');
  logs.push(log);
  return log;
}

let n = 0;
function record(extra: Partial<InvocationRecord> = {}): InvocationRecord {
  n++;
  return {
    id: `inv-${String(n).padStart(6, '0')}`,
    toolId: 'tool-1',
    bundleId: 'bundle-1',
    slug: 'echo',
    version: '1',
    source: 'api',
    args: { text: 'hi' },
    ok: true,
    value: { echo: 'hi' },
    startedAt: new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString(),
    durationMs: 1,
    attempts: 1,
    ...extra,
  };
}

describe('InvocationLog', () => {
  it('builds a queued record only when it writes it, from a function or an object with toRecord()', () => {
    const log = open();
    let built = 0;
    const a = record();
    const b = record();
    log.add(() => {
      built++;
      return a;
    });
    log.add({
      toRecord: () => {
        built++;
        return b;
      },
    });
    expect(built).toBe(0);
    expect(log.get(a.id)).toEqual(a);
    expect(log.get(b.id)).toEqual(b);
    expect(built).toBe(2);
  });

  it('writes a full batch on the next turn of the event loop, off the adding call’s path, unless the loop never turns', async () => {
    const log = open();
    let built = 0;
    const add = () =>
      log.add(() => {
        built++;
        return record();
      });
    for (let i = 0; i < 500; i++) add();
    expect(built).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(built).toBe(500);
    // A thousand calls without a turn of the loop: the thousandth writes them, so the queue stays bounded.
    for (let i = 0; i < 1_000; i++) add();
    expect(built).toBe(1_500);
    expect(log.count()).toBe(1_500);
  });

  it('tells its listeners once a batch is written, once a batch, with each tool called in it once', async () => {
    const log = open();
    const told: { toolIds: string[] | undefined; count: number }[] = [];
    const off = log.onWritten((toolIds) => told.push({ toolIds, count: log.count() }));
    log.add(record({ toolId: 'tool-a' }));
    log.add(record({ toolId: 'tool-b' }));
    log.add(record({ toolId: 'tool-a' }));
    expect(told).toEqual([]);
    while (told.length === 0) await new Promise((r) => setTimeout(r, 10));
    // Told after the batch is in the log, so a reader that asks at once finds its records.
    expect(told).toEqual([{ toolIds: ['tool-a', 'tool-b'], count: 3 }]);
    // A batch of records that could not be built is not news.
    log.add(() => {
      throw new Error('broken');
    });
    log.flush();
    expect(told).toHaveLength(1);
    // More tools than an event lists: none named (any tool's history may have changed).
    for (let i = 0; i <= MAX_LOGGED_TOOL_IDS; i++) log.add(record({ toolId: `tool-${i}` }));
    log.flush();
    expect(told).toHaveLength(2);
    expect(told[1]!.toolIds).toBeUndefined();
    off();
    log.add(record());
    log.flush();
    expect(told).toHaveLength(2);
  });

  it('keeps writing when a listener fails', () => {
    const log = open();
    const told: (string[] | undefined)[] = [];
    log.onWritten(() => {
      throw new Error('listener broke');
    });
    log.onWritten((ids) => told.push(ids));
    const r = record({ toolId: 'tool-c' });
    log.add(r);
    log.flush();
    expect(told).toEqual([['tool-c']]);
    expect(log.get(r.id)).toEqual(r);
  });

  it('redacts each record’s JSON with its own redaction', () => {
    const log = open();
    const r = record({ args: { token: 'sekrit-1' } });
    log.add(r, (t) => t.replaceAll('sekrit-1', '[redacted]'));
    expect(log.get(r.id)!.args).toEqual({ token: '[redacted]' });
  });

  it('cuts a large value to a preview string, and keeps a small one as it is', () => {
    const log = open();
    const big = record({ value: { text: 'x'.repeat(100_000) } });
    const bigArgs = record({ args: { text: 'y'.repeat(100_000) }, value: { ok: 1 } });
    log.add(big);
    log.add(bigArgs);
    const stored = log.get(big.id)!;
    expect(stored.valueTruncated).toBe(true);
    expect(typeof stored.value).toBe('string');
    expect((stored.value as string).length).toBe(64 * 1024);
    expect(log.get(bigArgs.id)).toEqual(bigArgs);
  });

  it('skips a record that cannot be built or turned into JSON, and keeps the rest of the batch', () => {
    const log = open();
    const good = record();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    log.add(() => {
      throw new Error('cannot build');
    });
    log.add(record({ value: cyclic }));
    log.add(good);
    expect(log.count()).toBe(1);
    expect(log.get(good.id)).toEqual(good);
  });

  it('keeps the newest records when pruned, queued ones included', () => {
    const log = open();
    const all = Array.from({ length: 600 }, () => record());
    for (const r of all) log.add(r);
    log.prune(100);
    const newest = log.list({ limit: 500 });
    expect(newest).toHaveLength(100);
    expect(newest[0]!.id).toBe(all.at(-1)!.id);
  });

  it('prunes to the newest 20 000 on its own, in slices off the writer’s path', async () => {
    const log = open();
    const all = Array.from({ length: 26_000 }, () => record());
    for (const r of all) log.add(r);
    // Nothing was deleted while the records were being added: the prune waits for a later turn.
    expect(log.count()).toBe(26_000);
    await expect.poll(() => log.count(), { timeout: 5_000 }).toBe(20_000);
    expect(log.list({ limit: 1 })[0]!.id).toBe(all.at(-1)!.id);
    expect(log.get(all[5_999]!.id)).toBeUndefined();
    expect(log.get(all[6_000]!.id)).toBeDefined();
  });
});
