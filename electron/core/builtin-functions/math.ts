/**
 * The `math` bundle: a safe arithmetic evaluator, written as a small Pratt parser. It never
 * uses eval, Function or property access: the only names are the whitelisted functions and
 * constants below.
 *
 * Grammar (loosest binding first):
 *   expr    := expr ('+' | '-') expr            left-assoc
 *            | expr ('*' | '/' | '%') expr      left-assoc
 *            | ('-' | '+') expr                 unary; binds looser than '^': -2^2 = -4
 *            | expr '^' expr                    right-assoc: 2^3^2 = 2^9; '**' is the same
 *            | number | constant | fn '(' expr (',' expr)* ')' | '(' expr ')'
 * Numbers: 12, 1.5, .5, 1e-3, 1E+21. Also accepted: '×' for '*', '÷' for '/', '−' for '-'.
 * '%' is the remainder (JavaScript's: sign of the dividend). Names are case-insensitive.
 *
 * Limits: 1,000 characters, 64 levels of nesting (parentheses, function calls, unary signs
 * and '^' chains all count). Division or remainder by zero, a result that is not a finite
 * number (overflow, sqrt(-1), ln(0)) and every syntax problem are VALIDATION_FAILED with
 * the position; nothing else is ever thrown.
 */
import { AppError } from '../../../shared/errors';
import type { LocalFunction } from '../invoke/types';
import { argsOf, reqString } from '../lib/args';

export const EXPRESSION_MAX_LENGTH = 1000;
export const EXPRESSION_MAX_DEPTH = 64;

type Fn = { arity: [number, number]; apply: (a: number[]) => number };

function roundTo(x: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) {
    throw new MathError('round(x, digits): digits must be a whole number from 0 to 15');
  }
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export const FUNCTIONS: Readonly<Record<string, Fn>> = Object.freeze({
  sqrt: { arity: [1, 1], apply: ([x]) => Math.sqrt(x!) },
  abs: { arity: [1, 1], apply: ([x]) => Math.abs(x!) },
  min: { arity: [1, 100], apply: (a) => Math.min(...a) },
  max: { arity: [1, 100], apply: (a) => Math.max(...a) },
  round: { arity: [1, 2], apply: ([x, d]) => (d === undefined ? Math.round(x!) : roundTo(x!, d)) },
  floor: { arity: [1, 1], apply: ([x]) => Math.floor(x!) },
  ceil: { arity: [1, 1], apply: ([x]) => Math.ceil(x!) },
  /** log(x) is base 10; log(x, b) is base b. */
  log: { arity: [1, 2], apply: ([x, b]) => (b === undefined ? Math.log10(x!) : Math.log(x!) / Math.log(b)) },
  ln: { arity: [1, 1], apply: ([x]) => Math.log(x!) },
  exp: { arity: [1, 1], apply: ([x]) => Math.exp(x!) },
  sin: { arity: [1, 1], apply: ([x]) => Math.sin(x!) },
  cos: { arity: [1, 1], apply: ([x]) => Math.cos(x!) },
  tan: { arity: [1, 1], apply: ([x]) => Math.tan(x!) },
});

export const CONSTANTS: Readonly<Record<string, number>> = Object.freeze({ pi: Math.PI, e: Math.E });

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Internal: becomes an AppError at the boundary. */
class MathError extends Error {}

