/**
 * The test report of a suite: progress while it runs (how many cases of how many, the case
 * running), Cancel (or Esc), then one line per case with its outcome and time, and under a
 * failed case its failed checks with the expected and actual value as a diff. Each tool can
 * be opened in the editor and tester from its heading.
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useApi } from '../../../api/hooks';
import { FieldError } from '../../../components/Field';
import { suiteStrings as s } from '../../../i18n/suite-strings';
import { BusyButton } from '../BusyButton';
import { CaseFailures } from '../tester/CaseFailures';
import { countReport, toolName, visibleTools, type ReportTool } from './suite-report';
import { useSuiteRun, type SuiteScope } from './suite-run-store';
import './suite.css';

export interface SuiteReportProps {
  onOpenTool: (tool: { bundleId: string; slug: string; version: string }) => void;
  onRunAgain: (scope: SuiteScope) => void;
  onClose: () => void;
}

export function SuiteReport({ onOpenTool, onRunAgain, onClose }: SuiteReportProps) {
  const { client } = useApi();
  const run = useSuiteRun((st) => st.run);
  const cancel = useSuiteRun((st) => st.cancel);
  const titleId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [onlyFailed, setOnlyFailed] = useState(false);

  // A new run (or the report opened): the keyboard continues from the report.
  useEffect(() => headingRef.current?.focus(), [run?.runId]);

  if (!run) return null;
  const running = run.status === 'running';
  const counts = countReport(run.report);
  const tools = visibleTools(run.report, onlyFailed);
  const scope = run.scope.kind === 'all' ? s.scopeAll : run.scope.kind === 'bundles' ? s.scopeBundles(run.scope.names) : s.scopeBundle(run.scope.name);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && running) {
      e.preventDefault();
      void cancel(client);
    }
  };

  let status: string;
  if (running) status = run.report.total === null ? s.starting : s.running(counts.done, counts.total);
  else if (run.status === 'failed') status = s.failedToRun;
  else status = s.summary(counts.total, run.report.tools.length, counts.passed, counts.failed, counts.skipped, ((run.report.durationMs ?? 0) / 1000).toFixed(2));

  return (
    <section className="suite-report" aria-labelledby={titleId} data-testid="suite-report" data-status={run.status} onKeyDown={onKeyDown}>
      <header className="suite-head">
        <h2 id={titleId} ref={headingRef} tabIndex={-1}>
          {s.title}
        </h2>
        <div className="suite-actions">
          <BusyButton data-testid="suite-cancel" aria-keyshortcuts="Escape" unavailable={!running || run.cancelling} onClick={() => void cancel(client)}>
            {run.cancelling && running ? s.cancelling : s.cancel}
          </BusyButton>
          <BusyButton data-testid="suite-again" unavailable={running} onClick={() => onRunAgain(run.scope)}>
            {s.again}
          </BusyButton>
          <BusyButton data-testid="suite-close" unavailable={running} onClick={onClose}>
            {s.close}
          </BusyButton>
        </div>
      </header>
      <p className="muted suite-scope" data-testid="suite-scope">
        {scope}
      </p>
      <div className={`suite-status ${run.status === 'done' ? (counts.failed ? 'failed' : 'passed') : run.status}`}>
        <p role="status" data-testid="suite-status">
          {status}
        </p>
        <progress data-testid="suite-progress" aria-label={s.progressLabel} max={Math.max(counts.total, 1)} value={run.report.total === null && running ? undefined : counts.done} />
        {run.status === 'done' && run.cancelling && <p className="muted">{s.cancelled}</p>}
        {run.error && (
          <FieldError role="alert" data-testid="suite-error">
            <code className="error-code">{run.error.code}</code> {run.error.message}
          </FieldError>
        )}
      </div>
      {run.report.finished && run.report.tools.length === 0 && !run.error && (
        <div className="empty-state" data-testid="suite-empty">
          <p>
            <strong>{s.none}</strong> {s.noneHelp}
          </p>
        </div>
      )}
      {run.report.tools.length > 0 && (
        <label className="inline-check">
          <input type="checkbox" data-testid="suite-only-failed" checked={onlyFailed} onChange={(e) => setOnlyFailed(e.target.checked)} />
          {s.onlyFailed}
        </label>
      )}
      {onlyFailed && tools.length === 0 && <p className="muted">{s.noFailures}</p>}
      <div className="suite-tools" aria-busy={running}>
        {tools.map((t) => (
          <ToolResults key={`${t.bundleId}\u0000${t.slug}`} tool={t} onlyFailed={onlyFailed} onOpen={onOpenTool} />
        ))}
      </div>
    </section>
  );
}

function ToolResults({ tool: t, onlyFailed, onOpen }: { tool: ReportTool; onlyFailed: boolean; onOpen: SuiteReportProps['onOpenTool'] }) {
  const headingId = useId();
  const name = toolName(t);
  const passed = t.results.filter((r) => r.passed).length;
  const results = onlyFailed ? t.results.filter((r) => !r.passed) : t.results;
  return (
    <section className="suite-tool" aria-labelledby={headingId} data-testid="suite-tool" data-tool={`${t.bundleSlug}/${t.slug}`}>
      <div className="suite-tool-head">
        <h3 id={headingId}>
          <code>{name}</code>
        </h3>
        {t.skipped === undefined ? (
          <span className="muted small">
            {s.toolCounts(passed, t.results.length - passed)}
            {t.durationMs !== undefined && ` · ${s.ms(t.durationMs)}`}
          </span>
        ) : (
          <span className="badge">{s.skipped}</span>
        )}
        {t.version !== undefined && (
          <button type="button" className="suite-open" data-testid="suite-open-tool" aria-label={s.openToolLabel(name)} onClick={() => onOpen({ bundleId: t.bundleId, slug: t.slug, version: t.version! })}>
            {s.openTool}
          </button>
        )}
      </div>
      {t.skipped !== undefined && <p className="muted small">{s.skippedBecause(t.skipped)}</p>}
      {t.skipped === undefined && (
        <ul className="suite-cases">
          {results.map((r) => (
            <li key={r.testCaseId} className={r.passed ? 'suite-case passed' : 'suite-case failed'} data-testid="suite-case" data-case={r.name} data-passed={r.passed}>
              <div className="suite-case-line">
                <span className={r.passed ? 'badge ok' : 'badge danger'}>{r.passed ? s.passed : s.failed}</span>
                <span className="suite-case-name">{r.name}</span>
                <span className="muted small" data-testid="suite-case-time">
                  {s.ms(r.durationMs)}
                </span>
              </div>
              {!r.passed && <CaseFailures assertions={r.assertions} />}
            </li>
          ))}
          {t.running !== undefined && (
            <li className="suite-case running muted" data-testid="suite-case-running">
              {s.runningCase(t.running)}
            </li>
          )}
        </ul>
      )}
    </section>
  );
}
