/**
 * What a script's ctx.call and ctx.fetch may cost: its host work ends with its run, a nested call
 * gets only the time its caller has left, nested calls start a bounded number of workers, few
 * requests wait at once; an error is cut as a result is; tools never share a kept sandbox.
 * Everything is counted (workers started, calls running), never timed.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { InvokeRequest } from '../invoke/dispatcher';
import { MAX_SEQUENCE_DEPTH } from '../invoke/sequence';
import { DEFAULT_MAX_WORKERS, SandboxPool } from './sandbox-pool';
import { useScriptKits, type ScriptKit } from './testing/script-kit';

const kit = useScriptKits();
const oneWorker = useScriptKits({ scriptTools: { maxWorkers: 1 } });
const fewNested = useScriptKits({ scriptTools: { maxWorkers: 1, nestedWorkers: 3 } });

// The pool a test's core made (the core does not show it): noted when it starts a worker.
type Spawning = { spawn(this: SandboxPool): unknown };
const spawn = (SandboxPool.prototype as unknown as Spawning).spawn;
const pools: SandboxPool[] = [];
(SandboxPool.prototype as unknown as Spawning).spawn = function (this: SandboxPool) {
  if (!pools.includes(this)) pools.push(this);
  return spawn.call(this);
};
afterAll(() => {
  (SandboxPool.prototype as unknown as Spawning).spawn = spawn;
});
beforeEach(() => {
  pools.length = 0;
});
const started = () => pools.reduce((n, p) => n + p.counts.started, 0);

/** The nested invokes the dispatcher is asked for, as they were asked. */
function watchNested(k: ScriptKit): InvokeRequest[] {
  const d = k.core.dispatcher as unknown as { invokeNested: (r: InvokeRequest) => unknown };
  const inner = d.invokeNested;
  const seen: InvokeRequest[] = [];
  d.invokeNested = (r) => {
    seen.push(r);
    return inner(r);
  };
  return seen;
}

/** Waits (no bound of its own: the test's timeout is the bound) until no call runs and no worker is busy. */
async function quiet(k: ScriptKit): Promise<void> {
  const slots = () => pools.flatMap((p) => (p as unknown as { slots: { busy: boolean }[] }).slots);
  while (k.core.dispatcher.runningIds().length > 0 || slots().some((s) => s.busy)) await new Promise((r) => setTimeout(r, 10));
}

const value = (r: Awaited<ReturnType<ScriptKit['invoke']>>) => (r.ok ? (r.value as { value: unknown }).value : undefined);
const message = (r: Awaited<ReturnType<ScriptKit['invoke']>>) => (r.ok ? '' : r.error.message);

describe('a script’s host work ends with its run', () => {
  it('calls it did not await are cancelled when it returns, and their own nested calls with them', async () => {
    const k = await kit();
    await k.put('bomb', 'function run(a, ctx) { if (a.d < 5) for (let i = 0; i < 4; i++) ctx.call("bomb", { d: a.d + 1 }).catch(() => {}); return "returned" }', { limits: { timeLimitMs: 5000 } });
    const nested = watchNested(k);
    const r = await k.invoke('bomb', { d: 0 });
    expect(value(r)).toBe('returned');
    // Its four calls were aborted with its end: none is still running.
    expect(k.core.dispatcher.runningIds()).toEqual([]);
    expect(nested.length).toBe(4);
    expect(nested.every((n) => n.signal?.aborted)).toBe(true);
    await quiet(k);
    expect(started()).toBeLessThanOrEqual(DEFAULT_MAX_WORKERS + MAX_SEQUENCE_DEPTH);
  });

  it('a caller past its time limit cancels the call it waits for, which had only the caller’s time left', async () => {
    const k = await kit();
    await k.put('slow', 'function run() { for (;;) {} }', { limits: { timeLimitMs: 60_000 } });
    await k.put('caller', 'async function run(a, ctx) { return await ctx.call("slow", {}) }', { limits: { timeLimitMs: 300 } });
    const nested = watchNested(k);
    const r = await k.invoke('caller');
    expect(r.ok).toBe(false);
    expect(k.core.dispatcher.runningIds()).toEqual([]);
    expect(nested).toHaveLength(1);
    expect(nested[0]!.timeoutMs).toBeGreaterThan(0);
    expect(nested[0]!.timeoutMs).toBeLessThanOrEqual(300);
    expect(nested[0]!.signal?.aborted).toBe(true);
  });

  it('a call that returned while its ctx.call computes ends that call too', async () => {
    const k = await kit();
    await k.put('slow', 'function run() { for (;;) {} }', { limits: { timeLimitMs: 60_000 } });
    await k.put('fire', 'function run(a, ctx) { ctx.call("slow", {}); return "returned at once" }');
    const r = await k.invoke('fire');
    expect(value(r)).toBe('returned at once');
    expect(k.core.dispatcher.runningIds()).toEqual([]);
    await quiet(k);
  });
});

