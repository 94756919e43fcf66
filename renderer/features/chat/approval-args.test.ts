import { describe, expect, it } from 'vitest';
import { argsText, editedArgs, parseArgs } from './approval-args';

describe('approval args', () => {
  it('shows the arguments as indented JSON', () => {
    expect(argsText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(argsText(undefined)).toBe('{}');
  });

  it('accepts one JSON object only', () => {
    expect(parseArgs('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseArgs('[1]').ok).toBe(false);
    expect(parseArgs('null').ok).toBe(false);
    const bad = parseArgs('{a: 1}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/^Not valid JSON/);
  });

  it('sends arguments only when they were changed', () => {
    expect(editedArgs({ a: 1, b: [1, { c: 2 }] }, '{ "b": [1, {"c": 2}], "a": 1 }')).toEqual({});
    expect(editedArgs({ a: 1 }, '{"a": 2}')).toEqual({ args: { a: 2 } });
    expect(editedArgs({ a: 1 }, '{"a": 1, "b": null}')).toEqual({ args: { a: 1, b: null } });
    expect(editedArgs({ a: 1 }, '{').error).toBeTruthy();
  });
});
