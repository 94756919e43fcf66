import { describe, expect, it } from 'vitest';
import { numberOf, numberProblem } from './number-text';

describe('numberOf', () => {
  it('tells empty (not set) from 0, and reads decimal notation only', () => {
    expect(numberOf('')).toBeUndefined();
    expect(numberOf('   ')).toBeUndefined();
    expect(numberOf('0')).toBe(0);
    expect(numberOf(' 0.5 ')).toBe(0.5);
    expect(numberOf('-2')).toBe(-2);
    expect(numberOf('.5')).toBe(0.5);
    expect(numberOf('1e3')).toBe(1000);
    for (const text of ['0x10', 'Infinity', '1_000', '1,5', 'abc', '--1']) expect(numberOf(text)).toBeNaN();
  });
});

describe('numberProblem', () => {
  it('accepts empty unless required, and 0 within bounds', () => {
    expect(numberProblem('', { min: 1 })).toBeUndefined();
    expect(numberProblem('', { required: true })).toBe('Enter a number.');
    expect(numberProblem('0', { min: 0, max: 2 })).toBeUndefined();
  });

  it('says what to type when the text is not a number', () => {
    expect(numberProblem('abc')).toBe('“abc” is not a number: enter digits, like 12 or 0.5.');
    // The browser could not read it (a type="number" input then reports '').
    expect(numberProblem('', {}, true)).toBe('This is not a number: enter digits, like 12 or 0.5.');
  });

  it('names the bounds and what was typed', () => {
    expect(numberProblem('3', { min: 0, max: 2 })).toBe('Enter a number from 0 to 2: got 3.');
    expect(numberProblem('0', { min: 512 })).toBe('Enter 512 or more: got 0.');
    expect(numberProblem('120000', { max: 60000 })).toBe('Enter 60,000 or less: got 120000.');
  });

  it('asks for a whole number when the step is whole, not when it is a fraction', () => {
    expect(numberProblem('2.5', { step: 1 })).toBe('Enter a whole number: got 2.5.');
    expect(numberProblem('0.7', { min: 0, max: 2, step: 0.1 })).toBeUndefined();
  });
});
