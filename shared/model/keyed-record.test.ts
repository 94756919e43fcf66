import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FullHttpSpecSchema } from './http-spec';
import { McpStdioSchema } from './mcp-client';
import { keyedRecord } from './keyed-record';

describe('keyedRecord', () => {
  const r = keyedRecord(z.string(), z.string());

  it('keeps ordinary keys', () => {
    expect(r.parse({ a: 'b', constructor: 'c' })).toEqual({ a: 'b', constructor: 'c' });
  });

  it('refuses a __proto__ key by name instead of dropping it', () => {
    const parsed = r.safeParse(JSON.parse('{"__proto__": "x", "a": "b"}'));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({ path: ['__proto__'], message: "'__proto__' cannot be used as a key" });
    // zod's own record drops it without a word: the reason this exists.
    expect(z.record(z.string(), z.string()).parse(JSON.parse('{"__proto__": "x", "a": "b"}'))).toEqual({ a: 'b' });
  });

  it('applies where users name keys: an HTTP tool\'s query and headers, an MCP server\'s environment', () => {
    const http = { method: 'GET', urlTemplate: 'https://example.com/' };
    expect(FullHttpSpecSchema.safeParse(http).success).toBe(true);
    for (const field of ['query', 'headers']) {
      const bad = FullHttpSpecSchema.safeParse({ ...http, [field]: JSON.parse('{"__proto__": "x"}') });
      expect(bad.success, field).toBe(false);
      expect(bad.error!.issues.some((i) => i.path.join('.') === `${field}.__proto__`), field).toBe(true);
    }
    const env = McpStdioSchema.safeParse({ transport: 'stdio', command: 'node', env: JSON.parse('{"__proto__": "x"}') });
    expect(env.success).toBe(false);
    expect(env.error!.issues.some((i) => i.path.join('.') === 'env.__proto__')).toBe(true);
  });
});
