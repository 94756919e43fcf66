/**
 * The Run tab: the run form, then the run of this window (its progress with Cancel or Esc, and
 * its report as results come), and a comparison asked from the report in the report's place.
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { OpInput } from '../../../../shared/contract';
import type { EvalCase, EvalComparison, EvalRun } from '../../../../shared/model/evals';
import { useApi, useOp, useOpMutation } from '../../../api/hooks';
import { FieldError } from '../../../components/Field';
import { evalsStrings } from '../../../i18n/evals-strings';
import { BusyButton } from '../BusyButton';
import { liveCounts } from './eval-report';
import { useEvalRun, type EvalRunning } from './eval-run-store';
import { EvalCompareView } from './EvalCompareView';
import { EvalReport, type OpenTool } from './EvalReport';
import { EvalRunForm } from './EvalRunForm';
import { labelOfKey } from './ModelSelect';

const p = evalsStrings.progress;

export interface EvalRunPanelProps {
  bundleId: string;
  bundleSlug: string;
  cases: readonly EvalCase[];
  only?: readonly string[];
  onOpenTool: OpenTool;
}

export function EvalRunPanel({ bundleId, bundleSlug, cases, only, onOpenTool }: EvalRunPanelProps) {
  const { client } = useApi();
  const run = useEvalRun((st) => st.run);
  const mine = run && (run.bundleIds === null || run.bundleIds.includes(bundleId)) ? run : null;
  const [startedHere, setStartedHere] = useState(0);
  // A run to read folds the form away; a case's "Run…" opens it.
  const [folded, setFolded] = useState(!!mine && !only);
  return (
    <div className="eval-run-panel">
      <EvalRunForm
        key={(only ?? []).join(',')}
        bundleId={bundleId}
        cases={cases}
        {...(only ? { only } : {})}
        folded={folded && !!mine}
        onFold={setFolded}
        onStarted={() => {
          setFolded(true);
          setStartedHere((n) => n + 1);
        }}
      />
      {mine && (
        <RunView
          key={mine.runId}
          run={mine}
          bundleId={bundleId}
          bundleSlug={bundleSlug}
          cases={cases}
          onOpenTool={onOpenTool}
          focus={startedHere > 0}
          onAgain={() => {
            if (useEvalRun.getState().again(client)) setStartedHere((n) => n + 1);
          }}
        />
      )}
    </div>
  );
}

/** A comparison asked from a report, shown in its place until Back. */
export function useComparison() {
  const compare = useOpMutation('evals.compare');
  const [shown, setShown] = useState<EvalComparison | null>(null);
  return {
    shown,
    error: compare.error,
    pending: compare.isPending,
    ask: (input: OpInput<'evals.compare'>) => compare.mutate(input, { onSuccess: setShown }),
    back: () => {
      compare.reset();
      setShown(null);
    },
  };
}

function RunView({
  run,
  bundleId,
  bundleSlug,
  cases,
  onOpenTool,
  focus,
  onAgain,
}: {
  run: EvalRunning;
  bundleId: string;
  bundleSlug: string;
  cases: readonly EvalCase[];
  onOpenTool: OpenTool;
  focus: boolean;
  onAgain: () => void;
}) {
  const { client } = useApi();
  const titleId = useId();
  const statusRef = useRef<HTMLHeadingElement>(null);
  const cancel = useEvalRun((st) => st.cancel);
  const providers = useOp('providers.list', {});
  const comparison = useComparison();
  const running = run.status === 'running';
  const { done, total } = liveCounts(run.live);
  // Started from the form: the keyboard continues from the run (Esc cancels it).
  useEffect(() => {
    if (focus) statusRef.current?.focus();
  }, [focus]);

  const labelOf = (key: string) => run.result?.models.find((m) => m.key === key)?.label ?? run.models.find((m) => m.key === key && m.label !== key)?.label ?? labelOfKey(providers.data ?? [], key);
  const models = (run.result?.models ?? run.models).map((m) => ({ key: m.key, label: labelOf(m.key) }));
  const tableCases = run.result ? run.result.cases.map((c) => ({ caseId: c.case.id, bundleId: c.bundleId, name: c.case.name })) : run.cases;
  const results = run.result?.results ?? run.live.results;
  const caseOf = (caseId: string, b: string) => {
    const copy = run.result?.cases.find((c) => c.case.id === caseId && c.bundleId === b);
    if (copy) return { evalCase: copy.case, bundleSlug: copy.bundleSlug };
    const c = b === bundleId ? cases.find((x) => x.id === caseId) : undefined;
    return c ? { evalCase: c, bundleSlug } : undefined;
  };

  let status: string;
  if (running) status = total === null ? p.starting : p.status(done, total);
  else if (run.status === 'failed') status = p.failed;
  else status = p.done(attemptsRan(run.result!), run.result!.totals.attempts, evalsStrings.report.seconds(run.result!.durationMs));
  const now = run.live.current;
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && running) {
      e.preventDefault();
      void cancel(client);
    }
  };

  return (
    <section className="eval-run" aria-labelledby={titleId} data-testid="eval-run" data-status={run.status} onKeyDown={onKeyDown}>
      <div className={`eval-progress ${run.status}`}>
        <div className="eval-report-head">
          <h3 id={titleId} ref={statusRef} tabIndex={-1} className="visually-hidden">
            {evalsStrings.progress.label}
          </h3>
          <p role="status" data-testid="eval-run-status">
            {status}
          </p>
          <div className="eval-run-actions">
            <BusyButton data-testid="eval-run-cancel" aria-keyshortcuts="Escape" unavailable={!running || run.cancelling} onClick={() => void cancel(client)}>
              {run.cancelling && running ? evalsStrings.run.cancelling : evalsStrings.run.cancel}
            </BusyButton>
            {run.input && (
              <BusyButton data-testid="eval-run-again" title={evalsStrings.run.againLabel} unavailable={running} onClick={onAgain}>
                {evalsStrings.run.again}
              </BusyButton>
            )}
          </div>
        </div>
        {running && <progress data-testid="eval-run-progress" aria-label={p.label} max={Math.max(total ?? 1, 1)} value={total === null ? undefined : done} />}
        {running && now && (
          <p className="muted small" data-testid="eval-run-now">
            {p.now(now.name, labelOf(now.model), now.n, run.live.plan?.repeat ?? now.n)}
          </p>
        )}
        {run.result?.status === 'cancelled' && <p className="muted">{p.cancelled}</p>}
        {run.error && (
          <FieldError role="alert" data-testid="eval-run-error">
            <code className="error-code">{run.error.code}</code> {run.error.message}
          </FieldError>
        )}
      </div>
      {comparison.error && (
        <FieldError role="alert" data-testid="eval-compare-error">
          {comparison.error.message}
        </FieldError>
      )}
      {comparison.shown ? (
        <EvalCompareView comparison={comparison.shown} labelOf={labelOf} onBack={comparison.back} />
      ) : (
        (results.length > 0 || tableCases.length > 0) && (
          <EvalReport models={models} cases={tableCases} results={results} {...(run.result ? { run: run.result, onCompare: comparison.ask } : {})} caseOf={caseOf} onOpenTool={onOpenTool} />
        )
      )}
    </section>
  );
}

/** The attempts of a run that ran (a cancelled run's others were not run). */
function attemptsRan(run: EvalRun): number {
  return run.results.reduce((t, r) => t + r.attempts.filter((a) => a.outcome !== 'not-run').length, 0);
}
