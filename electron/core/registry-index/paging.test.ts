import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { decodePageToken, encodePageToken, queryHash, validatePageSize } from './paging';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : `not an AppError: ${String(e)}`;
  }
  return undefined;
}

describe('page tokens', () => {
  const h = queryHash('rea', false);
  const tiers = ['prefix', 'word', 'fuzzy'] as const;

  it('round-trips an opaque base64url token', () => {
    const t = encodePageToken({ tier: 'word', negMod: -1700000000000, id: 'abc' }, h);
    expect(t).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(t, h, tiers)).toEqual({ tier: 'word', negMod: -1700000000000, id: 'abc' });
  });

  it('rejects malformed tokens and tokens of another query with VALIDATION_FAILED', () => {
    const good = encodePageToken({ tier: 'word', negMod: 1, id: 'x' }, h);
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    for (const bad of [
      '',
      '!!!',
      'a b',
      'x'.repeat(5000),
      Buffer.from('not json').toString('base64url'),
      b64([1]),
      b64({ v: 2, h, t: 'word', m: 1, i: 'x' }),
      b64({ v: 1, h, t: 'nope', m: 1, i: 'x' }),
      b64({ v: 1, h, t: 'word', m: 1.5, i: 'x' }),
      b64({ v: 1, h, t: 'word', m: 1, i: '' }),
      b64({ v: 1, h, t: 'recent', m: 1, i: 'x' }), // a tier this query does not have
      encodePageToken({ tier: 'word', negMod: 1, id: 'x' }, queryHash('other', false)),
      encodePageToken({ tier: 'word', negMod: 1, id: 'x' }, queryHash('rea', true)),
      12 as unknown as string,
    ]) {
      expect(code(() => decodePageToken(bad, h, tiers)), String(bad)).toBe('VALIDATION_FAILED');
    }
    expect(code(() => decodePageToken(good, h, tiers))).toBeUndefined();
  });

  it('accepts page sizes 1..100, default 20', () => {
    expect(validatePageSize(undefined)).toBe(20);
    expect(validatePageSize(1)).toBe(1);
    expect(validatePageSize(100)).toBe(100);
    for (const bad of [0, 101, 1.5, -1, NaN, '20', Infinity]) expect(code(() => validatePageSize(bad))).toBe('VALIDATION_FAILED');
  });
});
