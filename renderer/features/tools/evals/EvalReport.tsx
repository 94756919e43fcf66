/**
 * The report of an eval run, live or saved: the totals, the pass-rate table (PassRateTable),
 * and below it the cell chosen — its verdict, the tool chosen instead when wrong, tokens, time
 * and cost, then each attempt with its checks, the arguments against what the case expects as
 * a diff (ArgsDiff), the calls, the answer and, for an attempt that failed, what the model saw
 * (ModelSawView) with a link to edit a tool's description. A saved run can be compared with
 * the last one, or one of its models with another.
 */
import { useEffect, useId, useMemo, useState } from 'react';
import type { OpInput } from '../../../../shared/contract';
import type { EvalAttempt, EvalCase, EvalCaseResult, EvalRun } from '../../../../shared/model/evals';
import { FieldError } from '../../../components/Field';
import { evalsStrings } from '../../../i18n/evals-strings';
import { ArgsDiff } from './ArgsDiff';
import { argsComparisons, callLabel, firstToShow, formatCost, modelSaw, rateTable, refLabel, type TableCase, type TableModel } from './eval-report';
import { ModelSawView } from './ModelSawView';
import { cellText, PassRateTable, VERDICT_CLASS, type CellRef } from './PassRateTable';

const s = evalsStrings.report;

export type OpenTool = (tool: { bundleId: string; slug: string; version: string }) => void;

export interface EvalReportProps {
  models: TableModel[];
  cases: TableCase[];
  results: EvalCaseResult[];
  /** The saved run (once done): what the model saw, and comparisons. */
  run?: EvalRun;
  /** A case as it was run (the run's copy, or the bundle's case while running) and its bundle's slug. */
  caseOf: (caseId: string, bundleId: string) => { evalCase: EvalCase; bundleSlug: string } | undefined;
  onOpenTool: OpenTool;
  onCompare?: (input: OpInput<'evals.compare'>) => void;
}

export function EvalReport({ models, cases, results, run, caseOf, onOpenTool, onCompare }: EvalReportProps) {
  const titleId = useId();
  const table = useMemo(() => rateTable(models, cases, results), [models, cases, results]);
  const [picked, setPicked] = useState<CellRef | undefined>();
  const selected = picked && results.some((r) => r.caseId === picked.caseId && r.bundleId === picked.bundleId && r.model === picked.model) ? picked : firstToShow(table);
  // A new run starts with nothing chosen.
  useEffect(() => setPicked(undefined), [run?.id]);
  const result = selected && results.find((r) => r.caseId === selected.caseId && r.bundleId === selected.bundleId && r.model === selected.model);

  return (
    <section className="eval-report" aria-labelledby={titleId} data-testid="eval-report" data-run-id={run?.id}>
      <div className="eval-report-head">
        <h3 id={titleId}>{s.title}</h3>
        {run && onCompare && <CompareActions run={run} onCompare={onCompare} />}
      </div>
      {run && <RunSummary run={run} />}
      <PassRateTable table={table} selected={selected} onSelect={setPicked} />
      {result ? (
        <ResultDetail
          key={`${result.bundleId}\u0000${result.caseId}\u0000${result.model}`}
          result={result}
          modelLabel={models.find((m) => m.key === result.model)?.label ?? result.model}
          known={caseOf(result.caseId, result.bundleId)}
          run={run}
          onOpenTool={onOpenTool}
        />
      ) : (
        results.length > 0 && <p className="muted">{s.noneSelected}</p>
      )}
    </section>
  );
}

/** The run's cost, saying so when some of its models had no price (their cost is not in it). */
function pricedCost(run: EvalRun, cost: number): string {
  const priced = run.models.filter((m) => m.price !== undefined).length;
  return priced < run.models.length ? s.costPriced(formatCost(cost), priced, run.models.length) : s.cost(formatCost(cost));
}

