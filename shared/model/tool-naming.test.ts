import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTemplate, placeholdersOf } from './http-spec';
import { escapeTemplateText, isNestedSecretField, isSecretField, isSecretName, numberedName, proposeSecretName, singular, slugify, toArgName, uniqueSlug } from './tool-naming';
import { labelViolation } from './validation';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc_DEF-123';
const GITHUB_TOKEN = `ghp_${'A1b2'.repeat(9)}`;

describe('slugify', () => {
  it('follows the slug rule', () => {
    expect(slugify('listPets')).toBe('list-pets');
    expect(slugify('GET /pets/{petId}')).toBe('get-pets-pet-id');
    expect(slugify('über_Straße 2')).toBe('über-straße-2');
    expect(slugify('***')).toBe('tool');
    expect(slugify('***', 'api')).toBe('api');
    expect([...slugify('a'.repeat(100))].length).toBe(64);
  });

  it('gives a valid slug or the fallback for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (raw) => {
        const s = slugify(raw, 'fallback');
        expect(s === 'fallback' || labelViolation('slug', s) === null).toBe(true);
      }),
    );
  });
});

describe('uniqueSlug', () => {
  it('appends -2, -3 within 64 characters and records what it gave', () => {
    const taken = new Set<string>();
    expect(uniqueSlug('a', taken)).toBe('a');
    expect(uniqueSlug('a', taken)).toBe('a-2');
    expect(uniqueSlug('a', taken)).toBe('a-3');
    expect([...taken]).toEqual(['a', 'a-2', 'a-3']);
    const long = 'b'.repeat(64);
    uniqueSlug(long, taken);
    expect(uniqueSlug(long, taken)).toBe(`${'b'.repeat(62)}-2`);
  });

  it('does not leave a double dash where the cut falls after one', () => {
    const base = `${'c'.repeat(61)}-dd`;
    const taken = new Set([base]);
    expect(uniqueSlug(base, taken)).toBe(`${'c'.repeat(61)}-2`);
  });
});

describe('numberedName', () => {
  it('keeps a free name and numbers a taken one from 2, the base cut to 60 characters', () => {
    const taken = new Set(['id', 'id_2']);
    expect(numberedName('q', (n) => taken.has(n))).toBe('q');
    expect(numberedName('id', (n) => taken.has(n))).toBe('id_3');
    const long = 'x'.repeat(64);
    expect(numberedName(long, (n) => n === long)).toBe(`${'x'.repeat(60)}_2`);
  });
});

describe('proposeSecretName', () => {
  it('names the secret after the host and what it holds', () => {
    expect(proposeSecretName('api.github.com', 'TOKEN')).toBe('GITHUB_TOKEN');
    expect(proposeSecretName('localhost', 'token')).toBe('LOCALHOST_TOKEN');
    expect(proposeSecretName('127.0.0.1', 'TOKEN')).toBe('API_TOKEN');
    expect(proposeSecretName('[::1]', 'TOKEN')).toBe('API_TOKEN');
    expect(proposeSecretName('1password.com', 'KEY')).toBe('S_1PASSWORD_KEY');
    expect(proposeSecretName('www.example.co:8443', 'x-api-key')).toBe('EXAMPLE_X_API_KEY');
  });

  it('always gives a name a ${secret:NAME} placeholder accepts', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (host, what) => {
        const name = proposeSecretName(host, what);
        expect(name.length).toBeLessThanOrEqual(64);
        expect(placeholdersOf(`\${secret:${name}}`)).toEqual([{ kind: 'secret', name }]);
      }),
    );
  });
});

describe('toArgName', () => {
  it('keeps letters, digits, _ $ - and replaces the rest', () => {
    expect(toArgName('user id')).toBe('user_id');
    expect(toArgName('filter.name')).toBe('filter_name');
    expect(toArgName('x-api-key')).toBe('x-api-key');
    expect(toArgName('$top')).toBe('$top');
    expect(toArgName('2fa')).toBe('a_2fa');
    expect(toArgName('a'.repeat(100))).toBe('a'.repeat(64));
  });

  it('always gives a name a ${name} placeholder accepts as one argument', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (raw) => {
        const name = toArgName(raw);
        expect(name.length).toBeLessThanOrEqual(64);
        expect(placeholdersOf(`\${${name}}`)).toEqual([{ kind: 'arg', path: [name] }]);
      }),
    );
  });
});

describe('escapeTemplateText', () => {
  it('doubles the $ of every ${ and nothing else', () => {
    expect(escapeTemplateText('a ${b} c')).toBe('a $${b} c');
    expect(escapeTemplateText('${${')).toBe('$${$${');
    expect(escapeTemplateText('$5 {x}')).toBe('$5 {x}');
  });

  it('reads back as the same text with no placeholder in it', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('$', '{', '}', 'a', ' ', 'secret:', '.'), maxLength: 40 }), (text) => {
        const parts = parseTemplate(escapeTemplateText(text));
        expect(parts.every((p) => 'text' in p)).toBe(true);
        expect(parts.map((p) => ('text' in p ? p.text : '')).join('')).toBe(text);
      }),
    );
  });
});

describe('secret-like names and values', () => {
  it('isSecretName: credential names, whole or inside a longer name; cursors and ordinary names are not', () => {
    for (const name of ['password', 'api_key', 'apiKey', 'X-Api-Key', 'appid', 'access_key', 'key', 'user_password', 'dbPassword', 'pwd', 'passphrase', 'private_key', 'client-credentials', 'oauth_token']) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['page_token', 'next_token', 'keyboard', 'monkey', 'user', 'q', 'id']) {
      expect(isSecretName(name), name).toBe(false);
    }
  });

  it('isSecretField: by the name, or by a credential-shaped value under any name', () => {
    expect(isSecretField('token', 'abc')).toBe(true);
    expect(isSecretField('note', GITHUB_TOKEN)).toBe(true);
    expect(isSecretField('note', JWT)).toBe(true);
    expect(isSecretField('note', 'hello')).toBe(false);
  });

  it('isNestedSecretField: a bare `key` below the top level is a secret only by its value', () => {
    expect(isNestedSecretField('key', 'PROJ')).toBe(false);
    expect(isNestedSecretField('KEY', JWT)).toBe(true);
    expect(isNestedSecretField('api_key', 'PROJ')).toBe(true);
    expect(isNestedSecretField('password', 'x')).toBe(true);
  });
});

describe('singular', () => {
  it('drops a plural ending and anything but letters and digits', () => {
    expect(singular('users')).toBe('user');
    expect(singular('categories')).toBe('category');
    expect(singular('class')).toBe('class');
    expect(singular('v1')).toBe('v1');
    expect(singular('line-items')).toBe('lineitem');
  });
});
