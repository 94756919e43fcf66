/**
 * The engine ajv runs schema patterns with: re2js for what RE2 can express (a pattern that
 * backtracks forever in JavaScript answers at once), JavaScript's engine in a worker under a
 * budget for the rest (lookaround, backreferences), and a clear error when that budget runs out.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeSchemaRegExp, schemaPattern, SchemaPatternError, SLOW_PATTERN_BUDGET_MS, withPatternBudget } from './schema-regexp';

afterAll(() => closeSchemaRegExp());

const EVIL = `${'a'.repeat(40)}b`;

function thrown(run: () => unknown): SchemaPatternError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaPatternError);
    return e as SchemaPatternError;
  }
  return expect.fail('expected a SchemaPatternError');
}

describe('schema patterns', () => {
  it('run a nested quantifier on re2js: (a+)+ against 40 a and a b answers no, as JavaScript would after hours', () => {
    const p = schemaPattern('^(a+)+$');
    expect(p.engine).toBe('re2');
    expect(p.test(EVIL)).toBe(false);
    expect(p.test('a'.repeat(100_000))).toBe(true);
    // patternProperties-style names, \p classes, a long value: all linear.
    expect(schemaPattern('^(\\p{L}+\\s?)+$').test(`${'word '.repeat(5_000)}!`)).toBe(false);
  });

  it('compile once per pattern, and keep different patterns apart (ajv shares a compiled pattern by its toString)', () => {
    expect(schemaPattern('^a$')).toBe(schemaPattern('^a$'));
    expect(String(schemaPattern('^a$'))).not.toBe(String(schemaPattern('^b$')));
  });

  it('refuse a pattern that is not valid ECMAScript with the engine message, as before', () => {
    expect(() => schemaPattern('(')).toThrow(/Invalid regular expression: \/\(\/u: Unterminated group/);
    expect(() => schemaPattern('a{2')).toThrow(SyntaxError);
  });

  it('run a lookahead pattern on the bounded path and answer it correctly, both ways', () => {
    const strong = schemaPattern('^(?=.*\\d)(?=.*[a-z]).{8,}$');
    expect(strong.engine).toBe('bounded');
    expect(strong.test('abcdefg1')).toBe(true);
    expect(strong.test('abcdefgh')).toBe(false);
    const noDots = schemaPattern('^(?!.*\\.\\.)[\\w.]+$');
    expect(noDots.test('a.b.c')).toBe(true);
    expect(noDots.test('a..b')).toBe(false);
    const twice = schemaPattern('^(\\w+)-\\1$');
    expect(twice.engine).toBe('bounded');
    expect(twice.test('ab-ab')).toBe(true);
    expect(twice.test('ab-cd')).toBe(false);
    // RE2 counts stop at 1000: a larger one runs on the bounded path, still exact.
    const long = schemaPattern('^a{1001}$');
    expect(long.engine).toBe('bounded');
    expect(long.test('a'.repeat(1001))).toBe(true);
    expect(long.test('a'.repeat(1000))).toBe(false);
  });

  it('stop a catastrophic lookahead or backreference with a TIMEOUT that names the pattern, then answer the next test', () => {
    const look = thrown(() => schemaPattern('^(?=(a+)+$)').test(EVIL));
    expect(look.code).toBe('TIMEOUT');
    expect(look.message).toContain("the schema pattern '^(?=(a+)+$)' ran longer than");
    expect(look.message).toMatch(/on a 41-character value and was stopped: .*simplify the pattern/);
    const backref = thrown(() => schemaPattern('^(a+)+\\1$').test(EVIL));
    expect(backref.code).toBe('TIMEOUT');
    expect(backref.pattern).toBe('^(a+)+\\1$');
    // The stopped worker was replaced.
    expect(schemaPattern('^(?=a)a+$').test('aaa')).toBe(true);
  });

  it('share one budget among the slow tests of a validation: once it is spent, the next slow test fails at once', () => {
    withPatternBudget(() => {
      expect(thrown(() => schemaPattern('^(?=(a+)+$)').test(EVIL)).code).toBe('TIMEOUT');
      // Fast on its own, but nothing is left of this validation's budget.
      const after = thrown(() => schemaPattern('^(?=a)a+$').test('aaa'));
      expect(after.message).toContain(`ran longer than ${SLOW_PATTERN_BUDGET_MS} ms`);
      // re2js patterns cost no budget.
      expect(schemaPattern('^(a+)+$').test(EVIL)).toBe(false);
    });
    // A new validation has a new budget.
    expect(withPatternBudget(() => schemaPattern('^(?=a)a+$').test('aaa'))).toBe(true);
  });
});
