import { describe, expect, it } from 'vitest';
import { isSentenceQuery, queryWords } from './tool-find';

describe('the shape of a palette query', () => {
  it('one word, or the start of a name, is not a sentence', () => {
    for (const q of ['', ' ', '+', 'readf', '+readfile', '  calc  ', 'read-file', 'github/issues-update']) expect(isSentenceQuery(q), q).toBe(false);
  });

  it('two words or more are a sentence, whatever blanks separate them', () => {
    for (const q of ['read file', '+send a text message', 'delete\ta recording', ' take the bug label off  ']) expect(isSentenceQuery(q), q).toBe(true);
  });

  it('counts the words between blanks, without the leading +', () => {
    expect(queryWords('+ send  a text ')).toEqual(['send', 'a', 'text']);
    expect(queryWords('++c++ now')).toEqual(['c++', 'now']);
    expect(queryWords('')).toEqual([]);
  });
});
