import { describe, expect, it } from 'vitest';
import { SchemaCache } from './schema-cache';

describe('the schema cache', () => {
  it('frees what it evicts from ajv as well: many distinct form schemas keep memory bounded', () => {
    const cache = new SchemaCache();
    const ajvCacheSize = () => (cache as unknown as { argsAjv: { _cache: Map<unknown, unknown> } }).argsAjv._cache.size;
    const N = 4_100;
    for (let i = 0; i < N; i++) {
      const schema = { type: 'object', properties: { [`f${i}`]: { type: 'string' } }, required: [`f${i}`] };
      const r = cache.checkArgs(`form:${i}`, schema, { [`f${i}`]: 'x' });
      expect(r.issues).toEqual([]);
    }
    // ajv keeps each compiled schema; the cache's cap (4,000) is now ajv's too.
    expect(ajvCacheSize()).toBeLessThan(N);
    expect(ajvCacheSize()).toBeLessThanOrEqual(4_000 + 10);
    // An evicted schema still checks (it is compiled again).
    expect(cache.checkArgs('form:0', { type: 'object', required: ['f0'] }, {}).issues.length).toBe(1);
  });
});
