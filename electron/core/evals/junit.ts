/**
 * An eval run as JUnit XML, written as `toolsmith test` writes its suites (testcases/junit.ts):
 * one <testsuite> per model, one <testcase> per case (classname: the bundle's slug). A case below
 * the run's pass rate is a <failure> (its message names the first failed check and the rate; the
 * body has every attempt's checks); a case that could not be judged (the provider failed, the time
 * ran out, the case cannot run) is an <error> with its code; one the cancelled run never reached
 * is an <error> of type "cancelled", as in `toolsmith test`. The output is valid against the
 * Jenkins JUnit schema (jenkins-junit.xsd).
 */
import type { EvalAttempt, EvalCaseResult, EvalRun } from '../../../shared/model/evals';
import { junitTimestamp, xmlText } from '../testcases/junit';

const seconds = (ms: number) => (ms / 1000).toFixed(3);

export function evalRunToJUnit(run: EvalRun): string {
  const attrs = (o: Record<string, string | number>) =>
    Object.entries(o)
      .map(([k, v]) => ` ${k}="${xmlText(String(v))}"`)
      .join('');
  const bundleSlug = new Map(run.cases.map((c) => [`${c.bundleId}\u0000${c.case.id}`, c.bundleSlug]));
  const count = (rs: readonly EvalCaseResult[]) => ({
    tests: rs.length,
    failures: rs.filter((r) => r.verdict === 'fail').length,
    errors: rs.filter((r) => r.verdict === 'error' || r.verdict === 'not-run').length,
    skipped: 0,
  });
  const timestamp = junitTimestamp(run.startedAt);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  // The Jenkins JUnit schema CI tools read allows no `skipped` or `timestamp` on <testsuites> (each <testsuite> has them).
  const { skipped: _skipped, ...all } = count(run.results);
  lines.push(`<testsuites${attrs({ name: 'toolsmith eval', ...all, time: seconds(run.durationMs) })}>`);
  for (const m of run.models) {
    const rs = run.results.filter((r) => r.model === m.key);
    const time = rs.reduce((t, r) => t + r.attempts.reduce((u, a) => u + a.durationMs, 0), 0);
    lines.push(`  <testsuite${attrs({ name: m.label, ...count(rs), time: seconds(time), timestamp })}>`);
    for (const r of rs) lines.push(...testCase(r, bundleSlug.get(`${r.bundleId}\u0000${r.caseId}`) ?? r.bundleId));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n') + '\n';
}

function testCase(r: EvalCaseResult, bundleSlug: string): string[] {
  const time = r.attempts.reduce((t, a) => t + a.durationMs, 0);
  const open = `    <testcase name="${xmlText(r.name)}" classname="${xmlText(bundleSlug)}" time="${seconds(time)}"`;
  if (r.verdict === 'pass') return [`${open}/>`];
  if (r.verdict === 'not-run') return [`${open}>`, '      <error message="not run: the eval run was cancelled" type="cancelled"/>', '    </testcase>'];
  const body = r.attempts.map(attemptText).join('\n');
  if (r.verdict === 'error') {
    const err = r.attempts.find((a) => a.outcome === 'error')?.error;
    return [`${open}>`, `      <error message="${xmlText(err?.message ?? 'the case could not be judged')}" type="${xmlText(err?.code ?? 'INTERNAL')}">${xmlText(body)}</error>`, '    </testcase>'];
  }
  const firstFailed = r.attempts.flatMap((a) => a.checks).find((c) => !c.passed);
  const rate = `${r.passed} of ${r.passed + r.failed} attempts passed${r.flaky ? ' (flaky)' : ''}`;
  const message = firstFailed ? `${firstFailed.message} (${rate})` : rate;
  return [`${open}>`, `      <failure message="${xmlText(message)}" type="eval">${xmlText(body)}</failure>`, '    </testcase>'];
}

function attemptText(a: EvalAttempt): string {
  const head = `attempt ${a.n}: ${a.outcome.toUpperCase()}${a.error ? ` (${a.error.code}: ${a.error.message})` : ''}`;
  const checks = a.checks.map((c) => `  ${c.passed ? 'ok  ' : 'FAIL'} ${c.part}${c.check ? ` ${c.check.kind}` : ''}: ${c.message}`);
  return [head, ...checks].join('\n');
}
