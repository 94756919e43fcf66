import { describe, expect, it } from 'vitest';
import { contentTypeOf, prettyBody } from './http-body';

describe('the response body as the tester shows it', () => {
  it('indents JSON', () => {
    expect(prettyBody('{"a":1,"b":[1,2]}', 'application/json; charset=utf-8')).toBe('{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}');
    expect(prettyBody('[{"x":null}]', 'application/problem+json')).toBe('[\n  {\n    "x": null\n  }\n]');
    expect(prettyBody('{"a":1}', undefined)).toBe('{\n  "a": 1\n}');
  });

  it('leaves everything else as it came', () => {
    expect(prettyBody('<p>{"a":1}</p>', 'text/html')).toBe('<p>{"a":1}</p>');
    expect(prettyBody('{"a":1}', 'text/plain')).toBe('{"a":1}');
    expect(prettyBody('{"a":1,"b":[1,', 'application/json')).toBe('{"a":1,"b":[1,');
    expect(prettyBody('plain', undefined)).toBe('plain');
    expect(prettyBody('', 'application/json')).toBe('');
  });

  it('finds the Content-Type whatever its case', () => {
    expect(contentTypeOf({ 'content-type': 'application/json' })).toBe('application/json');
    expect(contentTypeOf({ 'Content-Type': 'text/plain' })).toBe('text/plain');
    expect(contentTypeOf({})).toBeUndefined();
  });
});

describe('a JSON body indented as written', () => {
  it('keeps every token: big integers, trailing zeros, repeated keys, escapes, empty containers', () => {
    const body = '{"id":12345678901234567890,"price":1.10,"a":1,"a":2,"s":"x\\"y, {z}","e":[],"o":{}}';
    expect(prettyBody(body, 'application/json')).toBe('{\n  "id": 12345678901234567890,\n  "price": 1.10,\n  "a": 1,\n  "a": 2,\n  "s": "x\\"y, {z}",\n  "e": [],\n  "o": {}\n}');
    expect(prettyBody('[1, [2,3]]', undefined)).toBe('[\n  1,\n  [\n    2,\n    3\n  ]\n]');
  });
});
