import { describe, expect, it } from 'vitest';
import { isOne } from './plural';
import { chatStrings } from './chat-strings';

describe('plural forms', () => {
  it('come from the language rules', () => {
    expect([0, 1, 2, 1.5, 21].map(isOne)).toEqual([false, true, false, false, false]);
    expect(chatStrings.palette.count(1)).toBe('1 matching tool');
    expect(chatStrings.palette.count(3)).toBe('All 3 matching tools');
  });
});