describe('nested calls and workers', () => {
  it('a chain of nested calls deeper than the free workers gets workers of its own and finishes', async () => {
    const k = await oneWorker();
    await k.put('chain', 'async function run(a, ctx) { return a.d < 7 ? 1 + (await ctx.call("chain", { d: a.d + 1 })) : 0 }');
    const r = await k.invoke('chain', { d: 0 });
    expect(value(r)).toBe(7);
    expect(started()).toBeLessThanOrEqual(1 + MAX_SEQUENCE_DEPTH);
  });

  it('past the workers kept for nested calls, a nested call fails at once saying why (no deadlock)', async () => {
    const k = await fewNested();
    await k.put('chain', 'async function run(a, ctx) { return a.d < 7 ? 1 + (await ctx.call("chain", { d: a.d + 1 })) : 0 }', { limits: { timeLimitMs: 60_000 } });
    const r = await k.invoke('chain', { d: 0 });
    expect(r.ok).toBe(false);
    expect(message(r)).toMatch(/all 4 script sandboxes are busy/);
    expect(started()).toBe(4);
    await quiet(k);
  });

  it('fan-out that waits for its calls starts no more workers than the cap', async () => {
    const k = await kit();
    await k.put('fan', 'async function run(a, ctx) { if (a.d >= 3) return 1; const all = []; for (let i = 0; i < 4; i++) all.push(ctx.call("fan", { d: a.d + 1 }).catch(() => 0)); let n = 0; for (const v of await Promise.all(all)) n += v; return n }', { limits: { timeLimitMs: 60_000 } });
    const r = await k.invoke('fan', { d: 0 });
    expect(r.ok).toBe(true);
    expect(started()).toBeLessThanOrEqual(DEFAULT_MAX_WORKERS + MAX_SEQUENCE_DEPTH);
    await quiet(k);
  });

  it('at most 8 requests wait at once in a call; the 9th is refused saying so', async () => {
    const k = await kit();
    await k.put('one', 'function run() { return 1 }');
    await k.put('eight', 'async function run(a, ctx) { const all = []; for (let i = 0; i < a.n; i++) all.push(ctx.call("one")); return (await Promise.all(all)).length }');
    expect(value(await k.invoke('eight', { n: 8 }))).toBe(8);
    const r = await k.invoke('eight', { n: 9 });
    expect(message(r)).toMatch(/at most 8 ctx\.fetch and ctx\.call requests waiting at once/);
    await quiet(k);
  });
});

describe('an error is cut as a result is', () => {
  const big = 8 * 1024 * 1024;
  for (const [slug, src] of [
    ['err-msg', `function run() { throw new Error("x".repeat(${big})) }`],
    ['err-str', `function run() { throw "y".repeat(${big}) }`],
    ['err-name', `function run() { const e = new Error("m"); e.name = "z".repeat(${big}); throw e }`],
    ['err-load', `throw new Error("w".repeat(${big})); function run() {}`],
    ['err-reject', `async function run() { throw new ToolError("q".repeat(${big}), "NOT_FOUND") }`],
    ['err-object', `function run() { throw { message: "v".repeat(${big}) } }`],
  ] as const) {
    it(`${slug}: a thrown 8 MiB text comes back cut, saying so`, async () => {
      const k = await kit();
      await k.put(slug, src, { limits: { timeLimitMs: 10_000, memoryLimitMb: 128, maxOutputBytes: 1024 } });
      const r = await k.invoke(slug);
      expect(r.ok).toBe(false);
      expect(message(r).length).toBeLessThan(5000);
      expect(message(r)).toMatch(/cut: \d+ characters in all/);
      if (slug === 'err-reject') expect(r.ok ? '' : r.error.code).toBe('NOT_FOUND');
    });
  }
});

describe('kept sandboxes', () => {
  it('tools with the same source share neither state nor file name', async () => {
    const k = await kit();
    const src = 'let n = 0;\nfunction run(a) {\n  n++;\n  if (a.fail) throw new Error("boom");\n  return n;\n}';
    await k.put('first-tool', src);
    await k.put('second-tool', src);
    expect(value(await k.invoke('first-tool'))).toBe(1);
    expect(value(await k.invoke('first-tool'))).toBe(2);
    expect(value(await k.invoke('second-tool'))).toBe(1);
    await k.invoke('second-tool', { fail: true });
    const r = await k.invoke('first-tool', { fail: true });
    expect(message(r)).toMatch(/first-tool\.js/);
    expect(message(r)).not.toMatch(/second-tool\.js/);
  });
});
