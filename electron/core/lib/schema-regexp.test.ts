/**
 * The engine ajv runs schema patterns with: re2js for what RE2 can express (a pattern that
 * backtracks forever in JavaScript answers at once), JavaScript's engine in a worker under a
 * budget for the rest (lookaround, backreferences), and a clear error when that budget runs out.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { closeSchemaRegExp, resetSlowPatternWindow, schemaPattern, SchemaPatternError, SLOW_PATTERN_BUDGET_MS, withPatternBudget } from './schema-regexp';

afterAll(() => closeSchemaRegExp());
// Each test starts from a quiet second of slow-pattern time.
beforeEach(() => resetSlowPatternWindow());

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
    resetSlowPatternWindow();
    const backref = thrown(() => schemaPattern('^(a+)+\\1$').test(EVIL));
    expect(backref.code).toBe('TIMEOUT');
    expect(backref.pattern).toBe('^(a+)+\\1$');
    // The stopped worker was replaced (a quiet second later).
    resetSlowPatternWindow();
    expect(schemaPattern('^(?=a)a+$').test('aaa')).toBe(true);
  });

  it('run a pattern whose RE2 program is huge on a long text in the worker, under the budget (it cannot stall this thread)', () => {
    // 157 characters, some 20,000 RE2 instructions: linear, but 20,000 steps per character.
    const huge = `${'(?:a|b){0,1000}'.repeat(10)}(?:c|d)`;
    const p = schemaPattern(huge);
    expect(p.engine).toBe('re2');
    // A short text is answered here, exactly.
    expect(p.test('abc')).toBe(true);
    expect(p.test('ab')).toBe(false);
    const e = thrown(() => p.test('ab'.repeat(10_000)));
    expect(e.code).toBe('TIMEOUT');
    expect(e.pattern).toBe(huge);
    expect(e.message).toContain('on a 20000-character value and was stopped');
    // Asked again at once (a loop, forty parallel calls), it fails without running: the process's
    // slow-pattern time for this second is spent; innocent slow patterns wait their second too.
    const again = thrown(() => p.test('ab'.repeat(10_001)));
    expect(again.message).toContain('was not checked: slow schema patterns');
    expect(thrown(() => schemaPattern('^(?=a)a+$').test('aaa')).message).toContain('was not checked');
    // A long text with a small program stays on re2js, linear and exact.
    expect(schemaPattern('^[ab]+c$').test(`${'ab'.repeat(50_000)}c`)).toBe(true);
  });

  it('share one budget among the slow tests of a validation: once it is spent, the next slow test fails at once', () => {
    withPatternBudget(() => {
      // A pattern not seen before (one that ran out of time before fails at once, spending nothing).
      expect(thrown(() => schemaPattern('^(?=(b+)+$)').test(`${'b'.repeat(40)}a`)).code).toBe('TIMEOUT');
      // Fast on its own, but nothing is left of this validation's budget.
      const after = thrown(() => schemaPattern('^(?=a)a+$').test('aaa'));
      expect(after.message).toContain(`ran longer than ${SLOW_PATTERN_BUDGET_MS} ms`);
      // re2js patterns cost no budget.
      expect(schemaPattern('^(a+)+$').test(EVIL)).toBe(false);
    });
    // A new validation has a new budget (a quiet second later).
    resetSlowPatternWindow();
    expect(withPatternBudget(() => schemaPattern('^(?=a)a+$').test('aaa'))).toBe(true);
  });
});

describe('patterns that ignore case (flags ui)', () => {
  // Every code point that has a case mapping, the ones JavaScript folds oddly, and some that have none.
  const sample: string[] = [];
  for (let cp = 0; cp <= 0x1ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (cp < 0x250 || c.toLowerCase() !== c.toUpperCase() || [0x17f, 0x212a, 0x2126, 0x130, 0x131, 0x3c2, 0x1e9e, 0x345].includes(cp)) sample.push(c);
  }

  it('run on re2js with (?i), answering as JavaScript /ui does on every cased character (Kelvin sign, long s, dotted I, final sigma)', () => {
    const patterns = ['k', 'ſ', '\\u212a', 'ß', 'σ', 'İ', 'ǅ', '[a-z]', '[^a-z]', '\\w', '\\W', '\\d', '\\D', '\\s', '\\S', '.', '\\p{Lu}', '\\P{ASCII}', '[x\\P{ASCII}]', '[\\w]', '[^\\w]', '[^\\D]', '\\p{Script=Greek}', '[^\\p{Ll}]', '^\\w+$', 'straße'];
    for (const source of patterns) {
      const p = schemaPattern(source, 'ui');
      expect(p.engine, source).toBe('re2');
      const js = new RegExp(source, 'ui');
      const wrong = sample.filter((c) => p.test(c) !== js.test(c));
      expect(wrong, source).toEqual([]);
    }
  });

  it('with a word boundary, answer on re2js, and send a text with ſ or the Kelvin sign (word characters to JavaScript /ui) to JavaScript', () => {
    for (const source of ['\\bk', 'k\\b', '\\Bk', '\\bparis\\b']) {
      const p = schemaPattern(source, 'ui');
      expect(p.engine).toBe('re2');
      const js = new RegExp(source, 'ui');
      for (const c of ['k', 'K', 's', 'ſ', '\u212a', ' ', 'é', '1']) for (const text of [`${c}k`, `k${c}`, `${c}Paris${c}`]) expect(p.test(text), `${source} on ${text}`).toBe(js.test(text));
    }
    // A pattern that backtracks forever in JavaScript, ignoring case, answers at once.
    expect(schemaPattern('^(a+)+$', 'ui').test(`${'A'.repeat(40)}b`)).toBe(false);
  });

  it('take the bounded path where RE2 cannot fold as JavaScript does: \\P{Lu}, \\W inside a class', () => {
    for (const source of ['\\P{Lu}', '[\\W]', '[^\\W]', '\\P{Script=Greek}']) {
      const p = schemaPattern(source, 'ui');
      expect(p.engine, source).toBe('bounded');
      expect(p.test('A'), source).toBe(new RegExp(source, 'ui').test('A'));
    }
  });
});
