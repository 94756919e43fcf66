import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addPrefixTokens, addWords, codePointLength, compareCodePoints, foldKey, prefixUpperBound, takeCodePoints } from './text';

function words(s: string, camel = true): string[] {
  const out = new Set<string>();
  addWords(s, out, camel);
  return [...out].sort();
}

/** Reference: compare arrays of code points. */
function refCompare(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

describe('text folding', () => {
  it('folds case, compatibility forms and separators', () => {
    expect(foldKey('Read  File')).toBe('read file');
    expect(foldKey('read-file')).toBe('read file');
    expect(foldKey('read_file\t')).toBe('read file');
    expect(foldKey('ＲＥＡＤ')).toBe('read'); // full-width
    expect(foldKey('ﬁle')).toBe('file'); // ligature
    expect(foldKey('Cafe\u0301')).toBe('café'); // composed
    expect(foldKey('ΟΔΟΣ')).toBe(foldKey('οδοσ')); // final sigma
    expect(foldKey('\ud800x')).toBe('\ufffdx'); // lone surrogate
  });

  it('splits words, with camel-case parts', () => {
    expect(words('readFile')).toEqual(['file', 'read', 'readfile']);
    expect(words('HTTPRequest v2')).toEqual(['http', 'httprequest', 'request', 'v2']);
    expect(words('Reads a file; fast!')).toEqual(['a', 'fast', 'file', 'reads']);
    expect(words('readFile', false)).toEqual(['readfile']);
    expect(words('x'.repeat(65))).toEqual([]);
  });

  it('stores prefixes of up to 3 code points and the whole key', () => {
    const out = new Set<string>();
    addPrefixTokens('read file', out);
    expect([...out].sort()).toEqual(['r', 're', 'rea', 'read file']);
    const astral = new Set<string>();
    addPrefixTokens('😀ab', astral);
    expect([...astral].sort()).toEqual(['😀', '😀a', '😀ab'].sort());
    const spaced = new Set<string>();
    addPrefixTokens('a b', spaced);
    expect([...spaced].sort()).toEqual(['a', 'a b']);
  });

  it('counts and takes code points', () => {
    expect(codePointLength('a😀b')).toBe(3);
    expect(takeCodePoints('a😀b', 2)).toBe('a😀');
  });

  it('compares in code point order (as SQLite BINARY on UTF-8)', () => {
    expect(compareCodePoints('\uffff', '😀')).toBeLessThan(0); // JS '<' says the opposite
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 6 }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(refCompare(a, b)));
      }),
    );
  });

  it('gives an exclusive upper bound for every string with a prefix', () => {
    expect(prefixUpperBound('ab')).toBe('ac');
    expect(prefixUpperBound('a\ud7ff')).toBe('a\ue000');
    expect(prefixUpperBound('a\u{10ffff}')).toBe('b');
    expect(prefixUpperBound('\u{10ffff}')).toBeUndefined();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), fc.string({ unit: 'grapheme', maxLength: 4 }), (p, rest) => {
        const upper = prefixUpperBound(p);
        if (upper === undefined) return;
        expect(refCompare(p + rest, upper)).toBeLessThan(0);
        expect(refCompare(p, upper)).toBeLessThan(0);
      }),
    );
  });
});
