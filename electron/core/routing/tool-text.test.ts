import { describe, expect, it } from 'vitest';
import { routedText, textProperty } from './tool-text';

const readfileLike = {
  outputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string', contentMediaType: 'text/plain' }, bytes: { type: 'integer' } },
  },
};

describe('the text of a routed tool result', () => {
  it('is a string result as it is', () => {
    expect(routedText('a\nb', readfileLike)).toBe('a\nb');
  });

  it('is the property the outputSchema marks with contentMediaType', () => {
    expect(textProperty(readfileLike.outputSchema)).toBe('content');
    expect(routedText({ path: 'n.txt', content: 'line 1\nline 2\n', bytes: 14 }, readfileLike)).toBe('line 1\nline 2\n');
  });

  it('is indented JSON when nothing is marked, two properties are, or the marked one is not a string', () => {
    const value = { path: 'n.txt', content: 'x' };
    expect(routedText(value, { outputSchema: { type: 'object', properties: { content: { type: 'string' } } } })).toBe(JSON.stringify(value, null, 2));
    const two = { type: 'object', properties: { a: { type: 'string', contentMediaType: 'text/plain' }, b: { type: 'string', contentMediaType: 'text/plain' } } };
    expect(textProperty(two)).toBeUndefined();
    expect(routedText({ path: 'n.txt', content: 42 }, readfileLike)).toBe(JSON.stringify({ path: 'n.txt', content: 42 }, null, 2));
    expect(routedText([1, 2], readfileLike)).toBe('[\n  1,\n  2\n]');
    expect(routedText(undefined)).toBe('');
    expect(textProperty(null)).toBeUndefined();
  });
});