type Token =
  | { kind: 'num'; value: number; pos: number; text: string }
  | { kind: 'name'; value: string; pos: number; text: string }
  | { kind: 'op'; value: '+' | '-' | '*' | '/' | '%' | '^' | '(' | ')' | ','; pos: number; text: string }
  | { kind: 'end'; pos: number; text: string };

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z][A-Za-z0-9_]*/;
const ALIASES: Record<string, string> = { '×': '*', '·': '*', '÷': '/', '−': '-', '–': '-' };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = src.slice(i, i + 400);
    const num = NUMBER.exec(rest);
    if (num) {
      if (num[0].length >= 400) throw new MathError(`the number at position ${i + 1} is too long`);
      out.push({ kind: 'num', value: Number(num[0]), pos: i + 1, text: num[0] });
      i += num[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      if (name[0].length > 32) throw new MathError(`unknown name '${name[0].slice(0, 32)}…' at position ${i + 1}`);
      out.push({ kind: 'name', value: name[0].toLowerCase(), pos: i + 1, text: name[0] });
      i += name[0].length;
      continue;
    }
    if (c === '*' && src[i + 1] === '*') {
      out.push({ kind: 'op', value: '^', pos: i + 1, text: '**' });
      i += 2;
      continue;
    }
    const op = ALIASES[c] ?? c;
    if ('+-*/%^(),'.includes(op)) {
      out.push({ kind: 'op', value: op as '+', pos: i + 1, text: c });
      i++;
      continue;
    }
    const cp = src.codePointAt(i)!;
    const shown = cp < 0x20 || cp === 0x7f ? `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` : `'${String.fromCodePoint(cp)}'`;
    throw new MathError(`unexpected character ${shown} at position ${i + 1}: use numbers, + - * / % ^, parentheses, ${Object.keys(FUNCTIONS).join(', ')}, pi and e`);
  }
  out.push({ kind: 'end', pos: src.length + 1, text: '' });
  return out;
}

const INFIX: Record<string, { lbp: number; right: boolean }> = {
  '+': { lbp: 10, right: false },
  '-': { lbp: 10, right: false },
  '*': { lbp: 20, right: false },
  '/': { lbp: 20, right: false },
  '%': { lbp: 20, right: false },
  '^': { lbp: 40, right: true },
};
const UNARY_BP = 30;

function finite(x: number, what: string): number {
  if (!Number.isFinite(x)) {
    throw new MathError(`${what} is not a finite number (${Number.isNaN(x) ? 'undefined for these values' : 'too large'})`);
  }
  return x;
}

function describeToken(t: Token): string {
  return t.kind === 'end' ? 'the end of the expression' : `'${t.text}' at position ${t.pos}`;
}

