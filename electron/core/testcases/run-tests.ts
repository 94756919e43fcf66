/**
 * Runs saved test cases one after another (so latency checks measure one call, and a
 * rate-limited API sees one request at a time) and checks each assertion against the
 * outcome, with a message a person can act on ("expected ok, got VALIDATION_FAILED: ...").
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import { JSONPath } from 'jsonpath-plus';
import { ERROR_CODES, type ErrorInfo } from '../../../shared/errors';
import type { Assertion, ComparedValues, TestCase, TestCaseResult, TestRunSummary } from '../../../shared/model/testcase';
import type { JsonSchemaObject } from '../../../shared/model/tool';
import { quote, type RuleViolation } from '../../../shared/model/validation';
import type { InvokeOutcome } from '../invoke/dispatcher';
import { describeIssues, validateWith } from '../invoke/schema-cache';
import { toErrorInfo } from '../../../shared/errors';
import { AJV_OPTIONS } from '../bundles/schema-check';

export interface RunTestsOptions {
  /** Once aborted, the cases not started yet are reported as not run. */
  signal?: AbortSignal;
  /** Told before each case runs (a suite's progress). */
  onStart?: (tc: TestCase, index: number) => void;
  /** Told each case's result as soon as it is checked. */
  onResult?: (result: TestCaseResult, index: number) => void;
}

/** Runs `cases` in order through `run` and checks their assertions. */
export async function runTestCases(
  cases: readonly TestCase[],
  run: (args: unknown) => Promise<InvokeOutcome>,
  tool: { outputSchema: JsonSchemaObject },
  options: RunTestsOptions = {},
): Promise<TestRunSummary> {
  const check = outputChecker(tool.outputSchema);
  const results: TestCaseResult[] = [];
  for (const [index, tc] of cases.entries()) {
    if (options.signal?.aborted) {
      results.push(notRun(tc));
      options.onResult?.(results[index]!, index);
      continue;
    }
    options.onStart?.(tc, index);
    const outcome = await runOne(tc, run);
    const assertions = (tc.assertions.length ? tc.assertions : [IMPLICIT_OK]).map((a) => ({ assertion: a, ...evaluate(a, outcome, check) }));
    const passed = assertions.every((a) => a.passed);
    const unreachable = !passed && !outcome.ok && !tc.assertions.some((a) => a.kind === 'error') && isUnreachable(outcome.error);
    results.push({
      testCaseId: tc.id,
      name: tc.name,
      passed,
      durationMs: outcome.durationMs,
      ...(outcome.invocationId ? { invocationId: outcome.invocationId } : {}),
      assertions,
      ...(unreachable && !outcome.ok ? { unreachable: { code: outcome.error.code, message: outcome.error.message } } : {}),
    });
    options.onResult?.(results[index]!, index);
  }
  const passed = results.filter((r) => r.passed).length;
  return { passed, failed: results.length - passed, results };
}

/**
 * The call got no answer from the tool's server at all: UNAVAILABLE or TIMEOUT without an HTTP
 * status (a status means the server answered, and the case's checks judge that answer).
 */
export function isUnreachable(e: ErrorInfo): boolean {
  if (e.code !== 'UNAVAILABLE' && e.code !== 'TIMEOUT') return false;
  const d = e.details as { status?: unknown; permanent?: unknown; reason?: unknown; cause?: unknown } | undefined;
  if (!d || typeof d !== 'object') return false;
  // The server answered (a status, bytes that do not decode, a redirect loop): the case's checks judge that.
  if (typeof d.status === 'number' || d.permanent === true || d.reason === 'too-many-redirects') return false;
  // A network failure the transport names (ECONNREFUSED, ENOTFOUND, a timeout): no answer came.
  return typeof d.cause === 'string';
}

/** A case without assertions passes when the tool answers without an error. */
const IMPLICIT_OK: Assertion = { kind: 'ok' };

async function runOne(tc: TestCase, run: (args: unknown) => Promise<InvokeOutcome>): Promise<InvokeOutcome> {
  const t0 = performance.now();
  try {
    return await run(tc.args);
  } catch (e) {
    // The dispatcher answers with outcomes; a throw here is a refusal before the call (e.g. CONFLICT).
    return { ok: false, error: toErrorInfo(e, 'testcases.runAll'), invocationId: '', durationMs: performance.now() - t0, attempts: 0 };
  }
}

function notRun(tc: TestCase): TestCaseResult {
  return {
    testCaseId: tc.id,
    name: tc.name,
    passed: false,
    durationMs: 0,
    cancelled: true,
    assertions: (tc.assertions.length ? tc.assertions : [IMPLICIT_OK]).map((a) => ({ assertion: a, passed: false, message: 'not run: the test run was cancelled' })),
  };
}

type Verdict = { passed: boolean; message: string; compared?: ComparedValues };
type OutputCheck = (value: unknown) => string | null;

/** Validates a value against the outputSchema; answers the issues as text, or null. Compiled once per run. */
function outputChecker(schema: JsonSchemaObject): OutputCheck {
  let validate: ValidateFunction | undefined;
  let compileError: string | undefined;
  return (value) => {
    if (!validate && compileError === undefined) {
      try {
        validate = new Ajv2020(AJV_OPTIONS).compile(schema);
      } catch (e) {
        compileError = (e as Error).message;
      }
    }
    if (!validate) return `the outputSchema does not compile: ${compileError}`;
    const issues = validateWith(validate, value);
    return issues.length === 0 ? null : describeIssues(issues);
  };
}