function RunSummary({ run }: { run: EvalRun }) {
  const t = run.totals;
  return (
    <div className={`eval-summary ${t.failed || t.errors ? 'failed' : t.notRun ? 'partial' : 'passed'}`}>
      <p role="status" data-testid="eval-summary">
        <strong>{s.summary(t.results, t.passed, t.failed, t.errors, t.notRun, t.flaky)}</strong>
      </p>
      <p className="muted small">
        {s.meta(run.cases.length, run.models.length, run.repeat)} · {s.started(new Date(run.startedAt).toLocaleString())} · {s.seconds(run.durationMs)} · {s.tokens(t.inputTokens, t.outputTokens)}
        {t.cost !== undefined && ` · ${pricedCost(run, t.cost)}`}
      </p>
      {run.status === 'cancelled' && <p className="muted small">{s.cancelled}</p>}
    </div>
  );
}

function CompareActions({ run, onCompare }: { run: EvalRun; onCompare: (input: OpInput<'evals.compare'>) => void }) {
  const id = useId();
  const [a, setA] = useState(run.models[0]?.key ?? '');
  const [b, setB] = useState(run.models[1]?.key ?? '');
  return (
    <div className="eval-compare-actions">
      <button type="button" data-testid="eval-compare-last" onClick={() => onCompare({ head: { runId: run.id } })}>
        {s.compareLast}
      </button>
      {run.models.length > 1 && (
        <details className="eval-compare-models">
          <summary data-testid="eval-compare-models">{s.compareModels}</summary>
          <div className="eval-compare-models-form">
            <label htmlFor={`${id}-a`}>{s.compareA}</label>
            <select id={`${id}-a`} data-testid="eval-compare-a" value={a} onChange={(e) => setA(e.target.value)}>
              {run.models.map((m) => (
                <option key={m.key} value={m.key}>
                  {m.label}
                </option>
              ))}
            </select>
            <label htmlFor={`${id}-b`}>{s.compareB}</label>
            <select id={`${id}-b`} data-testid="eval-compare-b" value={b} onChange={(e) => setB(e.target.value)}>
              {run.models.map((m) => (
                <option key={m.key} value={m.key}>
                  {m.label}
                </option>
              ))}
            </select>
            <button type="button" data-testid="eval-compare-models-go" disabled={!a || !b || a === b} onClick={() => onCompare({ base: { runId: run.id, model: a }, head: { runId: run.id, model: b } })}>
              {s.compare}
            </button>
          </div>
        </details>
      )}
    </div>
  );
}

