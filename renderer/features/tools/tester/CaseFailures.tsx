/**
 * What failed in a test case: each failed assertion's message and, where the check compared
 * two values (a JSONPath equals), the expected and the actual value as a diff. Used by the
 * tester's 'Run all' summary and by the test report of a suite.
 */
import type { AssertionResult } from '../../../../shared/model/testcase';
import { DiffView } from '../../../components/DiffView';
import { jsonDiff } from '../../../components/diff-lines';
import { suiteStrings as s } from '../../../i18n/suite-strings';

export function CaseFailures({ assertions }: { assertions: readonly AssertionResult[] }) {
  const failed = assertions.filter((a) => !a.passed);
  if (failed.length === 0) return null;
  return (
    <ul className="failed-assertions" data-testid="case-failures">
      {failed.map((a, i) => (
        <li key={i}>
          <span data-testid="case-failure-message">{a.message}</span>
          {a.compared && <ComparedDiff assertion={a} />}
        </li>
      ))}
    </ul>
  );
}

function ComparedDiff({ assertion }: { assertion: AssertionResult }) {
  const compared = assertion.compared!;
  const path = assertion.assertion.kind === 'jsonPathEquals' ? assertion.assertion.path : '$';
  const d = jsonDiff(compared.expected, compared.actual, { before: s.diff.expected, after: s.diff.actual });
  if (d.kind === 'same') return <p className="muted small">{s.diff.same}</p>;
  if (d.kind === 'too-large') return <p className="muted small">{s.diff.tooLarge}</p>;
  return (
    <div className="case-diff">
      <p className="muted small" aria-hidden="true">
        {s.diff.legend}
      </p>
      <DiffView lines={d.lines} label={s.diff.label(path)} testId="case-diff" />
    </div>
  );
}
