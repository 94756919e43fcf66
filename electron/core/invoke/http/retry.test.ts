import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { backoffDelay, isRetryableStatus, parseRetryAfter, runWithRetries, type RetryOptions } from './retry';

/** A fake clock: sleep advances it at once. */
function clock(start = 1_000_000) {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    advance: (ms: number) => (t += ms),
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

type R = { status: number; retryAfter?: string };

function run(c: ReturnType<typeof clock>, statuses: (number | Error | R)[], o: Partial<RetryOptions<R>> = {}) {
  let i = 0;
  const calls: { n: number; remaining: number }[] = [];
  const p = runWithRetries<R>({
    retryable: true,
    maxRetries: 5,
    totalTimeoutMs: 120_000,
    now: c.now,
    sleep: c.sleep,
    random: () => 1,
    signal: new AbortController().signal,
    attempt: async (n, remaining) => {
      calls.push({ n, remaining });
      const s = statuses[Math.min(i++, statuses.length - 1)]!;
      if (s instanceof Error) throw s;
      return typeof s === 'number' ? { status: s } : s;
    },
    judge: (r) => ({ retry: isRetryableStatus(r.status), retryAfter: r.retryAfter ?? null }),
    ...o,
  });
  return { p, calls };
}

describe('backoff', () => {
  it('is full jitter under min(cap, base * 2^n)', () => {
    expect(backoffDelay(0, 250, 10_000, () => 1)).toBe(250);
    expect(backoffDelay(3, 250, 10_000, () => 1)).toBe(2000);
    expect(backoffDelay(10, 250, 10_000, () => 1)).toBe(10_000);
    expect(backoffDelay(10, 250, 10_000, () => 0)).toBe(0);
    expect(backoffDelay(2, 250, 10_000, () => 0.5)).toBe(500);
    expect(backoffDelay(1000, 250, 10_000, () => 0.999)).toBeLessThanOrEqual(10_000);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 3600 ', now)).toBe(3_600_000);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Mon, 31 Dec 2029 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('retries only 5xx, 408 and 429', () => {
    expect([500, 502, 503, 504, 599, 408, 429].every(isRetryableStatus)).toBe(true);
    expect([200, 301, 400, 401, 403, 404, 409, 422].some(isRetryableStatus)).toBe(false);
  });
});

describe('runWithRetries', () => {
  it('returns the first final result', async () => {
    const c = clock();
    const { p } = run(c, [503, 502, 200]);
    expect(await p).toEqual({ value: { status: 200 }, attempts: 3 });
    expect(c.sleeps).toEqual([250, 500]);
  });

  it('503 forever ends after maxRetries + 1 attempts, saying so', async () => {
    const c = clock();
    const { p, calls } = run(c, [503], { maxRetries: 3 });
    const r = await p;
    expect(r).toMatchObject({ value: { status: 503 }, attempts: 4, stopped: { kind: 'retries-exhausted' } });
    expect(calls).toHaveLength(4);
  });

  it('does not retry a non-idempotent request', async () => {
    const c = clock();
    const { p, calls } = run(c, [503], { retryable: false });
    expect(await p).toMatchObject({ attempts: 1, stopped: { kind: 'method-not-idempotent' } });
    expect(calls).toHaveLength(1);
  });

  it('honours a short Retry-After', async () => {
    const c = clock();
    const { p } = run(c, [{ status: 429, retryAfter: '2' }, 200]);
    expect(await p).toMatchObject({ attempts: 2, value: { status: 200 } });
    expect(c.sleeps).toEqual([2000]);
  });

  it('stops at once on Retry-After: 3600 instead of waiting an hour', async () => {
    const c = clock();
    const { p, calls } = run(c, [{ status: 429, retryAfter: '3600' }]);
    const r = await p;
    expect(r).toMatchObject({ attempts: 1, retryAfterMs: 3_600_000, stopped: { kind: 'retry-after-too-long', retryAfterMs: 3_600_000, limitMs: 30_000 } });
    expect(calls).toHaveLength(1);
    expect(c.sleeps).toEqual([]);
  });

  it('stops when a Retry-After under the cap does not fit in the time left', async () => {
    const c = clock();
    const { p } = run(c, [{ status: 503, retryAfter: '20' }], { totalTimeoutMs: 10_000 });
    expect(await p).toMatchObject({ attempts: 1, stopped: { kind: 'retry-after-too-long' } });
  });

  it('caps the total time: attempts get the time left, no back-off runs past the deadline', async () => {
    const c = clock();
    const seen: number[] = [];
    const { p } = run(c, [503], {
      totalTimeoutMs: 5_000,
      maxRetries: 10,
      attempt: async (_n, remaining) => {
        seen.push(remaining);
        c.advance(Math.min(remaining, 1_500));
        return { status: 503 };
      },
    });
    const r = await p;
    expect(r.stopped).toEqual({ kind: 'out-of-time' });
    const spent = c.now() - 1_000_000;
    expect(spent).toBeLessThanOrEqual(5_000);
    expect(seen.length).toBeGreaterThan(1);
    for (const remaining of seen) expect(remaining).toBeGreaterThan(0);
  });

  it('retries network errors (UNAVAILABLE, TIMEOUT) and rethrows the last with attempts', async () => {
    const c = clock();
    const { p } = run(c, [new AppError('UNAVAILABLE', 'connection refused')], { maxRetries: 2 });
    const e = (await p.catch((x: unknown) => x)) as AppError;
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toContain('after 3 attempts');
    expect(e.details).toMatchObject({ attempts: 3 });
  });

  it('does not retry other errors or a network error of a non-idempotent request', async () => {
    const c = clock();
    const forbidden = run(c, [new AppError('FORBIDDEN', 'host not allowed'), 200]);
    expect(((await forbidden.p.catch((x: unknown) => x)) as AppError).code).toBe('FORBIDDEN');
    expect(forbidden.calls).toHaveLength(1);
    const post = run(c, [new AppError('UNAVAILABLE', 'reset'), 200], { retryable: false });
    expect(((await post.p.catch((x: unknown) => x)) as AppError).details).toMatchObject({ attempts: 1 });
    expect(post.calls).toHaveLength(1);
  });

  it('a cancelled signal ends the wait with CANCELLED', async () => {
    const ac = new AbortController();
    const c = clock();
    const { p } = run(c, [503], {
      sleep: async () => {
        ac.abort();
        throw new DOMException('aborted', 'AbortError');
      },
      signal: ac.signal,
    });
    expect(((await p.catch((x: unknown) => x)) as AppError).code).toBe('CANCELLED');
  });

  it('with the real sleep, waits the back-off before the next attempt', async () => {
    const marks: string[] = [];
    const r = await runWithRetries<R>({
      retryable: true,
      maxRetries: 1,
      totalTimeoutMs: 5_000,
      baseDelayMs: 60,
      random: () => 1,
      signal: new AbortController().signal,
      attempt: async (n) => {
        marks.push(`attempt ${n}`);
        return { status: n === 1 ? 500 : 200 };
      },
      judge: (x) => ({ retry: isRetryableStatus(x.status) }),
      onRetry: ({ delayMs }) => {
        marks.push(`wait ${delayMs}`);
        // A timer due halfway through the wait fires before the next attempt starts.
        setTimeout(() => marks.push('halfway'), delayMs / 2);
      },
    });
    expect(r.attempts).toBe(2);
    expect(marks).toEqual(['attempt 1', 'wait 60', 'halfway', 'attempt 2']);
  });
});
