import { resetSlowPatternWindow } from '../lib/schema-regexp';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSchemaRegExp } from '../lib/schema-regexp';
import { SCHEMA_CACHE_MAX_ENTRIES, SchemaCache } from './schema-cache';

afterAll(() => closeSchemaRegExp());

describe('the schema cache', () => {
  it('frees what it evicts from ajv as well: many distinct form schemas keep memory bounded', () => {
    // The default cap is 4,000; this cache's is small, so that passing it takes a hundred and
    // fifty compilations rather than thousands (each costs a millisecond or more on a loaded machine).
    expect(SCHEMA_CACHE_MAX_ENTRIES).toBe(4_000);
    const CAP = 100;
    const cache = new SchemaCache(CAP);
    const ajvCacheSize = () => (cache as unknown as { argsAjv: { _cache: Map<unknown, unknown> } }).argsAjv._cache.size;
    const before = ajvCacheSize();
    const N = CAP + 50;
    const failed: number[] = [];
    for (let i = 0; i < N; i++) {
      const schema = { type: 'object', properties: { [`f${i}`]: { type: 'string' } }, required: [`f${i}`] };
      if (cache.checkArgs(`form:${i}`, schema, { [`f${i}`]: 'x' }).issues.length > 0) failed.push(i);
    }
    expect(failed).toEqual([]);
    // ajv keeps each compiled schema; the cache's cap is now ajv's too.
    expect(ajvCacheSize()).toBeLessThan(N);
    expect(ajvCacheSize()).toBeLessThanOrEqual(before + CAP);
    // An evicted schema still checks (it is compiled again).
    expect(cache.checkArgs('form:0', { type: 'object', required: ['f0'] }, {}).issues.length).toBe(1);
  });
});

/**
 * Schema patterns from tools, imports and MCP servers: JavaScript's engine would take hours on
 * these (and freeze the app while it did); the checks answer, and what they cannot answer in
 * time fails with the pattern named.
 */
describe('the schema cache and hostile patterns', () => {
  const EVIL = `${'a'.repeat(40)}b`;
  const tool = (id: string, argSchema: object, outputSchema: object) => ({ id, argSchema, outputSchema });

  it('checks a backtracking `pattern` against 40 a and a b, as arguments and as output', () => {
    const cache = new SchemaCache();
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    expect(cache.checkArgs('form:evil', schema, { name: EVIL }).issues).toEqual([{ path: '/name', message: 'must match pattern "^(a+)+$"' }]);
    expect(cache.checkArgs('form:evil', schema, { name: 'aaaa' }).issues).toEqual([]);
    const t = tool('t-evil', schema, { type: 'string', pattern: '^(a+)+$' });
    expect(cache.checkToolArgs(t, { name: EVIL }).issues).toHaveLength(1);
    expect(cache.checkOutput(t, EVIL)).toEqual([{ path: '(root)', message: 'must match pattern "^(a+)+$"' }]);
    expect(cache.check('draft:evil', { pattern: '^(a+)+$' }, 'a'.repeat(50))).toEqual([]);
  });

  it('checks backtracking `patternProperties` and `propertyNames` against such a key', () => {
    const cache = new SchemaCache();
    const schema = { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } }, additionalProperties: false };
    expect(cache.check('pp', schema, { [EVIL]: 1 })).toEqual([{ path: '(root)', message: `must NOT have additional properties: '${EVIL}'` }]);
    expect(cache.check('pp', schema, { aaa: 'x' })).toEqual([{ path: '/aaa', message: 'must be number' }]);
    expect(cache.check('pp', schema, { aaa: 1 })).toEqual([]);
    const names = cache.check('pn', { type: 'object', propertyNames: { pattern: '^(\\w+\\s?)+$' } }, { [`${'word '.repeat(20)}!`]: 1 });
    expect(names.map((i) => i.message)).toContain('must match pattern "^(\\w+\\s?)+$"');
  });

  it('checks a lookahead pattern exactly: a match passes, a non-match is an issue', () => {
    const cache = new SchemaCache();
    const schema = { type: 'object', properties: { password: { type: 'string', pattern: '^(?=.*\\d)(?=.*[A-Z]).{8,}$' } } };
    expect(cache.checkArgs('form:pw', schema, { password: 'Secret123' }).issues).toEqual([]);
    expect(cache.checkArgs('form:pw', schema, { password: 'secret123' }).issues).toEqual([{ path: '/password', message: 'must match pattern "^(?=.*\\d)(?=.*[A-Z]).{8,}$"' }]);
  });

  it('fails a check whose lookahead or backreference pattern runs out of time, naming the pattern; the next check answers', () => {
    const cache = new SchemaCache();
    const t = tool('t-look', { type: 'object', properties: { s: { type: 'string', pattern: '^(?=(a+)+$)' } } }, { type: 'string', pattern: '^(a+)+\\1$' });
    const args = cache.checkToolArgs(t, { s: EVIL });
    expect(args.issues).toHaveLength(1);
    expect(args.issues[0]).toMatchObject({ path: '(root)' });
    expect(args.issues[0]!.message).toMatch(/^the schema pattern '\^\(\?=\(a\+\)\+\$\)' ran longer than \d+ ms on a 41-character value and was stopped/);
    resetSlowPatternWindow();
    expect(cache.checkOutput(t, EVIL)[0]!.message).toContain("the schema pattern '^(a+)+\\1$' ran longer than");
    // A quiet second later (the process's slow-pattern time is spent for the second after a stop).
    resetSlowPatternWindow();
    expect(cache.checkToolArgs(t, { s: 'aaa' }).issues).toEqual([]);
    expect(cache.checkOutput(t, 'aaaa')).toEqual([]);
  });
});
