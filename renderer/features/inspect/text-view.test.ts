import { describe, expect, it } from 'vitest';
import { looksLikeJson, wholeView } from './text-view';

describe('a buffer shown whole', () => {
  it('indents one-line JSON, and keeps the text as is when wrapped', () => {
    const oneLine = JSON.stringify({ items: [{ id: 1, name: 'a' }], next: null });
    expect(wholeView(oneLine, 'json')).toEqual({ ok: true, text: '{\n  "items": [\n    {\n      "id": 1,\n      "name": "a"\n    }\n  ],\n  "next": null\n}' });
    expect(wholeView(oneLine, 'wrapped')).toEqual({ ok: true, text: oneLine });
  });

  it('says why text is not JSON', () => {
    const r = wholeView('{"a": 1,', 'json');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/^not JSON: /);
  });

  it('offers JSON for text that starts like it', () => {
    expect(looksLikeJson('  {"a"')).toBe(true);
    expect(looksLikeJson('[1,2]')).toBe(true);
    expect(looksLikeJson('Line 1')).toBe(false);
  });
});
