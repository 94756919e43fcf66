/**
 * The regular-expression engine ajv runs JSON Schema `pattern` and `patternProperties` with
 * (AJV_OPTIONS' `code.regExp`). Patterns come from user tools, imported ZIPs, OpenAPI
 * documents and MCP servers; JavaScript's backtracking engine takes exponential time on some
 * (`^(a+)+$` against 'aaaa…ab'), and ajv runs them on the main thread inside a synchronous
 * validate function. So:
 *
 * - A pattern is compiled with `new RegExp(pattern, 'u')` first (compiling does not
 *   backtrack): a syntax error throws as before, and the store reports it at save time.
 * - A pattern RE2 can express (./ecma-to-re2.ts: nearly all of them) runs on re2js, in time
 *   linear in the text: it cannot hang. So does one with the flags 'ui' (an eval's answer
 *   check in any case), with RE2's (?i).
 * - The rest (lookaround, backreferences, counts past 1000) run on JavaScript's engine in a
 *   worker while this thread waits (./sync-regex.ts). All such tests of one validation
 *   share SLOW_PATTERN_BUDGET_MS of run time (withPatternBudget); past it the test throws a
 *   SchemaPatternError naming the pattern, which the validation reports as a failure.
 *
 * Compiled patterns are cached by source.
 */
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';
import { AppError } from '../../../shared/errors';
import { q } from './args';
import { spellForRe2 } from './ecma-to-re2';
import { SyncRegexRunner } from './sync-regex';

/** Run time that the slow-path pattern tests of one validation share. */
export const SLOW_PATTERN_BUDGET_MS = 250;
const MAX_CACHED = 2_000;

/** A pattern test that could not answer: it ran out of budget, or the worker failed. The validation fails. */
export class SchemaPatternError extends AppError {
  constructor(
    code: 'TIMEOUT' | 'INTERNAL',
    message: string,
    readonly pattern: string,
    /** This pattern itself ran out of time (not a budget another pattern of the validation used up). */
    readonly ranOut = false,
  ) {
    super(code, message, { field: 'pattern', pattern });
  }
}

/** A compiled pattern as ajv uses it; toString is ajv's key for sharing one compiled pattern within a schema. */
export interface SchemaPattern extends RegExpLike {
  /** Which engine answers: re2js (linear time) or JavaScript's in a worker under the budget. */
  readonly engine: 're2' | 'bounded';
  toString(): string;
}

/**
 * RE2 runs in time linear in the text, but the factor is the compiled program's size, which a
 * pattern's author controls (`(?:a|b){0,1000}` repeated is a program of tens of thousands of
 * instructions): past this much work (program size × text length, about a tenth of a second
 * here) the same program runs in the slow path's worker instead, where the budget stops it.
 */
export const RE2_WORK_LIMIT = 2_000_000;

/** The two characters JavaScript's /ui counts as word characters for \b and RE2 does not (./ecma-to-re2.ts, foldedBoundary). */
const FOLDED_WORD_CHARS = /[\u017f\u212a]/;

class Re2Pattern implements SchemaPattern {
  readonly engine = 're2';
  private readonly size: number;
  constructor(
    private readonly re: RE2JS,
    /** `re` is the body of a ^…$ pattern: it must match the whole string. */
    private readonly whole: boolean,
    private readonly key: string,
    /** The schema's own pattern (named in errors) and the RE2 source `re` was compiled from. */
    private readonly pattern: string,
    private readonly source: string,
    private readonly flags: string,
    /** Ignoring case with a word boundary: a text with ſ or the Kelvin sign goes to JavaScript's engine. */
    private readonly foldedBoundary = false,
  ) {
    this.size = Math.max(1, re.programSize());
  }

  test(s: string): boolean {
    if (this.foldedBoundary && FOLDED_WORD_CHARS.test(s)) return boundedTest(this.pattern, this.flags, s);
    // Too much work for this thread: the same RE2 program in the worker, under the budget.
    if (this.size * s.length > RE2_WORK_LIMIT) return boundedTest(this.pattern, this.flags, s, { source: this.source, whole: this.whole });
    return this.whole ? this.re.testExact(s) : this.re.test(s);
  }

  toString(): string {
    return this.key;
  }
}

class BoundedPattern implements SchemaPattern {
  readonly engine = 'bounded';
  constructor(
    private readonly pattern: string,
    private readonly flags: string,
    private readonly key: string,
  ) {}

  test(s: string): boolean {
    return boundedTest(this.pattern, this.flags, s);
  }

  toString(): string {
    return this.key;
  }
}

const cache = new Map<string, SchemaPattern>();
const runner = new SyncRegexRunner();
let budget: { leftMs: number } | undefined;

