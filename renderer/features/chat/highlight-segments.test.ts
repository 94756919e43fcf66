import { describe, expect, it } from 'vitest';
import { parseDirectives } from '../../../shared/directives/parser';
import { segmentText } from './highlight-segments';

const join = (segs: { text: string }[]) => segs.map((s) => s.text).join('');

describe('segmentText', () => {
  it('is the whole text in one plain run when nothing is highlighted', () => {
    expect(segmentText('hello', [])).toEqual([{ text: 'hello', kind: null, error: false }]);
    expect(segmentText('', [])).toEqual([]);
  });

  it('colours the spans and keeps the text exactly', () => {
    const text = '@tools readfile(output=variable:res)\nplease';
    const parsed = parseDirectives(text);
    const segs = segmentText(text, parsed.highlights, parsed.errors);
    expect(join(segs)).toBe(text);
    expect(segs.find((s) => s.kind === 'directive')?.text).toBe('@tools');
    expect(segs.find((s) => s.kind === 'tool')?.text).toBe('readfile');
    expect(segs.find((s) => s.kind === 'destination')?.text).toBe('variable:res');
  });

  it('lets the innermost span and an error span win', () => {
    const segs = segmentText('abcdef', [
      { start: 0, end: 6, kind: 'directive' },
      { start: 2, end: 4, kind: 'tool' },
      { start: 3, end: 5, kind: 'error' },
    ]);
    expect(segs.map((s) => [s.text, s.kind])).toEqual([
      ['ab', 'directive'],
      ['c', 'tool'],
      ['de', 'error'],
      ['f', 'directive'],
    ]);
  });

  it('underlines directive errors, a zero-width one on one character', () => {
    const text = '@tools readfile(output=nowhere)';
    const parsed = parseDirectives(text);
    expect(parsed.errors.length).toBeGreaterThan(0);
    const segs = segmentText(text, parsed.highlights, parsed.errors);
    expect(join(segs)).toBe(text);
    expect(segs.some((s) => s.error && s.text.includes('nowhere'))).toBe(true);
    expect(segmentText('ab', [], [{ start: 1, end: 1, line: 1, column: 2 }])).toEqual([
      { text: 'a', kind: null, error: false },
      { text: 'b', kind: null, error: true },
    ]);
  });

  it('clamps spans that run past the text', () => {
    const segs = segmentText('abc', [{ start: 1, end: 99, kind: 'tool' }]);
    expect(segs).toEqual([
      { text: 'a', kind: null, error: false },
      { text: 'bc', kind: 'tool', error: false },
    ]);
  });
});
