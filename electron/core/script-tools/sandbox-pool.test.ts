/**
 * The pool's last resorts, with a worker that never answers: a call still ends at its time limit
 * (plus the grace) or at its cancel (plus the grace), its worker is terminated and the next call
 * gets a new one. And a pool never runs more workers than it may, except for a script's own
 * nested calls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxPool, type RunRequest } from './sandbox-pool';

const pools: SandboxPool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

const host = { op: async () => ({ ok: true as const, json: 'null' }) };
const req = (args = '{}', timeLimitMs = 200): RunRequest => ({ key: 'k', source: 'function run() {}', filename: 'x.js', argsJson: args, invocationId: 'i', limits: { timeLimitMs, memoryBytes: 16 << 20, maxOutputBytes: 1 << 20 }, live: false });

describe('the sandbox pool', () => {
  it('terminates a worker that does not answer by its time limit, and starts another for the next call', async () => {
    const pool = new SandboxPool({ graceMs: 100, workerName: 'testing/stuck-worker' });
    pools.push(pool);
    const r = await pool.run(req(), host);
    expect(r).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: 'the script did not stop at its time limit of 200 ms; its sandbox was ended' } });
    expect(pool.counts).toEqual({ started: 1, terminated: 1 });
    await pool.run(req(), host);
    expect(pool.counts).toEqual({ started: 2, terminated: 2 });
  });

  it('terminates a worker that does not stop when cancelled', async () => {
    const pool = new SandboxPool({ graceMs: 100, workerName: 'testing/stuck-worker' });
    pools.push(pool);
    const ctl = new AbortController();
    // Cancelled once it runs (the worker's first log line says so).
    const running = pool.run(req('{}', 60_000), { ...host, onLog: () => ctl.abort() }, ctl.signal);
    expect(await running).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(pool.counts.terminated).toBe(1);
  });

  it('answers a worker that exits in the middle of a call, and lets it go', async () => {
    const pool = new SandboxPool({ graceMs: 100, workerName: 'testing/stuck-worker' });
    pools.push(pool);
    const r = await pool.run(req('{"exit":true}', 60_000), host);
    expect(r).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: "the script's sandbox stopped unexpectedly" } });
    expect(pool.size).toBe(0);
  });

  it('runs at most maxWorkers at once; more calls wait, and a nested call never waits', async () => {
    const pool = new SandboxPool({ graceMs: 50, maxWorkers: 1, workerName: 'testing/stuck-worker' });
    pools.push(pool);
    let running = 0;
    const counted = { ...host, onLog: () => void running++ };
    const a = pool.run(req('{}', 300), counted);
    const b = pool.run(req('{}', 300), counted);
    const nested = pool.run(req('{}', 300), counted, undefined, { nested: true });
    while (running < 2) await new Promise((r) => setTimeout(r, 5));
    // The first and the nested one run; the second waits for a worker.
    expect(pool.counts.started).toBe(2);
    await Promise.all([a, b, nested]);
    expect(pool.counts.started).toBe(3);
  });
});
