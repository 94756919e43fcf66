import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { counted } from '../../../shared/testing/counted-reads';
import Ajv2020 from 'ajv/dist/2020.js';
import { closeSchemaRegExp } from '../lib/schema-regexp';
import { AJV_OPTIONS, schemaCompileViolation, schemaMetaViolation } from './schema-check';

afterAll(() => closeSchemaRegExp());


describe('hostile schemas', () => {
  it('a 1 MB schema is refused by its size, before it is compiled', () => {
    const value = schemaCompileViolation({ type: 'object', description: 'x'.repeat(1024 * 1024) }, 'argSchema');
    expect(value?.rule).toBe('max-size');
  });

  it('a 10,000-deep schema is refused at the depth limit, without a stack overflow', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let k = 0; k < 10_000; k++) deep = { type: 'object', properties: { a: deep } };
    const c = counted(deep);
    expect(schemaCompileViolation(c.value, 'argSchema')?.rule).toBe('max-depth');
    // A few reads per level for the 64 levels allowed, not 10,000 levels.
    expect(c.reads.n).toBeLessThan(1000);
  });

  it.each([
    ['self', { $ref: '#' }],
    ['mutual', { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }],
    ['through anyOf', { $defs: { a: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'null' }] } }, $ref: '#/$defs/a' }],
    ['through an anchor', { $defs: { a: { $anchor: 'x', allOf: [{ $ref: '#x' }] } } }],
    ['through an embedded $id', { $id: 'https://example.com/root', $defs: { a: { $id: 'sub', $ref: 'https://example.com/sub' } } }],
    ['$dynamicRef', { $dynamicAnchor: 'x', $dynamicRef: '#x' }],
    ['a ring of 1,000', { $defs: Object.fromEntries(Array.from({ length: 1000 }, (_, k) => [`d${k}`, { $ref: `#/$defs/d${(k + 1) % 1000}` }])), $ref: '#/$defs/d0' }],
  ])('a $ref loop (%s) is refused with the loop named', (_name, schema) => {
    const value = schemaCompileViolation(schema, 'outputSchema');
    expect(value?.rule).toBe('ref-cycle');
    expect(value?.message).toMatch(/^outputSchema has a \$ref loop that never moves into a property or item \(#.* -> #.*\)/);
    expect(schemaMetaViolation(schema, 'outputSchema')?.rule).toBe('ref-cycle');
  });

  it('recursion through properties and items is fine: the instance is finite', () => {
    expect(schemaCompileViolation({ type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } }, 'argSchema')).toBeNull();
    expect(schemaCompileViolation({ $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' }, 'x')).toBeNull();
    // A $ref inside data (const, enum, default) is not a schema.
    expect(schemaCompileViolation({ const: { $ref: '#/const' } }, 'x')).toBeNull();
  });

  it('a wide schema within the limits compiles', () => {
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 1500 }, (_, k) => [`p${k}`, { type: 'string', minLength: 1 }])) };
    expect(schemaCompileViolation(wide, 'argSchema')).toBeNull();
  });
});

describe('schemas that do not compile', () => {
  it.each([
    [{ type: 'strng' }, 'json-schema', /^argSchema is not a valid JSON Schema 2020-12: argSchema\/type must be equal to one of the allowed values/],
    [{ $ref: 'https://example.com/elsewhere.json' }, 'unresolved-ref', /cannot be resolved: 'https:\/\/example.com\/elsewhere.json'/],
    [{ type: 'string', pattern: '(' }, 'json-schema', /^argSchema is not a valid JSON Schema 2020-12: Invalid regular expression: \/\(\/u: Unterminated group/],
    [{ type: 'object', patternProperties: { 'a{2': {} } }, 'json-schema', /Invalid regular expression: \/a\{2\/u/],
    [{ type: 'string', pattern: '(a)\\2' }, 'json-schema', /Invalid regular expression/],
    [{ $schema: 'http://json-schema.org/draft-07/schema#' }, 'schema-dialect', /only JSON Schema 2020-12 is supported/],
  ])('%j is refused (%s)', (schema, rule, message) => {
    const v = schemaCompileViolation(schema, 'argSchema');
    expect(v?.rule).toBe(rule);
    expect(v?.message).toMatch(message);
  });

  it('two tools may use the same $id', () => {
    // Two different schemas, so the second is compiled too (an equal one would be known to compile).
    expect(schemaCompileViolation({ $id: 'https://example.com/s', type: 'object' }, 'a')).toBeNull();
    expect(schemaCompileViolation({ $id: 'https://example.com/s', type: 'object', required: ['x'] }, 'b')).toBeNull();
  });

  it('accepts the 2020-12 dialect named explicitly and unknown keywords', () => {
    expect(schemaCompileViolation({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', 'x-ui': { order: 1 } }, 'a')).toBeNull();
  });
});

describe('patterns under AJV_OPTIONS', () => {
  it('a backtracking pattern compiles, and an ajv built with AJV_OPTIONS answers it at once (JavaScript would take hours)', () => {
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(b+)+$': { type: 'number' } } };
    expect(schemaCompileViolation(schema, 'argSchema')).toBeNull();
    const validate = new Ajv2020(AJV_OPTIONS).compile(schema);
    expect(validate({ s: `${'a'.repeat(40)}b`, [`${'b'.repeat(40)}c`]: 'not checked' })).toBe(false);
    expect(validate.errors?.map((e) => e.keyword)).toEqual(['pattern']);
    expect(validate({ s: 'aaa', bbb: 'x' })).toBe(false);
    expect(validate({ s: 'aaa', bbb: 1 })).toBe(true);
  });

  it('lookahead and backreference patterns are valid and compile (they run on the bounded path)', () => {
    expect(schemaCompileViolation({ type: 'string', pattern: '^(?=.*\\d)(?!.*\\s).+$' }, 'argSchema')).toBeNull();
    expect(schemaCompileViolation({ type: 'object', patternProperties: { '^(\\w)\\1$': {} } }, 'argSchema')).toBeNull();
  });
});

describe('the same schema checked again', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is not compiled again once it compiled; a schema that did not compile is compiled and refused each time', () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    const schema = { type: 'object', properties: { q: { type: 'string', description: `checked again ${Math.random()}` } } };
    expect(schemaCompileViolation(schema, 'argSchema')).toBeNull();
    expect(compile).toHaveBeenCalledTimes(1);
    // An equal schema (another object with the same JSON) is known to compile.
    expect(schemaCompileViolation(structuredClone(schema), 'outputSchema')).toBeNull();
    expect(compile).toHaveBeenCalledTimes(1);
    // A schema that differs in any way is compiled.
    expect(schemaCompileViolation({ ...schema, required: ['q'] }, 'argSchema')).toBeNull();
    expect(compile).toHaveBeenCalledTimes(2);

    const bad = { type: 'string', pattern: `(${Math.random()}` };
    expect(schemaCompileViolation(bad, 'argSchema')?.message).toMatch(/^argSchema is not a valid JSON Schema 2020-12: Invalid regular expression/);
    expect(schemaCompileViolation(bad, 'outputSchema')?.message).toMatch(/^outputSchema is not a valid JSON Schema 2020-12: Invalid regular expression/);
    expect(compile).toHaveBeenCalledTimes(4);
  });
});
