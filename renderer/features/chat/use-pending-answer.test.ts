import { describe, expect, it } from 'vitest';
import { settleAnswer } from './use-pending-answer';

describe('settleAnswer', () => {
  it('is null when the answer was taken', async () => {
    expect(await settleAnswer(async () => ({ ok: true, value: { accepted: true } }))).toBeNull();
  });

  it("is 'not-accepted' when the question had been answered already", async () => {
    expect(await settleAnswer(async () => ({ ok: true, value: { accepted: false } }))).toBe('not-accepted');
  });

  it("is the call's error when the call failed", async () => {
    const error = { code: 'VALIDATION_FAILED' as const, message: 'args.n must be an integer' };
    expect(await settleAnswer(async () => ({ ok: false, error }))).toEqual(error);
  });

  it('is UNAVAILABLE with the message when sending throws, before or after it starts', async () => {
    expect(await settleAnswer(() => Promise.reject(new Error('the connection closed')))).toEqual({ code: 'UNAVAILABLE', message: 'the connection closed' });
    expect(
      await settleAnswer(() => {
        throw new Error('not connected');
      }),
    ).toEqual({ code: 'UNAVAILABLE', message: 'not connected' });
  });
});
