/**
 * What an attempt stores of what it saw, so a run stays a file that can be written and read
 * whole (5000 attempts at most). Checks are scored on whole values first (./score.ts); only
 * then is the attempt cut for storing:
 *
 * - at most MAX_CALLS_KEPT calls; each call's arguments whole up to MAX_ARGS_CHARS of JSON,
 *   past it the start of their text ending in '…'; the answer up to MAX_ANSWER_CHARS, then '…';
 * - a run keeps RUN_RECORD_CHARS of attempts as JSON, no one attempt more than
 *   ATTEMPT_RECORD_CHARS: one past what is left is stored slim (SLIM), which keeps the outcome,
 *   the error, the failed checks first, the steps and the figures, and less of the rest.
 */
import type { EvalAttempt, EvalCall, EvalCheckResult } from '../../../shared/model/evals';

export const MAX_CALLS_KEPT = 100;
export const MAX_ARGS_CHARS = 64 * 1024;
export const MAX_ANSWER_CHARS = 16 * 1024;
/** The most one attempt stores, as JSON text. */
export const ATTEMPT_RECORD_CHARS = 256 * 1024;
/** What a run stores of its attempts at full size, as JSON text; past it, attempts are stored slim. */
export const RUN_RECORD_CHARS = 32 * 1024 * 1024;

interface Limits {
  calls: number;
  args: number;
  answer: number;
  /** Checks kept (the failed ones first); a check's message cut past `message`. */
  checks: number;
  message: number;
  /** A check whose case part is larger than this (as JSON) is stored without it; its message stands. */
  check: number;
  compared: boolean;
}

const FULL: Limits = { calls: MAX_CALLS_KEPT, args: MAX_ARGS_CHARS, answer: MAX_ANSWER_CHARS, checks: Infinity, message: Infinity, check: Infinity, compared: true };
/** An attempt past the budget: a few kilobytes, whatever the case. */
const SLIM: Limits = { calls: 10, args: 256, answer: 1024, checks: 20, message: 300, check: 256, compared: false };

/** A run's budget of stored attempts (one per run). */
export class RecordBudget {
  private left: number;

  constructor(total = RUN_RECORD_CHARS) {
    this.left = total;
  }

  /** The attempt as stored: cut to the limits, slim when it would pass what is left (or ATTEMPT_RECORD_CHARS). */
  keep(a: EvalAttempt): EvalAttempt {
    // Once the run's budget is spent, every attempt is slim (no need to measure it whole).
    let kept = cut(a, this.left > 0 ? FULL : SLIM);
    let size = sizeOf(kept);
    if (this.left > 0 && size > Math.min(ATTEMPT_RECORD_CHARS, this.left)) {
      kept = cut(a, SLIM);
      size = sizeOf(kept);
    }
    this.left = Math.max(0, this.left - size);
    return kept;
  }
}

function cut(a: EvalAttempt, l: Limits): EvalAttempt {
  const failedFirst = [...a.checks.entries()].sort(([i, x], [j, y]) => Number(x.passed) - Number(y.passed) || i - j);
  const checks = (l.checks < a.checks.length ? failedFirst.slice(0, l.checks).sort(([i], [j]) => i - j) : [...a.checks.entries()]).map(([, c]) => cutCheck(c, l));
  return {
    ...a,
    checks,
    calls: a.calls.slice(0, l.calls).map((c) => cutCall(c, l.args)),
    answer: cutText(a.answer, l.answer),
    ...(a.error ? { error: { ...a.error, message: cutText(a.error.message, Math.max(l.message, 2000)) } } : {}),
  };
}

function cutCheck(c: EvalCheckResult, l: Limits): EvalCheckResult {
  const { compared, check, ...rest } = c;
  return {
    ...rest,
    message: cutText(c.message, l.message),
    ...(check && sizeOf(check) <= l.check ? { check } : {}),
    ...(compared && l.compared ? { compared } : {}),
  };
}

function cutCall(c: EvalCall, max: number): EvalCall {
  return { ...c, args: keptArgs(c.args, max), ...(c.error ? { error: { ...c.error, message: cutText(c.error.message, 2000) } } : {}) };
}

/** Arguments kept whole up to `max` characters of JSON; past it, the start of their text. */
function keptArgs(args: unknown, max: number): unknown {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    return cutText(String(args), max);
  }
  return text.length <= max ? args : `${text.slice(0, max)}…`;
}

function cutText(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function sizeOf(v: unknown): number {
  try {
    return (JSON.stringify(v) ?? '').length;
  } catch {
    return Infinity;
  }
}