function ResultDetail({
  result: r,
  modelLabel,
  known,
  run,
  onOpenTool,
}: {
  result: EvalCaseResult;
  modelLabel: string;
  known: { evalCase: EvalCase; bundleSlug: string } | undefined;
  run?: EvalRun;
  onOpenTool: OpenTool;
}) {
  const headingId = useId();
  const ran = r.attempts.filter((a) => a.outcome !== 'not-run').length;
  const firstBad = r.attempts.findIndex((a) => a.outcome === 'fail' || a.outcome === 'error');
  return (
    <section className="eval-detail" aria-labelledby={headingId} data-testid="eval-detail" data-case={r.name} data-model={r.model}>
      <h4 id={headingId}>{s.detailTitle(r.name, modelLabel)}</h4>
      <p className="eval-detail-line">
        <span className={VERDICT_CLASS[r.verdict]}>{s.verdicts[r.verdict]}</span> <span data-testid="eval-detail-rate">{cellText(r)}</span>
        {r.flaky && (
          <>
            {' '}
            <span className="badge eval-flaky" title={s.flakyHelp}>
              {s.flaky}
            </span>
          </>
        )}
        <span className="muted small">
          {' '}
          · {s.meanTime(s.ms(r.meanDurationMs))} · {s.tokens(r.inputTokens, r.outputTokens)}
          {r.cost !== undefined && ` · ${s.cost(formatCost(r.cost))}`}
        </span>
      </p>
      {r.chosenInstead.length > 0 && (
        <div className="eval-instead" data-testid="eval-chosen-instead">
          <strong>{s.chosenInstead}:</strong>{' '}
          {r.chosenInstead.map((c, i) => (
            <span key={c.tool}>
              {i > 0 && ', '}
              <code>{s.chosenInsteadItem(c.tool, c.attempts, ran)}</code>
            </span>
          ))}
        </div>
      )}
      <ol className="eval-attempts">
        {r.attempts.map((a, i) => (
          <li key={a.n}>
            <AttemptView attempt={a} open={i === (firstBad >= 0 ? firstBad : 0)} known={known} run={run} onOpenTool={onOpenTool} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function AttemptView({ attempt: a, open, known, run, onOpenTool }: { attempt: EvalAttempt; open: boolean; known?: { evalCase: EvalCase; bundleSlug: string }; run?: EvalRun; onOpenTool: OpenTool }) {
  const comparisons = known ? argsComparisons(known.evalCase.expect, a, known.bundleSlug) : [];
  const expectedTools = known && known.evalCase.expect.kind === 'tools' ? known.evalCase.expect.tools.map((t) => refLabel(t.tool, known.bundleSlug)) : [];
  const failedChecks = a.checks.filter((c) => !c.passed);
  const passedChecks = a.checks.filter((c) => c.passed);
  return (
    <details className={`eval-attempt ${a.outcome}`} open={open} data-testid="eval-attempt" data-outcome={a.outcome}>
      <summary>
        <span className={VERDICT_CLASS[a.outcome]}>{s.outcome[a.outcome]}</span> {s.attempt(a.n)}
        <span className="muted small">
          {' '}
          · {s.ms(a.durationMs)} · {s.tokens(a.inputTokens, a.outputTokens)}
          {a.cost !== undefined && ` · ${s.cost(formatCost(a.cost))}`}
        </span>
      </summary>
      <div className="eval-attempt-body">
        {a.error && (
          <FieldError data-testid="eval-attempt-error">
            <code className="error-code">{a.error.code}</code> {a.error.message}
          </FieldError>
        )}
        {a.checks.length > 0 && (
          <ul className="eval-checks" aria-label={s.checks}>
            {[...failedChecks, ...passedChecks].map((c, i) => (
              <li key={i} className={c.passed ? 'passed' : 'failed'} data-testid="eval-check" data-passed={c.passed} data-part={c.part}>
                <span aria-hidden="true">{c.passed ? '✓ ' : '✗ '}</span>
                <span className="visually-hidden">{c.passed ? s.outcome.pass : s.outcome.fail}: </span>
                {c.message}
              </li>
            ))}
          </ul>
        )}
        {comparisons.map((c) => (
          <ArgsDiff key={c.tool} comparison={c} />
        ))}
        <div className="eval-calls">
          <p className="eval-sub">{s.calls}</p>
          {a.calls.length === 0 ? (
            <p className="muted">{s.noCalls}</p>
          ) : (
            <ul>
              {a.calls.map((c, i) => (
                <li key={i} data-testid="eval-call" data-tool={callLabel(c)}>
                  <code>{callLabel(c)}</code> <span className="badge">{c.status}</span>
                  {c.canned && <span className="badge">{s.canned}</span>}
                  {c.search ? (
                    <span className="muted small"> {s.search(c.search.query, c.search.loaded)}</span>
                  ) : (
                    <code className="eval-call-args">{argsText(c.args)}</code>
                  )}
                  {c.error && (
                    <FieldError as="span" className="small">
                      {' '}
                      {c.error.code}: {c.error.message}
                    </FieldError>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="eval-answer">
          <p className="eval-sub">{s.answer}</p>
          {a.answer.trim() ? <p className="eval-answer-text" data-testid="eval-answer">{a.answer}</p> : <p className="muted">{s.noAnswer}</p>}
          {a.judgeInputTokens !== undefined && <p className="muted small">{s.judgeTokens(a.judgeInputTokens, a.judgeOutputTokens ?? 0)}</p>}
        </div>
        {a.toolSearch && <p className="muted small">{s.toolSearch(a.toolSearch)}</p>}
        {run && (a.outcome === 'fail' || a.outcome === 'error') && a.steps.length > 0 && <ModelSawView saw={modelSaw(run, a, expectedTools)} onOpenTool={onOpenTool} />}
      </div>
    </details>
  );
}

function argsText(args: unknown): string {
  const text = typeof args === 'string' ? args : (JSON.stringify(args) ?? '');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
