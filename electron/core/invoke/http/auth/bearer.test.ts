import { describe, expect, it } from 'vitest';
import { authContext } from './test-context';
import { applyBearer } from './bearer';

describe('bearer', () => {
  it('sets Authorization: Bearer, replacing one in another case', () => {
    const ctx = authContext({ T: 'tok-123' });
    const out = applyBearer({ kind: 'bearer', secret: 'T' }, { method: 'GET', url: 'https://api.example.com/', headers: { authorization: 'old' } }, ctx);
    expect(out.headers).toEqual({ Authorization: 'Bearer tok-123' });
    expect(ctx.sensitive.redact('x tok-123 y')).toBe('x [redacted] y');
  });

  it('resolves the secret for the request host only', () => {
    const ctx = authContext({ T: 'tok' }, 'other.example.com');
    expect(() => applyBearer({ kind: 'bearer', secret: 'T' }, { method: 'GET', url: 'https://api.example.com/', headers: {} }, { ...ctx, hostname: 'api.example.com' })).toThrowError(/not bound/);
  });
});
