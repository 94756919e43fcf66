/**
 * The deterministic checks of an attempt: did the model choose the expected tools (and no
 * other), did one of its calls of each pass that tool's argument checks, does the answer
 * contain the text or match the pattern. Each check says why, in a sentence; a failed JSONPath
 * comparison carries both values for the diff. The judge (./judge.ts) runs after these.
 *
 * A check that cannot be evaluated (a JSONPath that cannot run, a pattern that ran out of time,
 * a tool that is gone) says so and carries `unevaluable`: the attempt is an error, not the
 * model's fail. Values are scored whole (what an attempt stores is cut afterwards).
 */
import { isAppError, toErrorInfo, type ErrorInfo } from '../../../shared/errors';
import type { EvalAnswerCheck, EvalArgCheck, EvalCall, EvalCase, EvalCheckResult } from '../../../shared/model/evals';
import type { SchemaIssueInfo } from '../../../shared/contract/common';
import { quote } from '../../../shared/model/validation';
import { schemaPattern, SchemaPatternError, SLOW_PATTERN_BUDGET_MS, withPatternBudget } from '../lib/schema-regexp';
import { MAX_COMPARED_CHARS, jsonEqual, preview, selectJsonPath } from '../testcases/run-tests';

/** A tool as a key: its bundle id and NFC slug. */
export const toolKeyOf = (bundleId: string, slug: string) => `${bundleId}\u0000${slug.normalize('NFC')}`;

export interface ScoreContext {
  /** The key of a case's tool ref (`slug` or `bundle/slug`), resolved when the attempt was prepared. */
  keyOf(ref: string): string;
  /** The name a person reads for a tool ref: bundle/slug. */
  labelOf(ref: string): string;
  /**
   * The issues of arguments against a JSON Schema (the dispatcher's check); the tool's own
   * argSchema when `schema` is absent. Throws when they cannot be checked (the tool is gone).
   */
  argIssues(call: EvalCall, schema: Record<string, unknown> | undefined): readonly SchemaIssueInfo[];
}

/** A check's result; `unevaluable`: it could not be evaluated, and why (the attempt's error). */
export type ScoredCheck = EvalCheckResult & { unevaluable?: ErrorInfo };

/** A check that could not be evaluated: failed in the list, the attempt's error. */
function unevaluable(base: Omit<EvalCheckResult, 'passed' | 'message'>, error: ErrorInfo): ScoredCheck {
  return { ...base, passed: false, message: error.message, unevaluable: error };
}

/** A call of a registry tool, or of a name no tool has: what counts as choosing a tool. */
export function isChoice(c: EvalCall): boolean {
  return c.kind === 'tool' || c.kind === 'unknown';
}

/** How a call is named in messages and in "chosen instead": bundle/slug, or the name the model made up. */
export function choiceName(c: EvalCall): string {
  return c.tool ? c.tool.replace(/@[^@]*$/, '') : c.name;
}

export function scoreChoice(c: EvalCase, calls: readonly EvalCall[], ctx: ScoreContext): ScoredCheck[] {
  const chosen = calls.filter(isChoice);
  const names = [...new Set(chosen.map(choiceName))];
  if (c.expect.kind === 'none') {
    return [
      chosen.length === 0
        ? { part: 'tool', passed: true, message: 'called no tool, as expected' }
        : { part: 'tool', passed: false, message: `expected no tool call; the model called ${names.join(', ')}` },
    ];
  }
  const out: ScoredCheck[] = [];
  const expectedKeys = new Set<string>();
  for (const want of c.expect.tools) {
    const key = ctx.keyOf(want.tool);
    expectedKeys.add(key);
    const label = ctx.labelOf(want.tool);
    const mine = chosen.filter((x) => x.bundleId !== undefined && x.slug !== undefined && toolKeyOf(x.bundleId, x.slug) === key);
    if (mine.length === 0) {
      out.push({ part: 'tool', tool: label, passed: false, message: `expected a call of ${label}; ${names.length ? `the model called ${names.join(', ')}` : 'the model called no tool'}` });
      continue;
    }
    out.push({ part: 'tool', tool: label, passed: true, message: `called ${label}${mine.length > 1 ? ` (${mine.length} times)` : ''}` });
    if (want.args.length === 0) continue;
    // The first call that passes every check; else the model's last try (after any error it was told).
    const tried = mine.map((call) => want.args.map((a) => scoreArg(a, call, ctx, label)));
    const good = tried.find((checks) => checks.every((x) => x.passed));
    out.push(...(good ?? tried[tried.length - 1]!));
  }
  if (!c.expect.allowOthers) {
    const others = [...new Set(chosen.filter((x) => !(x.bundleId !== undefined && x.slug !== undefined && expectedKeys.has(toolKeyOf(x.bundleId, x.slug)))).map(choiceName))];
    if (others.length) out.push({ part: 'tool', passed: false, message: `called ${others.join(', ')} too, which the case does not expect` });
  }
  return out;
}