function compile(pattern: string, flags: string): SchemaPattern {
  // Throws the engine's SyntaxError for a pattern that is not valid ECMAScript: ajv reports it.
  new RegExp(pattern, flags);
  const key = `/${pattern}/${flags}`;
  // 'ui' (an eval's answer check in any case) runs on RE2 with (?i), which folds case as JavaScript's /ui does.
  const ignoreCase = flags === 'ui';
  const re2 = flags === 'u' || ignoreCase ? spellForRe2(pattern, { ignoreCase }) : null;
  if (re2 !== null) {
    const fold = ignoreCase ? '(?i)' : '';
    const boundary = re2.foldedBoundary === true;
    try {
      return re2.whole !== undefined
        ? new Re2Pattern(RE2JS.compile(fold + re2.whole), true, key, pattern, fold + re2.whole, flags, boundary)
        : new Re2Pattern(RE2JS.compile(fold + re2.source), false, key, pattern, fold + re2.source, flags, boundary);
    } catch {
      // Past RE2's limits (a count over 1000, a property it does not know): the bounded path.
    }
  }
  return new BoundedPattern(pattern, flags, key);
}

/** ajv's `code.regExp`: a pattern compiled once, answering `test` within bounds. */
export const schemaRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): SchemaPattern => {
    const key = `${flags}/${pattern}`;
    let hit = cache.get(key);
    if (!hit) {
      hit = compile(pattern, flags);
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
      cache.set(key, hit);
    }
    return hit;
  },
  // Only standalone code (which this app does not generate) would print this.
  { code: 'schemaRegExp' },
);

/** The compiled form ajv gets for a pattern (for tests and diagnostics). */
export function schemaPattern(pattern: string, flags = 'u'): SchemaPattern {
  return schemaRegExp(pattern, flags) as SchemaPattern;
}

/**
 * Runs `validate` (on `value`, when given: no closure to make per validation) with one
 * slow-path budget for all its pattern tests (a validation inside another shares the outer one's).
 */
export function withPatternBudget<T>(validate: () => T): T;
export function withPatternBudget<V, T>(validate: (value: V) => T, value: V): T;
export function withPatternBudget<V, T>(validate: (value?: V) => T, value?: V): T {
  if (budget) return validate(value);
  budget = { leftMs: SLOW_PATTERN_BUDGET_MS };
  try {
    return validate(value);
  } finally {
    budget = undefined;
  }
}

/**
 * What all slow-path tests of the process may take together: at most SLOW_PATTERN_BUDGET_MS of
 * waiting in any SLOW_WINDOW_MS. A validation's own budget bounds one request; this bounds many
 * at once (forty parallel calls each spending their quarter second would hold the thread ten
 * seconds). Past it, a slow-path test fails at once, saying so.
 */
export const SLOW_WINDOW_MS = 1_000;
const recentSlow: { at: number; ms: number }[] = [];

function slowSpentNow(now: number): number {
  while (recentSlow.length && now - recentSlow[0]!.at >= SLOW_WINDOW_MS) recentSlow.shift();
  let ms = 0;
  for (const r of recentSlow) ms += r.ms;
  return ms;
}

/** Forgets the process's recent slow-path time (tests: each starts from a quiet second). */
export function resetSlowPatternWindow(): void {
  recentSlow.length = 0;
}

/** A test in the worker under the budget: JavaScript's engine, or with `re2` the RE2 program of `pattern`. */
function boundedTest(pattern: string, flags: string, input: string, re2?: { source: string; whole: boolean }): boolean {
  // Outside withPatternBudget each test has the whole budget.
  const b = budget ?? { leftMs: SLOW_PATTERN_BUDGET_MS };
  if (b.leftMs <= 0) throw timeoutError(pattern, input);
  const now = performance.now();
  const globalLeft = SLOW_PATTERN_BUDGET_MS - slowSpentNow(now);
  if (globalLeft <= 0) {
    throw new SchemaPatternError(
      'TIMEOUT',
      `the schema pattern ${q(pattern)} was not checked: slow schema patterns (lookaround, backreferences, very large programs) already took ${SLOW_PATTERN_BUDGET_MS} ms of the last ${SLOW_WINDOW_MS} ms; try again in a moment, or simplify the pattern`,
      pattern,
    );
  }
  const r = re2 ? runner.test(re2.source, flags, input, Math.min(b.leftMs, globalLeft), { whole: re2.whole }) : runner.test(pattern, flags, input, Math.min(b.leftMs, globalLeft));
  recentSlow.push({ at: now, ms: r.kind === 'failed' ? 0 : r.ranMs });
  if (r.kind === 'failed') {
    throw new SchemaPatternError('INTERNAL', `the schema pattern ${q(pattern)} could not be checked: ${r.message}`, pattern);
  }
  b.leftMs -= r.ranMs;
  if (r.kind === 'timedOut') throw timeoutError(pattern, input, true);
  return r.matched;
}

function timeoutError(pattern: string, input: string, ranOut = false): SchemaPatternError {
  return new SchemaPatternError(
    'TIMEOUT',
    `the schema pattern ${q(pattern)} ran longer than ${SLOW_PATTERN_BUDGET_MS} ms on a ${input.length}-character value and was stopped: ` +
      'it probably backtracks catastrophically (a lookahead or backreference around nested quantifiers such as (a+)+); simplify the pattern in the schema',
    pattern,
    ranOut,
  );
}

/** Ends the slow path's worker (tests; the worker never keeps the process alive). */
export function closeSchemaRegExp(): Promise<void> {
  return runner.close();
}
