import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { createMathFunctions, evaluate, EXPRESSION_MAX_DEPTH } from './math';
import { appError, call, testContext } from './test-context';

const calc = createMathFunctions().calc;
const ctx = testContext('/nonexistent-workspace');

function evalError(expr: string): AppError {
  try {
    evaluate(expr);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error(`'${expr}' evaluated without an error`);
}

describe('math.calc', () => {
  it('evaluates arithmetic with the usual precedence', () => {
    const cases: [string, number][] = [
      ['1 + 2 * 3', 7],
      ['(1 + 2) * 3', 9],
      ['10 - 4 - 3', 3],
      ['100 / 10 / 5', 2],
      ['7 % 3', 1],
      ['-7 % 3', -1],
      ['2 ^ 3 ^ 2', 512],
      ['2 ** 10', 1024],
      ['-2 ^ 2', -4],
      ['(-2) ^ 2', 4],
      ['2 ^ -1', 0.5],
      ['--3', 3],
      ['+4', 4],
      ['-3 * -3', 9],
      ['.5 + 1.5e1 + 2E-1', 15.7],
      ['1e+21', 1e21],
      ['3 × 4 ÷ 2 − 1', 5],
      ['  42  ', 42],
    ];
    for (const [expr, want] of cases) expect(evaluate(expr), expr).toBeCloseTo(want, 12);
  });

  it('knows the whitelisted functions and constants, case-insensitively', () => {
    const cases: [string, number][] = [
      ['sqrt(16)', 4],
      ['abs(-3.5)', 3.5],
      ['min(3, 1, 2)', 1],
      ['max(3, 1, 2)', 3],
      ['round(2.5)', 3],
      ['round(3.14159, 2)', 3.14],
      ['floor(-1.5)', -2],
      ['ceil(1.2)', 2],
      ['log(1000)', 3],
      ['log(8, 2)', 3],
      ['ln(e)', 1],
      ['exp(0)', 1],
      ['sin(pi / 2)', 1],
      ['cos(0)', 1],
      ['tan(0)', 0],
      ['PI', Math.PI],
      ['Sqrt(4) + E', 2 + Math.E],
      ['max(sqrt(16), 2 ^ 3) * 2', 16],
    ];
    for (const [expr, want] of cases) expect(evaluate(expr), expr).toBeCloseTo(want, 12);
  });

  it('returns {expression, result} as a tool', async () => {
    expect(await call(calc, ctx, { expression: '(1 + 2) * sqrt(16) / 3' })).toEqual({ expression: '(1 + 2) * sqrt(16) / 3', result: 4 });
  });

  it('refuses division by zero and non-finite results clearly', () => {
    expect(evalError('1 / 0').message).toBe('division by zero at position 3');
    expect(evalError('5 % (2 - 2)').message).toBe('remainder of a division by zero at position 3');
    expect(evalError('sqrt(-1)').message).toMatch(/^sqrt\(-1\) is not a finite number/);
    expect(evalError('ln(0)').message).toMatch(/not a finite number/);
    expect(evalError('10 ^ 400').message).toMatch(/the power at position 4 is not a finite number \(too large\)/);
    expect(evalError('1e999').message).toMatch(/not a finite number/);
    expect(evalError('round(1, 99)').message).toMatch(/digits must be a whole number from 0 to 15/);
  });

  it('refuses names beyond the whitelist, property access and code', () => {
    for (const expr of ['x + 1', 'process', 'constructor', 'Math.PI', 'pi.constructor', 'sqrt.call(1)', 'eval("1")', 'Function("return 1")()', '__proto__', 'toString()', 'hasOwnProperty']) {
      const e = evalError(expr);
      expect(e.code, expr).toBe('VALIDATION_FAILED');
    }
    expect(evalError('foo(1)').message).toMatch(/^unknown name 'foo' at position 1: the functions are sqrt, abs/);
    expect(evalError('1 + "2"').message).toMatch(/unexpected character '"' at position 5/);
    expect(evalError('pi.constructor').message).toMatch(/unexpected character '\.' at position 3/);
  });

  it('refuses syntax errors with the position', () => {
    const cases: [string, RegExp][] = [
      ['1 +', /ends too early/],
      ['(1 + 2', /expected '\)' to close the '\(' at position 1/],
      ['1 + 2)', /unmatched '\)' at position 6/],
      ['2 3', /expected an operator before '3' at position 3/],
      ['2 (3)', /expected an operator before '\(' at position 3/],
      ['sqrt', /'sqrt' is a function: write sqrt\(\.\.\.\)/],
      ['pi(2)', /'pi' is a constant, not a function/],
      ['sqrt()', /sqrt\(\) needs 1 argument/],
      ['sqrt(1, 2)', /sqrt\(\) takes at most 1 argument/],
      ['min(1,)', /expected a number, a name or '\('/],
      ['', /empty/],
      ['1 $ 2', /unexpected character '\$' at position 3/],
      ['1\u0000', /unexpected character U\+0000/],
    ];
    for (const [expr, re] of cases) expect(evalError(expr).message, expr).toMatch(re);
  });

  it('bounds the length and the nesting depth', () => {
    expect(evalError('1+'.repeat(600) + '1').message).toMatch(/at most 1000 characters/);
    const deep = '('.repeat(EXPRESSION_MAX_DEPTH + 1) + '1' + ')'.repeat(EXPRESSION_MAX_DEPTH + 1);
    expect(evalError(deep).message).toMatch(/nested too deeply/);
    expect(evalError('-'.repeat(200) + '1').message).toMatch(/nested too deeply/);
    expect(evalError('2^'.repeat(100) + '1').message).toMatch(/nested too deeply/);
    expect(evaluate('('.repeat(30) + '1' + ')'.repeat(30))).toBe(1);
  });

  it('refuses odd argument values as a tool', async () => {
    expect((await appError(call(calc, ctx, { expression: 42 }))).code).toBe('VALIDATION_FAILED');
    expect((await appError(call(calc, ctx, {}))).code).toBe('VALIDATION_FAILED');
  });
});

describe('math.calc properties', () => {
  const TOKENS = ['1', '2.5', '.5', '1e3', '0', '+', '-', '*', '/', '%', '^', '**', '(', ')', ',', ' ', 'pi', 'e', 'sqrt', 'min', 'max', 'round', 'log', 'x', 'constructor', '.', '"', '[', ']', '$', '\u0000', '😀', 'E+', '×'];

  it('random token soup never throws anything but an AppError(VALIDATION_FAILED), and a result is always finite', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }), (tokens) => {
        const expr = tokens.join('');
        try {
          const v = evaluate(expr);
          expect(Number.isFinite(v)).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(AppError);
          expect((e as AppError).code).toBe('VALIDATION_FAILED');
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('arbitrary strings never throw anything but an AppError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (expr) => {
        try {
          evaluate(expr);
        } catch (e) {
          expect(e).toBeInstanceOf(AppError);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('numbers round-trip: evaluate(String(x)) === x for every finite double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const v = evaluate(String(x));
        expect(v === x || (x === 0 && v === 0)).toBe(true);
        expect(evaluate(`(${x})`)).toBe(Object.is(x, -0) ? 0 : x);
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with JavaScript on sums and products of small integers', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 10 }), fc.array(fc.constantFrom('+', '-', '*'), { minLength: 9, maxLength: 9 }), (nums, ops) => {
        const expr = nums.map((n, i) => (i === 0 ? `(${n})` : `${ops[i - 1]} (${n})`)).join(' ');
        // Same precedence as JavaScript for these operators; the expression holds only numbers and + - *.
        const want = nums.reduce<{ sum: number; term: number; sign: number }>(
          (acc, n, i) => {
            if (i === 0) return { sum: 0, term: n, sign: 1 };
            const op = ops[i - 1]!;
            if (op === '*') return { ...acc, term: acc.term * n };
            return { sum: acc.sum + acc.sign * acc.term, term: n, sign: op === '+' ? 1 : -1 };
          },
          { sum: 0, term: 0, sign: 1 },
        );
        expect(evaluate(expr)).toBe(want.sum + want.sign * want.term || 0);
      }),
      { numRuns: 500 },
    );
  });
});
