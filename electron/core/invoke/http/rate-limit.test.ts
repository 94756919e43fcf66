import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { RateLimiter } from './rate-limit';

describe('RateLimiter', () => {
  it('allows maxCallsPerMinute calls in a sliding minute, then RATE_LIMITED with retryAfterMs', () => {
    let t = 0;
    const rl = new RateLimiter({ now: () => t });
    rl.take('tool-a', 3);
    t = 10_000;
    rl.take('tool-a', 3);
    t = 20_000;
    rl.take('tool-a', 3);
    t = 30_000;
    let err: AppError | undefined;
    try {
      rl.take('tool-a', 3);
    } catch (e) {
      err = e as AppError;
    }
    expect(err?.code).toBe('RATE_LIMITED');
    expect(err?.details).toEqual({ toolId: 'tool-a', limit: 3, retryAfterMs: 30_000 });
    expect(err?.message).toContain('3 times per minute');
    // A refused call does not count; the first call leaves the window at 60 s.
    t = 60_001;
    rl.take('tool-a', 3);
    expect(rl.count('tool-a')).toBe(3);
  });

  it('keys by tool id and ignores tools without a limit', () => {
    const rl = new RateLimiter({ now: () => 0 });
    rl.take('a', 1);
    rl.take('b', 1);
    expect(() => rl.take('a', 1)).toThrowError(AppError);
    for (let i = 0; i < 1000; i++) rl.take('c', undefined);
    expect(rl.count('c')).toBe(0);
  });

  it('when a limit is lowered, waits until enough calls have left the window', () => {
    let t = 0;
    const rl = new RateLimiter({ now: () => t });
    for (let i = 0; i < 5; i++) {
      t = i * 1000;
      rl.take('x', 10);
    }
    t = 5000;
    try {
      rl.take('x', 2);
      expect.unreachable();
    } catch (e) {
      // Calls at 0..4 s; fewer than 2 remain once the one at 3 s leaves (at 63 s).
      expect((e as AppError).details).toMatchObject({ retryAfterMs: 58_000 });
    }
  });

  it('stays bounded with many calls', () => {
    let t = 0;
    const rl = new RateLimiter({ now: () => t });
    for (let i = 0; i < 200_000; i++) {
      t += 1;
      rl.take('busy', 100_000);
    }
    expect(rl.count('busy')).toBe(60_000);
  });
});