class Parser {
  private k = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.k]!;
  }
  private next(): Token {
    return this.tokens[this.k++]!;
  }

  parse(): number {
    const v = this.expr(0);
    const t = this.peek();
    if (t.kind !== 'end') {
      throw new MathError(t.kind === 'op' && t.value === ')' ? `unmatched ')' at position ${t.pos}` : `expected an operator before ${describeToken(t)}`);
    }
    return v;
  }

  private enter(t: Token): void {
    if (++this.depth > EXPRESSION_MAX_DEPTH) throw new MathError(`the expression is nested too deeply (more than ${EXPRESSION_MAX_DEPTH} levels) at position ${t.pos}`);
  }

  private expr(minBp: number): number {
    this.enter(this.peek());
    let left = this.prefix();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || !own(INFIX, t.value)) {
        if (t.kind === 'num' || t.kind === 'name' || (t.kind === 'op' && t.value === '(')) {
          throw new MathError(`expected an operator before ${describeToken(t)}`);
        }
        break;
      }
      const { lbp, right } = INFIX[t.value]!;
      if (lbp <= minBp) break;
      this.next();
      const rhs = this.expr(right ? lbp - 1 : lbp);
      left = this.apply(t.value, left, rhs, t.pos);
    }
    this.depth--;
    return left;
  }

  private apply(op: string, a: number, b: number, pos: number): number {
    switch (op) {
      case '+':
        return finite(a + b, `the sum at position ${pos}`);
      case '-':
        return finite(a - b, `the difference at position ${pos}`);
      case '*':
        return finite(a * b, `the product at position ${pos}`);
      case '/':
        if (b === 0) throw new MathError(`division by zero at position ${pos}`);
        return finite(a / b, `the quotient at position ${pos}`);
      case '%':
        if (b === 0) throw new MathError(`remainder of a division by zero at position ${pos}`);
        return finite(a % b, `the remainder at position ${pos}`);
      default:
        return finite(a ** b, `the power at position ${pos}`);
    }
  }

  private prefix(): number {
    const t = this.next();
    if (t.kind === 'num') return finite(t.value, `the number '${t.text}'`);
    if (t.kind === 'op' && (t.value === '-' || t.value === '+')) {
      const v = this.expr(UNARY_BP);
      return t.value === '-' ? -v : v;
    }
    if (t.kind === 'op' && t.value === '(') {
      const v = this.expr(0);
      const close = this.next();
      if (close.kind !== 'op' || close.value !== ')') throw new MathError(`expected ')' to close the '(' at position ${t.pos}, found ${describeToken(close)}`);
      return v;
    }
    if (t.kind === 'name') {
      const name = t.value;
      if (own(FUNCTIONS, name)) return this.call(name, t);
      if (own(CONSTANTS, name)) {
        const after = this.peek();
        if (after.kind === 'op' && after.value === '(') throw new MathError(`'${t.text}' is a constant, not a function (position ${t.pos})`);
        return CONSTANTS[name]!;
      }
      throw new MathError(`unknown name '${t.text}' at position ${t.pos}: the functions are ${Object.keys(FUNCTIONS).join(', ')}; the constants are pi and e`);
    }
    if (t.kind === 'end') throw new MathError('the expression ends too early: a number or ( is missing');
    throw new MathError(`expected a number, a name or '(' but found ${describeToken(t)}`);
  }

  private call(name: string, t: Token): number {
    const fn = FUNCTIONS[name]!;
    const open = this.next();
    if (open.kind !== 'op' || open.value !== '(') throw new MathError(`'${t.text}' is a function: write ${name}(...) (position ${t.pos})`);
    const args: number[] = [];
    if (this.peek().kind === 'op' && (this.peek() as { value: string }).value === ')') {
      this.next();
    } else {
      for (;;) {
        if (args.length >= fn.arity[1]) throw new MathError(`${name}() takes at most ${fn.arity[1]} argument${fn.arity[1] === 1 ? '' : 's'} (position ${t.pos})`);
        args.push(this.expr(0));
        const sep = this.next();
        if (sep.kind === 'op' && sep.value === ')') break;
        if (sep.kind !== 'op' || sep.value !== ',') throw new MathError(`expected ',' or ')' in the call of ${name} at position ${t.pos}, found ${describeToken(sep)}`);
      }
    }
    if (args.length < fn.arity[0]) throw new MathError(`${name}() needs ${fn.arity[0] === fn.arity[1] ? '' : 'at least '}${fn.arity[0]} argument${fn.arity[0] === 1 ? '' : 's'} (position ${t.pos})`);
    return finite(fn.apply(args), `${name}(${args.join(', ')})`);
  }
}

/** Evaluates an expression; throws AppError('VALIDATION_FAILED') for anything wrong with it. */
export function evaluate(expression: unknown): number {
  if (typeof expression !== 'string') throw new AppError('VALIDATION_FAILED', 'expression must be a string', { field: 'expression' });
  if (expression.length > EXPRESSION_MAX_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `the expression may be at most ${EXPRESSION_MAX_LENGTH} characters`, { field: 'expression' });
  }
  if (expression.trim() === '') throw new AppError('VALIDATION_FAILED', 'the expression is empty', { field: 'expression' });
  try {
    const v = new Parser(tokenize(expression)).parse();
    return Object.is(v, -0) ? 0 : v;
  } catch (e) {
    if (e instanceof MathError) throw new AppError('VALIDATION_FAILED', e.message, { field: 'expression' });
    if (e instanceof RangeError) throw new AppError('VALIDATION_FAILED', 'the expression is too complex', { field: 'expression' });
    throw e;
  }
}

function makeCalc(): LocalFunction {
  return async (_ctx, rawArgs) => {
    const expression = reqString(argsOf(rawArgs), 'expression', EXPRESSION_MAX_LENGTH);
    const result = evaluate(expression);
    return { expression, result };
  };
}

export function createMathFunctions(): Record<'calc', LocalFunction> {
  return { calc: makeCalc() };
}
