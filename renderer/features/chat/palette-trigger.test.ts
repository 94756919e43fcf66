import { describe, expect, it } from 'vitest';
import { findPaletteTrigger, insertTrigger, locateTrigger, removeTrigger } from './palette-trigger';

describe('findPaletteTrigger', () => {
  it('finds a + at the start of the text, with the query after it', () => {
    expect(findPaletteTrigger('+readf', 6)).toEqual({ start: 0, end: 6, query: 'readf' });
    expect(findPaletteTrigger('+', 1)).toEqual({ start: 0, end: 1, query: '' });
  });

  it('finds a + after a blank or a line break', () => {
    expect(findPaletteTrigger('see +read', 9)).toEqual({ start: 4, end: 9, query: 'read' });
    expect(findPaletteTrigger('line one\n+calc', 14)).toEqual({ start: 9, end: 14, query: 'calc' });
    expect(findPaletteTrigger('a\t+x', 4)).toEqual({ start: 2, end: 4, query: 'x' });
  });

  it('takes the whole token when the caret is inside it', () => {
    expect(findPaletteTrigger('go +readfile now', 6)).toEqual({ start: 3, end: 12, query: 'readfile' });
  });

  it('ignores a + inside a word, and a caret before the +', () => {
    expect(findPaletteTrigger('1+2', 3)).toBeNull();
    expect(findPaletteTrigger('c++', 3)).toBeNull();
    expect(findPaletteTrigger('+readf', 0)).toBeNull();
    expect(findPaletteTrigger('x +readf', 2)).toBeNull();
  });

  it('stays open across blanks: the query is a sentence up to the caret, through the word it is in', () => {
    expect(findPaletteTrigger('+readf ', 7)).toEqual({ start: 0, end: 7, query: 'readf ' });
    expect(findPaletteTrigger('+send a text message', 20)).toEqual({ start: 0, end: 20, query: 'send a text message' });
    expect(findPaletteTrigger('see +send a text now', 13)).toEqual({ start: 4, end: 16, query: 'send a text' });
    expect(findPaletteTrigger('+send a text to +15550100 saying hi', 35)).toEqual({ start: 0, end: 35, query: 'send a text to +15550100 saying hi' });
  });

  it('takes the nearest + before the caret as the start', () => {
    expect(findPaletteTrigger('+calc and +readf now', 20)).toEqual({ start: 10, end: 20, query: 'readf now' });
  });

  it('closes at a line break, and for a + followed by a blank once the caret moves past it', () => {
    expect(findPaletteTrigger('+send a text\nto bob', 19)).toBeNull();
    expect(findPaletteTrigger('+send\r\nx', 8)).toBeNull();
    expect(findPaletteTrigger('1 + 2', 5)).toBeNull();
    expect(findPaletteTrigger('1 + 2', 3)).toEqual({ start: 2, end: 3, query: '' });
  });

  it('keeps a + followed by a digit a name: open in its first word only', () => {
    expect(findPaletteTrigger('+2fa', 4)).toEqual({ start: 0, end: 4, query: '2fa' });
    expect(findPaletteTrigger('+1 for that idea', 16)).toBeNull();
    expect(findPaletteTrigger('+1 for', 2)).toEqual({ start: 0, end: 2, query: '1' });
  });

  it('keeps code and symbols plain: a + followed by anything but a letter opens in its first word only', () => {
    const line = (t: string) => findPaletteTrigger(t, t.length);
    expect(line('why does x += 1 fail in my loop')).toBeNull();
    expect(line('use ++i in the loop')).toBeNull();
    expect(line('the +/- button is broken')).toBeNull();
    expect(line('a +_private helper and more')).not.toBeNull();
    expect(findPaletteTrigger('x +=', 4)).toEqual({ start: 2, end: 4, query: '=' });
  });

  it('clamps a caret outside the text', () => {
    expect(findPaletteTrigger('+a', 99)).toEqual({ start: 0, end: 2, query: 'a' });
    expect(findPaletteTrigger('+a', -3)).toBeNull();
  });
});

describe('removeTrigger', () => {
  it('removes the token and the caret goes where it was', () => {
    expect(removeTrigger('+readf', { start: 0, end: 6 })).toEqual({ text: '', caret: 0 });
  });

  it('removes a whole sentence, keeping what followed it', () => {
    const t = 'see +send a text now';
    expect(removeTrigger(t, findPaletteTrigger(t, 15)!)).toEqual({ text: 'see now', caret: 3 });
  });

  it('drops one blank so no double space is left', () => {
    expect(removeTrigger('see +readf now', { start: 4, end: 10 })).toEqual({ text: 'see now', caret: 3 });
    expect(removeTrigger('see +readf', { start: 4, end: 10 })).toEqual({ text: 'see', caret: 3 });
    expect(removeTrigger('+readf now', { start: 0, end: 6 })).toEqual({ text: 'now', caret: 0 });
    expect(removeTrigger('a\n+x b', { start: 2, end: 4 })).toEqual({ text: 'a\nb', caret: 2 });
  });

  it('keeps line breaks around the token', () => {
    expect(removeTrigger('a\n+x\nb', { start: 2, end: 4 })).toEqual({ text: 'a\n\nb', caret: 2 });
  });
});

describe('locateTrigger', () => {
  const was = { start: 4, end: 10, query: 'readf' };

  it('finds the token where it was', () => {
    expect(locateTrigger('see +readf', 0, was)).toEqual(was);
  });

  it('finds a sentence where it was', () => {
    const sentence = { start: 4, end: 23, query: 'delete a recording' };
    expect(locateTrigger('see +delete a recording', 0, sentence)).toEqual(sentence);
  });

  it('follows the caret when the text moved', () => {
    expect(locateTrigger('well see +readf', 15, was)).toEqual({ start: 9, end: 15, query: 'readf' });
  });

  it('answers null when the token is gone', () => {
    expect(locateTrigger('see nothing', 11, was)).toBeNull();
  });
});

describe('insertTrigger', () => {
  it('puts a + at the caret, after a blank when the caret follows a word', () => {
    expect(insertTrigger('', 0, 0)).toEqual({ text: '+', caret: 1 });
    expect(insertTrigger('hello', 5, 5)).toEqual({ text: 'hello +', caret: 7 });
    expect(insertTrigger('hello ', 6, 6)).toEqual({ text: 'hello +', caret: 7 });
  });

  it('keeps the following word apart and replaces a selection', () => {
    expect(insertTrigger('ab', 0, 0)).toEqual({ text: '+ ab', caret: 1 });
    expect(insertTrigger('a XX b', 2, 4)).toEqual({ text: 'a + b', caret: 3 });
  });

  it('gives a text where the palette opens at the caret', () => {
    const r = insertTrigger('one two', 3, 3);
    expect(findPaletteTrigger(r.text, r.caret)).toEqual({ start: 4, end: 5, query: '' });
  });
});
