import { describe, expect, it } from 'vitest';
import { fieldIssue, fieldKind, initialValue, isNullable, issuesByField, matchVariant, newItem, pointerLabel, toPointer, variantLabel, variantsOf, withoutNull, type Schema } from './schema-form';

describe('starting values', () => {
  it('applies every default, optional properties and nested ones included, so untouched fields are sent with them', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        units: { type: 'string', enum: ['metric', 'imperial'], default: 'metric' },
        days: { type: 'integer', default: 3 },
        note: { type: 'string' },
        options: { type: 'object', properties: { lang: { type: 'string', default: 'en' } } },
        flags: { type: 'object', default: { raw: true }, properties: { raw: { type: 'boolean' } } },
        strict: { type: 'boolean' },
      },
      required: ['city', 'options', 'strict'],
    };
    expect(initialValue(schema, schema)).toEqual({ units: 'metric', days: 3, options: { lang: 'en' }, flags: { raw: true }, strict: false });
  });

  it('starts a const with its value and a oneOf with its first variant', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        shape: { oneOf: [{ type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'] }, { type: 'string' }] },
      },
      required: ['shape'],
    };
    expect(initialValue(schema, schema)).toEqual({ shape: { kind: 'circle' } });
  });
});

describe('controls', () => {
  it('gives strings a one-line input unless the schema asks for long text', () => {
    expect(fieldKind({ type: 'string' }, 1)).toBe('string');
    expect(fieldKind({ type: 'string', maxLength: 200 }, 1)).toBe('string');
    expect(fieldKind({ type: 'string', maxLength: 201 }, 1)).toBe('text');
    expect(fieldKind({ type: 'string', format: 'textarea' }, 1)).toBe('text');
    expect(fieldKind({ type: 'string', format: 'multi-line' }, 1)).toBe('text');
    expect(fieldKind({ type: 'string', contentMediaType: 'text/markdown' }, 1)).toBe('text');
    expect(fieldKind({ type: 'string', format: 'email' }, 1)).toBe('string');
  });

  it('knows variants, consts and nullable types', () => {
    expect(fieldKind({ anyOf: [{ type: 'string' }, { type: 'number' }] }, 1)).toBe('variant');
    expect(fieldKind({ const: 'x' }, 1)).toBe('const');
    expect(fieldKind({ oneOf: [{ type: 'string' }], allOf: [{}] }, 1)).toBe('json');
    expect(isNullable({ type: ['string', 'null'] })).toBe(true);
    expect(isNullable({ type: 'string' })).toBe(false);
    expect(isNullable({ type: ['string', 'number', 'null'] })).toBe(false);
    expect(isNullable({ type: ['string', 'null'], enum: ['a', null] })).toBe(false);
    expect(fieldKind(withoutNull({ type: ['integer', 'null'] }), 1)).toBe('integer');
    expect(newItem({ type: 'boolean' }, {}, 1)).toBe(false);
  });
});

describe('variants', () => {
  const root: Schema = { $defs: { circle: { title: 'Circle', type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind'] } } };
  const schema: Schema = {
    description: 'A shape',
    oneOf: [{ $ref: '#/$defs/circle' }, { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind'] }, { type: 'string' }],
  };
  const variants = variantsOf(schema, root);

  it('resolves each variant, keeps the keywords beside oneOf, and names them', () => {
    expect(variants).toHaveLength(3);
    expect(variants[0]).toMatchObject({ description: 'A shape', title: 'Circle', type: 'object' });
    expect(variants.map((v, i) => variantLabel(v, i))).toEqual(['Circle', 'kind: square', '3: string']);
  });

  it('finds which variant a value is by its const discriminator or its type', () => {
    expect(matchVariant(variants, { kind: 'square', side: 2 }, root, 1)).toBe(1);
    expect(matchVariant(variants, { kind: 'circle' }, root, 1)).toBe(0);
    expect(matchVariant(variants, 'a name', root, 1)).toBe(2);
    expect(matchVariant(variants, undefined, root, 1)).toBe(0);
  });
});

describe('issues on fields', () => {
  it('puts a missing property on its own field and others where ajv points', () => {
    expect(fieldIssue({ path: '(root)', message: "must have required property 'city'" })).toEqual({ pointer: '/city', message: 'is required', missing: true });
    expect(fieldIssue({ path: '/options', message: "must have required property 'a/b'" })).toEqual({ pointer: '/options/a~1b', message: 'is required', missing: true });
    expect(fieldIssue({ path: '/tags/1', message: 'must be string' })).toEqual({ pointer: '/tags/1', message: 'must be string', missing: false });
    expect(fieldIssue({ path: '(root)', message: 'must NOT have additional properties' })).toMatchObject({ pointer: '' });
  });

  it('groups issues by field, with pointers made the way the form makes them', () => {
    const byField = issuesByField([
      { path: '/days', message: 'must be integer' },
      { path: '/days', message: 'must be >= 1' },
      { path: '(root)', message: "must have required property 'city'" },
    ]);
    expect([...byField.keys()]).toEqual([toPointer(['days']), toPointer(['city'])]);
    expect(byField.get('/days')!.map((i) => i.message)).toEqual(['must be integer', 'must be >= 1']);
    expect(toPointer(['a/b', 0, '~x'])).toBe('/a~1b/0/~0x');
    expect(pointerLabel('/options/a~1b/0')).toBe('options.a/b.0');
    expect(pointerLabel('')).toBe('the arguments');
  });
});
