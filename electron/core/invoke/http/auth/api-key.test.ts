import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors';
import { applyApiKey } from './api-key';
import { authContext as makeContext } from './test-context';

const KEY = 'ak-DISTINCT-5150&=/';
const authContext = (values: Record<string, string> = { K: KEY }) => makeContext(values);

const req = { method: 'GET', url: 'https://api.example.com/v1/x?a=1%202', headers: { Accept: 'application/json' } };

describe('apiKey', () => {
  it('sets the header and marks it sensitive', () => {
    const ctx = authContext();
    const out = applyApiKey({ kind: 'apiKey', in: 'header', name: 'X-Key', secret: 'K' }, req, ctx);
    expect(out.headers).toEqual({ Accept: 'application/json', 'X-Key': KEY });
    expect(ctx.sensitive.redactHeaders(out.headers)['X-Key']).toBe('[redacted]');
    expect(ctx.asked).toEqual(['K@api.example.com']);
    expect(req.headers).toEqual({ Accept: 'application/json' });
  });

  it('appends a form-encoded query parameter, keeping the rest of the query as it was', () => {
    const ctx = authContext();
    const out = applyApiKey({ kind: 'apiKey', in: 'query', name: 'api key', secret: 'K' }, req, ctx);
    expect(out.url).toBe('https://api.example.com/v1/x?a=1%202&api+key=ak-DISTINCT-5150%26%3D%2F');
    expect(new URL(out.url).searchParams.get('api key')).toBe(KEY);
    expect(ctx.sensitive.redact(out.url)).not.toContain('5150');
    expect(applyApiKey({ kind: 'apiKey', in: 'query', name: 'k', secret: 'K' }, { ...req, url: 'https://api.example.com/' }, ctx).url).toBe('https://api.example.com/?k=ak-DISTINCT-5150%26%3D%2F');
  });

  it('refuses a secret that would split the header, without showing it', () => {
    const ctx = authContext({ K: 'x\r\nEvil: 1' });
    try {
      applyApiKey({ kind: 'apiKey', in: 'header', name: 'X-Key', secret: 'K' }, req, ctx);
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).code).toBe('VALIDATION_FAILED');
      expect((e as AppError).message).toContain("'K'");
      expect((e as AppError).message).not.toContain('Evil');
    }
  });

  it('refuses reserved header names', () => {
    expect(() => applyApiKey({ kind: 'apiKey', in: 'header', name: 'Host', secret: 'K' }, req, authContext())).toThrowError(AppError);
  });
});
