/**
 * Two sides compared ('evals.compare'): this run and the last, model A and B of one run, or a
 * run before and after a tool's description changed. The pass rates, what changed case by case
 * (fixed, broke, better, worse…), and each tool the model saw differently, its description as a
 * diff (v1 against v2).
 */
import { useEffect, useId, useRef } from 'react';
import type { EvalComparison, EvalToolChange } from '../../../../shared/model/evals';
import { DiffView } from '../../../components/DiffView';
import { jsonDiff, textDiff } from '../../../components/diff-lines';
import { evalsStrings } from '../../../i18n/evals-strings';
import { formatRate } from './eval-report';

const s = evalsStrings.compare;

const CHANGE_CLASS: Record<EvalComparison['cases'][number]['change'], string> = {
  fixed: 'badge ok',
  better: 'badge ok',
  broke: 'badge danger',
  worse: 'badge danger',
  same: 'badge',
  new: 'badge',
  gone: 'badge',
};

export interface EvalCompareViewProps {
  comparison: EvalComparison;
  /** A model's label by its key. */
  labelOf: (key: string) => string;
  onBack: () => void;
}

export function EvalCompareView({ comparison: c, labelOf, onBack }: EvalCompareViewProps) {
  const titleId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const side = (x: EvalComparison['base']) => s.side(new Date(x.startedAt).toLocaleString(), x.model ? labelOf(x.model) : undefined);
  // Model A against model B: a row's two sides name different models (a new or gone case names one side only).
  const byModel = c.cases.some((x) => x.baseModel !== undefined && x.headModel !== undefined && x.baseModel !== x.headModel);
  return (
    <section className="eval-compare" aria-labelledby={titleId} data-testid="eval-compare">
      <div className="eval-report-head">
        <h3 id={titleId} ref={headingRef} tabIndex={-1}>
          {s.title}
        </h3>
        <button type="button" data-testid="eval-compare-back" onClick={onBack}>
          {s.back}
        </button>
      </div>
      <p className="muted">{s.sides(side(c.base), side(c.head))}</p>
      <p role="status" className="eval-summary" data-testid="eval-compare-summary">
        <strong>{s.passRate(formatRate(c.passRate.base), formatRate(c.passRate.head))}</strong> · {s.counts(c.counts)}
      </p>
      <div className="eval-table-wrap" role="region" aria-label={s.table} tabIndex={0}>
        <table className="eval-table">
          <caption className="visually-hidden">{s.table}</caption>
          <thead>
            <tr>
              <th scope="col">{s.caseColumn}</th>
              {!byModel && <th scope="col">{s.modelColumn}</th>}
              <th scope="col">{s.before}</th>
              <th scope="col">{s.after}</th>
              <th scope="col">{s.changeColumn}</th>
            </tr>
          </thead>
          <tbody>
            {c.cases.map((x) => (
              <tr key={`${x.bundleId}\u0000${x.caseId}\u0000${x.baseModel ?? ''}\u0000${x.headModel ?? ''}`} data-testid="eval-compare-case" data-case={x.name} data-change={x.change}>
                <th scope="row">{x.name}</th>
                {!byModel && <td>{labelOf(x.headModel ?? x.baseModel ?? '')}</td>}
                <td>{x.base ? `${formatRate(x.base.passRate)}${x.base.flaky ? ` (${evalsStrings.report.flaky})` : ''}` : '—'}</td>
                <td>{x.head ? `${formatRate(x.head.passRate)}${x.head.flaky ? ` (${evalsStrings.report.flaky})` : ''}` : '—'}</td>
                <td>
                  <span className={CHANGE_CLASS[x.change]}>{s.changes[x.change]}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="eval-compare-tools">
        <p className="eval-sub">{s.tools}</p>
        {c.tools.length === 0 ? <p className="muted">{s.toolsNone}</p> : c.tools.map((t) => <ToolChange key={t.tool} change={t} />)}
      </div>
    </section>
  );
}

function ToolChange({ change: t }: { change: EvalToolChange }) {
  const names = { before: s.beforeName, after: s.afterName };
  const description = t.descriptionChanged ? textDiff(`${t.base.description}\n`, `${t.head.description}\n`, names) : [];
  const params = t.parametersChanged ? jsonDiff(t.base.parameters, t.head.parameters, names) : undefined;
  return (
    <div className="eval-tool-change" data-testid="eval-tool-change" data-tool={t.tool}>
      <p>
        <code>{t.tool}</code> <span className="muted small">{s.description(t.base.version, t.head.version)}</span>
      </p>
      {t.descriptionChanged ? <DiffView lines={description} label={s.diffLabel(t.tool)} testId="eval-description-diff" /> : <p className="muted small">{s.descriptionSame}</p>}
      {params?.kind === 'diff' && (
        <>
          <p className="muted small">{s.parameters}</p>
          <DiffView lines={params.lines} label={s.paramsLabel(t.tool)} />
        </>
      )}
    </div>
  );
}
