import { describe, expect, it } from 'vitest';
import { jsonDiff, jsonText, MAX_DIFF_CHARS, splitJsonDiff } from './diff-lines';

describe('jsonText', () => {
  it('indents, sorts object keys at every depth, keeps array order, and names a missing value', () => {
    expect(jsonText({ b: 1, a: { d: [2, 1], c: null } })).toBe('{\n  "a": {\n    "c": null,\n    "d": [\n      2,\n      1\n    ]\n  },\n  "b": 1\n}');
    expect(jsonText('x')).toBe('"x"');
    expect(jsonText(undefined)).toBe('(no value)');
  });
});

describe('jsonDiff', () => {
  it('is the same for values that differ only in key order', () => {
    expect(jsonDiff({ a: 1, b: 2 }, { b: 2, a: 1 }, { before: 'expected', after: 'actual' })).toEqual({ kind: 'same' });
  });

  it('shows a small value whole, with the changed lines marked and counted', () => {
    const d = jsonDiff({ words: 3, text: 'a b' }, { words: 2, text: 'a b' }, { before: 'expected', after: 'actual' });
    if (d.kind !== 'diff') throw new Error(d.kind);
    expect(d.lines.map((l) => `${l.kind} ${l.text}`)).toEqual([
      'header --- expected',
      'header +++ actual',
      'hunk @@ -1,4 +1,4 @@',
      'same  {',
      'same    "text": "a b",',
      'remove -  "words": 3',
      'add +  "words": 2',
      'same  }',
    ]);
    expect([d.added, d.removed]).toEqual([1, 1]);
  });

  it('shows a long value around its changes only', () => {
    const long = Array.from({ length: 300 }, (_, i) => i);
    const d = jsonDiff(long, long.map((n) => (n === 150 ? -1 : n)), { before: 'a', after: 'b' });
    if (d.kind !== 'diff') throw new Error(d.kind);
    expect(d.lines.filter((l) => l.kind === 'same')).toHaveLength(10);
    expect([d.added, d.removed]).toEqual([1, 1]);
  });

  it('does not diff values too large to show', () => {
    expect(jsonDiff('x'.repeat(MAX_DIFF_CHARS), 'y', { before: 'a', after: 'b' })).toEqual({ kind: 'too-large' });
  });
});

describe('splitJsonDiff', () => {
  it('puts unchanged lines on both sides and a changed line facing its replacement, numbered per side', () => {
    const d = splitJsonDiff({ a: 1, b: 2 }, { a: 1, b: 3, c: 4 });
    if (d.kind !== 'diff') throw new Error(d.kind);
    expect(d.rows).toEqual([
      { left: { n: 1, text: '{', kind: 'same' }, right: { n: 1, text: '{', kind: 'same' } },
      { left: { n: 2, text: '  "a": 1,', kind: 'same' }, right: { n: 2, text: '  "a": 1,', kind: 'same' } },
      { left: { n: 3, text: '  "b": 2', kind: 'remove' }, right: { n: 3, text: '  "b": 3,', kind: 'add' } },
      { right: { n: 4, text: '  "c": 4', kind: 'add' } },
      { left: { n: 4, text: '}', kind: 'same' }, right: { n: 5, text: '}', kind: 'same' } },
    ]);
    expect([d.added, d.removed]).toEqual([2, 1]);
  });

  it('leaves the right side empty where lines were only removed', () => {
    const d = splitJsonDiff([1, 2, 3], [1, 3]);
    if (d.kind !== 'diff') throw new Error(d.kind);
    expect(d.rows.filter((r) => !r.right)).toEqual([{ left: { n: 3, text: '  2,', kind: 'remove' } }]);
    expect([d.added, d.removed]).toEqual([0, 1]);
  });

  it('says when both sides are the same, with every line shown', () => {
    const d = splitJsonDiff({ x: [1] }, { x: [1] });
    expect(d.kind).toBe('same');
    if (d.kind === 'same') expect(d.rows).toHaveLength(5);
    expect(splitJsonDiff('x'.repeat(MAX_DIFF_CHARS), 'x')).toEqual({ kind: 'too-large' });
    // Equal values too large to draw are still the same.
    expect(splitJsonDiff('x'.repeat(MAX_DIFF_CHARS), 'x'.repeat(MAX_DIFF_CHARS))).toEqual({ kind: 'same', rows: [] });
  });
});
