/**
 * A suite's result as JUnit XML, the report CI systems read (GitHub Actions' test reporters,
 * GitLab's `artifacts:reports:junit`, Jenkins): one <testsuite> per tool (bundle/slug@version),
 * one <testcase> per saved case, its failed assertions in <failure>, a case that could not run
 * in <skipped>, a case a cancelled run never reached in <error> (it did not fail: it was not
 * run, and the run does not pass), and a case whose tool could not be reached (connection
 * refused, no answer) in <error> too: an infrastructure error, not a failed check. Times are in seconds; timestamps are ISO 8601
 * without a zone or fraction, as the JUnit schema's xs:dateTime pattern asks (in UTC).
 */
import type { TestCaseResult } from '../../../shared/model/testcase';
import type { SuiteResult, SuiteToolResult } from './run-suite';

/** Text as XML character data or an attribute value: escaped, and without the characters XML 1.0 cannot hold. */
export function xmlText(s: string): string {
  return (
    s
      // Control characters other than tab and newlines, lone surrogates, U+FFFE and U+FFFF are not XML characters.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      // Kept as written in attributes too (a raw newline there would be read as a space).
      .replace(/\r/g, '&#13;')
      .replace(/\n/g, '&#10;')
      .replace(/\t/g, '&#9;')
  );
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** `2026-11-24T15:46:03` (UTC) from an ISO time such as `2026-11-24T15:46:03.120Z`. */
export function junitTimestamp(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 19);
}

/** The tool's name in the report: bundle/slug@version (bundle/slug when it did not run). */
export function suiteName(t: Pick<SuiteToolResult, 'bundleSlug' | 'slug' | 'version'>): string {
  return `${t.bundleSlug}/${t.slug}${t.version ? `@${t.version}` : ''}`;
}

export function suiteToJUnit(suite: SuiteResult): string {
  const attrs = (o: Record<string, string | number>) =>
    Object.entries(o)
      .map(([k, v]) => ` ${k}="${xmlText(String(v))}"`)
      .join('');
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(
    `<testsuites${attrs({ name: 'toolsmith', tests: suite.passed + suite.failed + suite.skipped, failures: suite.failed - errorsIn(suite.tools), errors: errorsIn(suite.tools), skipped: suite.skipped, time: seconds(suite.durationMs), timestamp: junitTimestamp(suite.startedAt) })}>`,
  );
  for (const t of suite.tools) {
    const skipped = t.skipped ? t.results.length : 0;
    const errors = t.skipped ? 0 : errorsIn([t]);
    lines.push(
      `  <testsuite${attrs({ name: suiteName(t), tests: t.results.length, failures: t.failed - errors, errors, skipped, time: seconds(t.durationMs), timestamp: junitTimestamp(suite.startedAt) })}>`,
    );
    for (const r of t.results) lines.push(...testCase(t, r));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n') + '\n';
}

function testCase(t: SuiteToolResult, r: TestCaseResult): string[] {
  const open = `    <testcase name="${xmlText(r.name)}" classname="${xmlText(`${t.bundleSlug}.${t.slug}`)}" time="${seconds(r.durationMs)}"`;
  if (t.skipped) return [`${open}>`, `      <skipped message="${xmlText(t.skipped)}"/>`, '    </testcase>'];
  if (r.passed) return [`${open}/>`];
  if (r.cancelled) return [`${open}>`, `      <error message="not run: the test run was cancelled" type="cancelled"/>`, '    </testcase>'];
  if (r.unreachable) {
    const { code, message } = r.unreachable;
    return [`${open}>`, `      <error message="${xmlText(`the tool could not be reached: ${message}`)}" type="${xmlText(code)}"/>`, '    </testcase>'];
  }
  const failed = r.assertions.filter((a) => !a.passed);
  const message = failed[0]?.message ?? 'failed';
  const body = r.assertions.map((a) => `${a.passed ? 'ok  ' : 'FAIL'} ${a.assertion.kind}: ${a.message}`).join('\n');
  return [`${open}>`, `      <failure message="${xmlText(message)}" type="assertion">${xmlText(body)}</failure>`, '    </testcase>'];
}

/** Cases reported as <error>: a cancelled run never reached them, or their tool could not be reached (in tools that ran). */
function errorsIn(tools: readonly SuiteToolResult[]): number {
  let n = 0;
  for (const t of tools) if (!t.skipped) for (const r of t.results) if (r.cancelled || (r.unreachable && !r.passed)) n++;
  return n;
}
