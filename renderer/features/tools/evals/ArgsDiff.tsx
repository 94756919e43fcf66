/**
 * The arguments a model gave an expected tool against what the case expects, as a diff: each
 * value a JSONPath-equals check names is laid over the model's arguments (eval-report.ts
 * `expectedArgs`), so only the values it got wrong show as changed lines. When the model called
 * another tool instead, that call's arguments are shown against the expected values. Checks that
 * cannot be drawn this way (text, schema) are listed under it.
 */
import type { EvalArgCheck } from '../../../../shared/model/evals';
import { DiffView } from '../../../components/DiffView';
import { jsonDiff } from '../../../components/diff-lines';
import { evalsStrings } from '../../../i18n/evals-strings';
import type { ArgsComparison } from './eval-report';

const s = evalsStrings.args;
const k = evalsStrings.editor.argKinds;

/** A check of the arguments in a few words. */
export function describeArgCheck(c: EvalArgCheck): string {
  switch (c.kind) {
    case 'jsonPathEquals': {
      const v = JSON.stringify(c.value) ?? '';
      return `${c.path} = ${v.length > 60 ? `${v.slice(0, 60)}…` : v}`;
    }
    case 'contains':
      return `${k.contains}: “${c.text.length > 60 ? `${c.text.slice(0, 60)}…` : c.text}”`;
    case 'schema':
      return k.schema;
  }
}

export function ArgsDiff({ comparison: c }: { comparison: ArgsComparison }) {
  const wrong = c.calledAs !== undefined && c.calledAs !== c.tool;
  const heading = wrong ? s.wrongTool(c.tool, c.calledAs!) : s.title(c.tool);
  const d = c.call ? jsonDiff(c.expected, c.call.args, { before: s.expected, after: s.actual }) : undefined;
  return (
    <div className="eval-args" data-testid="eval-args-diff" data-tool={c.tool} data-called={c.calledAs ?? ''} data-passed={c.passed}>
      <p className="eval-args-title">{heading}</p>
      {!c.call && <p className="muted">{s.noCall(c.tool)}</p>}
      {d?.kind === 'same' && <p className="muted">{s.same}</p>}
      {d?.kind === 'too-large' && <p className="muted">{s.tooLarge}</p>}
      {d?.kind === 'diff' && (
        <>
          <p className="muted small" aria-hidden="true">
            {s.legend}
          </p>
          <DiffView lines={d.lines} label={s.label(c.calledAs ?? c.tool)} testId="eval-args-diff-lines" />
        </>
      )}
      {c.notDrawn.length > 0 && (
        <p className="muted small">
          {s.notDrawn}{' '}
          {c.notDrawn.map((x, i) => (
            <code key={i} className="eval-check-tag">
              {describeArgCheck(x)}
            </code>
          ))}
        </p>
      )}
    </div>
  );
}