function evaluate(a: Assertion, o: InvokeOutcome, checkOutput: OutputCheck): Verdict {
  switch (a.kind) {
    case 'ok':
      return o.ok ? pass('answered ok') : fail(`expected ok, got ${describeError(o.error)}`);
    case 'error':
      if (o.ok) return fail(`expected ${a.code ? `error ${a.code}` : 'an error'}, got ok: ${preview(o.value)}`);
      if (a.code && o.error.code !== a.code) return fail(`expected error ${a.code}, got ${describeError(o.error)}`);
      return pass(`failed as expected with ${o.error.code}`);
    case 'latencyUnder': {
      const ms = Math.round(o.durationMs);
      return o.durationMs < a.ms ? pass(`took ${ms} ms (under ${a.ms} ms)`) : fail(`expected to take under ${a.ms} ms, took ${ms} ms`);
    }
    case 'matchesOutputSchema': {
      if (!o.ok) return fail(`expected a result matching the outputSchema, got ${describeError(o.error)}`);
      const issues = checkOutput(o.value);
      return issues === null ? pass('the result matches the outputSchema') : fail(`the result does not match the outputSchema: ${issues}`);
    }
    case 'contains': {
      if (!o.ok) return fail(`expected a result containing ${quote(a.text)}, got ${describeError(o.error)}`);
      // A string result is searched as itself too, so text with a newline or quote matches.
      const found = (JSON.stringify(o.value) ?? '').includes(a.text) || (typeof o.value === 'string' && o.value.includes(a.text));
      return found ? pass(`the result contains ${quote(a.text)}`) : fail(`expected the result to contain ${quote(a.text)}; it does not: ${preview(o.value)}`);
    }
    case 'jsonPathEquals': {
      if (!o.ok) return fail(`expected ${a.path} to equal ${preview(a.value)}, got ${describeError(o.error)}`);
      let matches: unknown[];
      try {
        matches = selectJsonPath(a.path, o.value);
      } catch (e) {
        return fail(`the JSONPath ${quote(a.path)} cannot be evaluated: ${(e as Error).message}`);
      }
      if (matches.length === 0) return fail(`expected ${a.path} to equal ${preview(a.value)}; it selects nothing in ${preview(o.value)}`);
      return jsonEqual(matches[0], a.value)
        ? pass(`${a.path} equals ${preview(a.value)}`)
        : { ...fail(`expected ${a.path} to equal ${preview(a.value)}, got ${preview(matches[0])}`), ...comparedValues(a.value, matches[0]) };
    }
  }
}

const pass = (message: string): Verdict => ({ passed: true, message });
const fail = (message: string): Verdict => ({ passed: false, message });

/** The largest value (as JSON text) a failed comparison carries for a diff; a larger one is left out, the message stands. */
export const MAX_COMPARED_CHARS = 64 * 1024;

/** Both values of a failed comparison, for a diff, when each is small enough to carry. */
function comparedValues(expected: unknown, actual: unknown): { compared?: ComparedValues } {
  const fits = (v: unknown) => {
    try {
      return (JSON.stringify(v) ?? '').length <= MAX_COMPARED_CHARS;
    } catch {
      return false;
    }
  };
  return fits(expected) && fits(actual) ? { compared: { expected, actual } } : {};
}

function describeError(e: ErrorInfo): string {
  return `${e.code}: ${cut(e.message, 300)}`;
}

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A value as a short line of JSON for a message. */
export function preview(v: unknown, max = 120): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  return cut(text ?? String(v), max);
}

/** The values a JSONPath selects; scripts and filters are refused (eval: false). */
export function selectJsonPath(path: string, value: unknown): unknown[] {
  if (!path.trimStart().startsWith('$')) throw new Error('a JSONPath must start with $');
  // jsonpath-plus reads a null document as "no document".
  if (value === null) return path.trim() === '$' ? [null] : [];
  const found = JSONPath({ path, json: value as object, eval: false, wrap: true }) as unknown[] | undefined;
  return found ?? [];
}

/** Deep equality of JSON values (0 equals -0; key order does not matter), without recursion. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      x.forEach((v, i) => stack.push([v, ys[i]]));
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    const keys = Object.keys(xo).filter((k) => xo[k] !== undefined);
    if (keys.length !== Object.keys(yo).filter((k) => yo[k] !== undefined).length) return false;
    for (const k of keys) {
      if (!Object.prototype.hasOwnProperty.call(yo, k)) return false;
      stack.push([xo[k], yo[k]]);
    }
  }
  return true;
}

/** Why an assertion can never be checked (checked when a case is saved), or null. */
export function assertionViolation(a: Assertion, field: string): RuleViolation | null {
  if (a.kind === 'error' && a.code !== undefined && !(ERROR_CODES as readonly string[]).includes(a.code)) {
    return { field: `${field}.code`, rule: 'error-code', message: `${quote(a.code)} is not an error code; use one of ${ERROR_CODES.join(', ')}` };
  }
  if (a.kind === 'jsonPathEquals') {
    if (a.value === undefined) return { field: `${field}.value`, rule: 'required', message: 'a JSONPath check needs the value to compare with' };
    if (!a.path.trimStart().startsWith('$')) return { field: `${field}.path`, rule: 'jsonpath', message: `the JSONPath ${quote(a.path)} must start with $` };
    try {
      selectJsonPath(a.path, {});
    } catch (e) {
      const msg = (e as Error).message;
      return {
        field: `${field}.path`,
        rule: 'jsonpath',
        message: /prevented|eval/i.test(msg)
          ? `the JSONPath ${quote(a.path)} uses a script or filter expression ([?(...)] or [(...)]), which is not supported: select by names, indexes, slices, * and ..`
          : `invalid JSONPath ${quote(a.path)}: ${msg}`,
      };
    }
  }
  return null;
}
