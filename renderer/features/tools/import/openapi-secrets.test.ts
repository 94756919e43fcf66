import { describe, expect, it } from 'vitest';
import { secretNamesOf, secretsNeeded } from './openapi-secrets';

const tool = (urlTemplate: string, auth: Record<string, unknown>, headers: Record<string, string> = {}) => ({ http: { method: 'GET', urlTemplate, auth, headers, query: {} } });

describe('the secrets imported tools need', () => {
  it('reads each kind of auth and ${secret:…} references', () => {
    expect(secretNamesOf(tool('https://api.stripe.com/v1/balance', { kind: 'basic', username: '', usernameSecret: 'STRIPE_API_KEY' }))).toEqual(['STRIPE_API_KEY']);
    expect(secretNamesOf(tool('https://x.example/a', { kind: 'bearer', secret: 'X_TOKEN' }))).toEqual(['X_TOKEN']);
    expect(secretNamesOf(tool('https://x.example/a', { kind: 'none' }, { Cookie: 'sid=${secret:X_API_KEY}' }))).toEqual(['X_API_KEY']);
    expect(secretNamesOf(tool('https://x.example/a', { kind: 'none' }))).toEqual([]);
    expect(secretNamesOf({ type: 'builtin' })).toEqual([]);
  });

  it('lists each secret once, with the hosts and tools that use it', () => {
    const needs = secretsNeeded([
      { slug: 'get-balance', tool: tool('https://api.stripe.com/v1/balance', { kind: 'basic', username: '', usernameSecret: 'STRIPE_API_KEY' }) },
      { slug: 'upload', tool: tool('https://files.stripe.com:443/v1/files', { kind: 'basic', username: '', usernameSecret: 'STRIPE_API_KEY' }) },
      { slug: 'charges', tool: tool('https://api.stripe.com/v1/charges/${id}', { kind: 'basic', username: '', usernameSecret: 'STRIPE_API_KEY' }) },
      { slug: 'open', tool: tool('https://{tenant}.example/a', { kind: 'bearer', secret: 'OTHER_TOKEN' }) },
    ]);
    expect(needs).toEqual([
      { name: 'STRIPE_API_KEY', hosts: ['api.stripe.com', 'files.stripe.com'], tools: ['get-balance', 'upload', 'charges'] },
      { name: 'OTHER_TOKEN', hosts: [], tools: ['open'] },
    ]);
  });
});
