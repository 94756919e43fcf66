/**
 * The Saved runs tab: the runs that asked this bundle's cases, newest first, each opened as its
 * report, compared with the run before it, or deleted; and any two compared (a description v1
 * against v2: run, edit the description, run again, compare).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import type { EvalCase, EvalRunSummary } from '../../../../shared/model/evals';
import { useOp, useOpMutation } from '../../../api/hooks';
import { FieldError } from '../../../components/Field';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { QueryError } from '../../../components/QueryError';
import { evalsStrings } from '../../../i18n/evals-strings';
import { BusyButton } from '../BusyButton';
import { EvalCompareView } from './EvalCompareView';
import { EvalReport, type OpenTool } from './EvalReport';
import { useComparison } from './EvalRunPanel';
import { labelOfKey } from './ModelSelect';

const s = evalsStrings.runs;

export interface EvalRunsListProps {
  bundleId: string;
  bundleSlug: string;
  cases: readonly EvalCase[];
  onOpenTool: OpenTool;
}

const when = (r: { startedAt: string }) => new Date(r.startedAt).toLocaleString();

export function EvalRunsList({ bundleId, bundleSlug, cases, onOpenTool }: EvalRunsListProps) {
  const uid = useId();
  const qc = useQueryClient();
  const runs = useOp('evals.listRuns', { limit: 200 }, { staleTime: 0, refetchOnMount: 'always' });
  const providers = useOp('providers.list', {});
  const remove = useOpMutation('evals.deleteRun');
  const comparison = useComparison();
  const [open, setOpen] = useState<string | null>(null);
  // Where the focus goes back to when a saved run, a comparison or a deleted row goes away:
  // the run's own Open button, else the list.
  const listRef = useRef<HTMLDivElement>(null);
  const [returnTo, setReturnTo] = useState<{ runId?: string } | null>(null);
  const mine = (runs.data ?? []).filter((r) => r.bundles.some((b) => b.bundleId === bundleId));
  const [before, setBefore] = useState('');
  const [after, setAfter] = useState('');
  const labelOf = (key: string) => labelOfKey(providers.data ?? [], key);

  const shown = comparison.shown !== null || open !== null;
  useEffect(() => {
    if (shown || !returnTo) return;
    const own = returnTo.runId ? listRef.current?.querySelector<HTMLElement>(`[data-run-id="${CSS.escape(returnTo.runId)}"] [data-testid="eval-run-open"]`) : null;
    (own ?? listRef.current)?.focus();
    setReturnTo(null);
  }, [shown, returnTo, runs.data]);

  if (comparison.shown)
    return (
      <EvalCompareView
        comparison={comparison.shown}
        labelOf={labelOf}
        onBack={() => {
          setReturnTo({});
          comparison.back();
        }}
      />
    );
  if (open)
    return (
      <SavedRun
        runId={open}
        bundleId={bundleId}
        bundleSlug={bundleSlug}
        cases={cases}
        onOpenTool={onOpenTool}
        onBack={() => {
          setReturnTo({ runId: open });
          setOpen(null);
        }}
      />
    );

  const del = (r: EvalRunSummary) =>
    remove.mutate(
      { runId: r.id },
      {
        onSettled: () => {
          setReturnTo({});
          void qc.invalidateQueries({ queryKey: ['evals.listRuns'] });
        },
      },
    );

  const beforeId = before || mine[1]?.id || '';
  const afterId = after || mine[0]?.id || '';

  return (
    <div className="eval-runs" data-testid="eval-runs" ref={listRef} tabIndex={-1} aria-label={s.listLabel}>
      {runs.isPending && <p className="muted">{s.loading}</p>}
      {runs.error && <QueryError error={runs.error} onRetry={() => void runs.refetch()} />}
      {runs.data && mine.length === 0 && <p className="muted">{s.empty}</p>}
      {(comparison.error ?? remove.error) && (
        <FieldError role="alert" data-testid="eval-compare-error">
          {(comparison.error ?? remove.error)!.message}
        </FieldError>
      )}
      {mine.length > 1 && (
        <fieldset className="eval-compare-two">
          <legend>{evalsStrings.compare.title}</legend>
          <div className="eval-pair">
            <div>
              <label htmlFor={`${uid}-before`}>{evalsStrings.compare.before}</label>
              <select id={`${uid}-before`} data-testid="eval-compare-before" value={beforeId} onChange={(e) => setBefore(e.target.value)}>
                {mine.map((r) => (
                  <option key={r.id} value={r.id}>
                    {when(r)}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor={`${uid}-after`}>{evalsStrings.compare.after}</label>
              <select id={`${uid}-after`} data-testid="eval-compare-after" value={afterId} onChange={(e) => setAfter(e.target.value)}>
                {mine.map((r) => (
                  <option key={r.id} value={r.id}>
                    {when(r)}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <BusyButton data-testid="eval-compare-two" unavailable={!beforeId || !afterId || beforeId === afterId || comparison.pending} onClick={() => comparison.ask({ base: { runId: beforeId }, head: { runId: afterId } })}>
            {evalsStrings.report.compare}
          </BusyButton>
        </fieldset>
      )}
      <ul className="eval-run-list">
        {mine.map((r, i) => (
          <li key={r.id} className="eval-run-row" data-testid="eval-run-row" data-run-id={r.id}>
            <div className="eval-case-main">
              <strong>{when(r)}</strong>
              {r.status === 'cancelled' && <span className="badge">{s.cancelled}</span>}
              <span className="muted">{s.line(r.cases, r.models.map((m) => m.label), r.repeat)}</span>
              <span className={r.totals.failed || r.totals.errors ? 'badge danger' : r.totals.notRun ? 'badge' : 'badge ok'}>{s.totals(r.totals.passed, r.totals.failed + r.totals.errors, r.totals.flaky, r.totals.notRun)}</span>
            </div>
            <div className="eval-case-actions">
              <button type="button" data-testid="eval-run-open" aria-label={s.openLabel(when(r))} onClick={() => setOpen(r.id)}>
                {s.open}
              </button>
              {i < mine.length - 1 && (
                <button type="button" data-testid="eval-run-compare-last" aria-label={s.compareLastLabel(when(r))} onClick={() => comparison.ask({ head: { runId: r.id } })}>
                  {s.compareLast}
                </button>
              )}
              <ConfirmButton
                data-testid="eval-run-delete"
                aria-label={s.deleteLabel(when(r))}
                pending={remove.isPending}
                question={s.confirmDelete(when(r))}
                confirmLabel={s.delete}
                onConfirm={() => del(r)}
              >
                {s.delete}
              </ConfirmButton>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

function SavedRun({ runId, bundleId, bundleSlug, cases, onOpenTool, onBack }: { runId: string; bundleId: string; bundleSlug: string; cases: readonly EvalCase[]; onOpenTool: OpenTool; onBack: () => void }) {
  const q = useOp('evals.getRun', { runId });
  const comparison = useComparison();
  const run = q.data;
  const labelOf = (key: string) => run?.models.find((m) => m.key === key)?.label ?? key;
  return (
    <div className="eval-saved-run" data-testid="eval-saved-run">
      <button type="button" data-testid="eval-run-back" onClick={onBack}>
        {s.back}
      </button>
      {q.error && <QueryError error={q.error} onRetry={() => void q.refetch()} />}
      {comparison.error && (
        <FieldError role="alert" data-testid="eval-compare-error">
          {comparison.error.message}
        </FieldError>
      )}
      {run && comparison.shown && <EvalCompareView comparison={comparison.shown} labelOf={labelOf} onBack={comparison.back} />}
      {run && !comparison.shown && (
        <EvalReport
          models={run.models.map((m) => ({ key: m.key, label: m.label }))}
          cases={run.cases.map((c) => ({ caseId: c.case.id, bundleId: c.bundleId, name: c.case.name }))}
          results={run.results}
          run={run}
          caseOf={(caseId, b) => {
            const copy = run.cases.find((c) => c.case.id === caseId && c.bundleId === b);
            if (copy) return { evalCase: copy.case, bundleSlug: copy.bundleSlug };
            const c = b === bundleId ? cases.find((x) => x.id === caseId) : undefined;
            return c ? { evalCase: c, bundleSlug } : undefined;
          }}
          onOpenTool={onOpenTool}
          onCompare={comparison.ask}
        />
      )}
    </div>
  );
}
