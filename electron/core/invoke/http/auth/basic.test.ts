import { describe, expect, it } from 'vitest';
import { authContext } from './test-context';
import { applyBasic, basicCredentials } from './basic';

describe('basic', () => {
  it('sends base64(user:password) in UTF-8 and marks it sensitive', () => {
    const ctx = authContext({ P: 'pässwörd' });
    const out = applyBasic({ kind: 'basic', username: 'ann', passwordSecret: 'P' }, { method: 'GET', url: 'https://api.example.com/', headers: {} }, ctx);
    const creds = Buffer.from('ann:pässwörd', 'utf8').toString('base64');
    expect(basicCredentials('ann', 'pässwörd')).toBe(creds);
    expect(out.headers).toEqual({ Authorization: `Basic ${creds}` });
    expect(ctx.sensitive.redact(`Basic ${creds}`)).toBe('Basic [redacted]');
  });

  it("refuses a user name with ':' and a password with control characters", () => {
    expect(() => applyBasic({ kind: 'basic', username: 'a:b', passwordSecret: 'P' }, { method: 'GET', url: 'https://api.example.com/', headers: {} }, authContext({ P: 'x' }))).toThrowError(/':'/);
    expect(() => applyBasic({ kind: 'basic', username: 'a', passwordSecret: 'P' }, { method: 'GET', url: 'https://api.example.com/', headers: {} }, authContext({ P: 'x\ny' }))).toThrowError(/control/);
  });

  it('usernameSecret sends the secret as the user name with an empty password (an API key as the user)', () => {
    const ctx = authContext({ K: 'sk_test_123' });
    const out = applyBasic({ kind: 'basic', username: '', usernameSecret: 'K' }, { method: 'GET', url: 'https://api.example.com/', headers: {} }, ctx);
    expect(out.headers).toEqual({ Authorization: `Basic ${Buffer.from('sk_test_123:').toString('base64')}` });
    expect(ctx.sensitive.redact(out.headers.Authorization!)).toBe('Basic [redacted]');
  });
});
