import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import type { SecretResolver } from '../types';
import { CarriedSecrets, carriedForms, guardHop, secretNamesIn } from './carried-secrets';

const VALUE = 'Zq/SECRET+7h3x';
const resolver: SecretResolver = {
  resolve(name, host) {
    if (host !== 'api.good.test') throw new AppError('FORBIDDEN', `secret '${name}' is not bound to host '${host}'`);
    return VALUE;
  },
  values: () => [VALUE],
};

function carried(): CarriedSecrets {
  const c = new CarriedSecrets();
  c.add('KEY', VALUE, resolver);
  c.header('KEY', 'X-Sig');
  return c;
}

describe('CarriedSecrets', () => {
  it('lists each secret once with its headers and its binding, asked of the resolver', () => {
    const c = carried();
    c.add('KEY', VALUE, resolver);
    const [s, ...rest] = c.list();
    expect(rest).toEqual([]);
    expect(s).toMatchObject({ name: 'KEY', value: VALUE, headers: ['x-sig'] });
    expect(s!.boundTo('api.good.test')).toBe(true);
    expect(s!.boundTo('evil.test')).toBe(false);
  });

  it('finds the placeholders of a template, not the escaped ones', () => {
    expect(secretNamesIn('Bearer ${secret:A} and ${secret: B } but $${secret:C}')).toEqual(['A', 'B']);
  });
});

describe('guardHop', () => {
  const hex = Buffer.from(VALUE).toString('hex');
  const headers = () => ({
    'x-plain': VALUE,
    'x-hex-lower': hex,
    'x-hex-upper': hex.toUpperCase(),
    'x-b64': Buffer.from(VALUE).toString('base64'),
    'x-url': encodeURIComponent(VALUE),
    'x-sig': 'derived-signature',
    accept: 'application/json',
  });

  it('passes everything on a hop to a bound host', () => {
    const h = headers();
    guardHop(carried().list(), { url: new URL('https://api.good.test/x?k=' + encodeURIComponent(VALUE)), headers: h, body: Buffer.from(VALUE) });
    expect(Object.keys(h)).toHaveLength(7);
  });

  it('drops every header holding the value in any form, or made from it, on a hop to another host', () => {
    const h = headers();
    guardHop(carried().list(), { url: new URL('https://evil.test/'), headers: h });
    expect(h).toEqual({ accept: 'application/json' });
  });

  it('refuses a URL or a body holding the value, naming the secret and never showing it', () => {
    const from = { url: new URL('https://api.good.test/a'), status: 307 };
    const url = () => guardHop(carried().list(), { url: new URL(`https://evil.test/?c=${hex}`), headers: {}, from });
    expect(url).toThrow("'api.good.test' answered 307, redirecting to 'evil.test', but its URL holds the secret 'KEY', which is not bound to 'evil.test'");
    const body = () => guardHop(carried().list(), { url: new URL('https://evil.test/'), headers: {}, body: Buffer.from(JSON.stringify({ k: VALUE })), from });
    expect(body).toThrow('the request body, re-sent there, holds the secret');
    try {
      body();
    } catch (e) {
      expect((e as AppError).code).toBe('FORBIDDEN');
      expect(JSON.stringify([(e as AppError).message, (e as AppError).details])).not.toContain(VALUE);
    }
  });

  it('finds values shorter than 4 characters through their headers only', () => {
    const c = new CarriedSecrets();
    c.add('PIN', '12', resolver);
    c.header('PIN', 'X-Pin');
    expect(carriedForms('12')).toEqual([]);
    const h = { 'x-pin': '12', 'x-other': '12' };
    guardHop(c.list(), { url: new URL('https://evil.test/?n=12'), headers: h, body: Buffer.from('12') });
    expect(h).toEqual({ 'x-other': '12' });
  });
});