function scoreArg(a: EvalArgCheck, call: EvalCall, ctx: ScoreContext, label: string): ScoredCheck {
  const base = { part: 'args' as const, tool: label, check: a };
  const args = call.args;
  if (!isObject(args)) {
    return { ...base, passed: false, message: `the arguments are not a JSON object: ${preview(args)}` };
  }
  switch (a.kind) {
    case 'schema': {
      const what = a.schema ? 'the schema' : `${label}'s argSchema`;
      let issues: readonly SchemaIssueInfo[];
      try {
        issues = ctx.argIssues(call, a.schema);
      } catch (e) {
        const info = toErrorInfo(e, 'evals.run');
        return unevaluable(base, { ...info, message: `the arguments could not be checked against ${what}: ${info.message}` });
      }
      return issues.length === 0
        ? { ...base, passed: true, message: `the arguments match ${what}` }
        : { ...base, passed: false, message: `the arguments do not match ${what}: ${issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`).join('; ')}` };
    }
    case 'contains': {
      const text = JSON.stringify(args) ?? '';
      const found = a.ignoreCase ? text.toLowerCase().includes(a.text.toLowerCase()) : text.includes(a.text);
      return found ? { ...base, passed: true, message: `the arguments contain ${quote(a.text)}` } : { ...base, passed: false, message: `expected the arguments to contain ${quote(a.text)}: ${preview(args)}` };
    }
    case 'jsonPathEquals': {
      let found: unknown[];
      try {
        found = selectJsonPath(a.path, args);
      } catch (e) {
        return unevaluable(base, { code: 'VALIDATION_FAILED', message: `the JSONPath ${quote(a.path)} cannot be evaluated: ${(e as Error).message}; correct the check` });
      }
      if (found.length === 0) return { ...base, passed: false, message: `expected ${a.path} to equal ${preview(a.value)}; the arguments have nothing there: ${preview(args)}`, ...compared(a.value, undefined) };
      return jsonEqual(found[0], a.value)
        ? { ...base, passed: true, message: `${a.path} equals ${preview(a.value)}` }
        : { ...base, passed: false, message: `expected ${a.path} to equal ${preview(a.value)}, got ${preview(found[0])}`, ...compared(a.value, found[0]) };
    }
  }
}

/** The answer checks other than the judge's. */
export function scoreAnswer(checks: readonly EvalAnswerCheck[], answer: string): ScoredCheck[] {
  const out: ScoredCheck[] = [];
  for (const a of checks) {
    if (a.kind === 'contains') {
      const found = a.ignoreCase ? answer.toLowerCase().includes(a.text.toLowerCase()) : answer.includes(a.text);
      out.push({ part: 'answer', check: a, passed: found, message: found ? `the answer contains ${quote(a.text)}` : `expected the answer to contain ${quote(a.text)}: ${answerPreview(answer)}` });
    } else if (a.kind === 'regex') {
      out.push(regexVerdict(a, answer));
    }
  }
  return out;
}

/**
 * A pattern tested in linear time where RE2 can express it (in any case too, with (?i)), else on
 * the bounded path (lib/schema-regexp.ts): one that runs out of time there, or whose worker
 * fails, could not be tested.
 */
function regexVerdict(a: Extract<EvalAnswerCheck, { kind: 'regex' }>, answer: string): ScoredCheck {
  const base = { part: 'answer' as const, check: a };
  const shown = `/${a.pattern}/${a.ignoreCase ? 'i' : ''}`;
  try {
    const hit = withPatternBudget(() => schemaPattern(a.pattern, a.ignoreCase ? 'ui' : 'u').test(answer));
    return hit ? { ...base, passed: true, message: `the answer matches ${shown}` } : { ...base, passed: false, message: `expected the answer to match ${shown}: ${answerPreview(answer)}` };
  } catch (e) {
    if (e instanceof SchemaPatternError && e.code === 'TIMEOUT') {
      return unevaluable(base, {
        code: 'TIMEOUT',
        message: e.ranOut
          ? `the answer check's pattern ${shown} was stopped after ${SLOW_PATTERN_BUDGET_MS} ms on a ${answer.length}-character answer: it probably backtracks catastrophically (a lookahead or backreference around nested quantifiers such as (a+)+); simplify the answer check's pattern`
          : `the answer check's pattern ${shown} was not tested: patterns that need JavaScript's engine (lookaround, backreferences) already took their share of time this second; run the case again, or write the pattern without them`,
      });
    }
    const why = e instanceof SchemaPatternError ? e.message.replace(/^.*could not be checked: /, '') : (e as Error).message;
    return unevaluable(base, { code: isAppError(e) ? e.code : 'INTERNAL', message: `the answer check's pattern ${shown} could not be tested: ${why}` });
  }
}

function answerPreview(answer: string): string {
  if (!answer.trim()) return 'the model gave no answer';
  const line = answer.replace(/\s+/g, ' ').trim();
  return `it said ${quote(line.length > 160 ? `${line.slice(0, 160)}…` : line)}`;
}

function isObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Both values of a failed comparison, when each is small enough to carry. */
function compared(expected: unknown, actual: unknown): { compared?: { expected: unknown; actual: unknown } } {
  const fits = (v: unknown) => {
    try {
      return (JSON.stringify(v) ?? '').length <= MAX_COMPARED_CHARS;
    } catch {
      return false;
    }
  };
  return fits(expected) && fits(actual) ? { compared: { expected, actual } } : {};
}
