/**
 * The findability report in the workbench's detail pane: the user's tools a model's tool
 * search will have trouble finding, and the pairs it cannot tell apart (the core's
 * `tools.findability`), grouped by kind, each with what to change and its tools to open in
 * the editor. Read again on "Check again" and when a tool or bundle changes.
 */
import { Fragment, useEffect, useId, useRef } from 'react';
import { FINDING_KINDS, type Finding, type FindingKind, type FindingTool } from '../../../../shared/model/findability';
import { useOp } from '../../../api/hooks';
import { QueryError } from '../../../components/QueryError';
import { findabilityStrings as s } from '../../../i18n/findability-strings';
import { evalsStrings } from '../../../i18n/evals-strings';
import { BusyButton } from '../BusyButton';
import './findability.css';

export interface FindabilityReportProps {
  onOpenTool: (tool: { bundleId: string; slug: string; version: string }) => void;
  /** The eval cases that expect a flagged tool (does a model find it?). */
  onOpenEvals?: (target: { bundleId: string; tool: string }) => void;
  onClose: () => void;
}

const SEVERITY_CLASS = { high: 'badge danger', medium: 'badge findability-medium', low: 'badge' } as const;

/** A message with `code` marks shown as code. */
function Marked({ text }: { text: string }) {
  return (
    <>
      {text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>))}
    </>
  );
}

const toolName = (t: FindingTool) => `${t.bundleSlug}/${t.slug}@${t.version}`;

export function FindabilityReport({ onOpenTool, onOpenEvals, onClose }: FindabilityReportProps) {
  const titleId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const q = useOp('tools.findability', {}, { staleTime: 0, refetchOnMount: 'always' });
  // Opened: the keyboard continues from the report.
  useEffect(() => headingRef.current?.focus(), []);

  const report = q.data;
  const groups = report ? FINDING_KINDS.map((kind) => ({ kind, findings: report.findings.filter((f) => f.kind === kind) })).filter((g) => g.findings.length > 0) : [];
  const total = report ? report.counts.high + report.counts.medium + report.counts.low : 0;

  return (
    <section className="findability" aria-labelledby={titleId} data-testid="findability-report" aria-busy={q.isFetching}>
      <header className="findability-head">
        <h2 id={titleId} ref={headingRef} tabIndex={-1}>
          {s.title}
        </h2>
        <div className="findability-actions">
          <BusyButton data-testid="findability-again" unavailable={q.isFetching} onClick={() => void q.refetch()}>
            {s.again}
          </BusyButton>
          <button type="button" data-testid="findability-close" onClick={onClose}>
            {s.close}
          </button>
        </div>
      </header>
      <p className="muted findability-intro">{s.intro}</p>
      {q.isPending && (
        <p className="muted" role="status" data-testid="findability-loading">
          {s.loading}
        </p>
      )}
      {q.error && !report && <QueryError error={q.error} onRetry={() => void q.refetch()} />}
      {report && (
        <p role="status" className={`findability-summary ${report.counts.high ? 'has-high' : total ? 'has-findings' : 'clean'}`} data-testid="findability-summary">
          {report.checked === 0
            ? s.nothingToCheck
            : total === 0
              ? s.clean(report.checked, report.ranked)
              : s.summary(total, report.counts.high, report.counts.medium, report.counts.low, report.checked, report.ranked)}
          {report.omitted > 0 && ` ${s.omitted(report.omitted)}`}
        </p>
      )}
      {groups.map((g) => (
        <KindGroup key={g.kind} kind={g.kind} findings={g.findings} onOpenTool={onOpenTool} onOpenEvals={onOpenEvals} />
      ))}
    </section>
  );
}

function KindGroup({ kind, findings, onOpenTool, onOpenEvals }: { kind: FindingKind; findings: Finding[]; onOpenTool: FindabilityReportProps['onOpenTool']; onOpenEvals?: FindabilityReportProps['onOpenEvals'] }) {
  const headingId = useId();
  return (
    <section className="findability-group" aria-labelledby={headingId} data-testid="findability-group" data-kind={kind}>
      <h3 id={headingId}>
        {s.kinds[kind]} <span className="badge">{findings.length}</span>
      </h3>
      <ul className="findability-findings">
        {findings.map((f, i) => (
          <li key={`${f.tools.map(toolName).join(' ')}:${i}`} className="findability-finding" data-testid="finding" data-kind={f.kind} data-severity={f.severity} data-tool={`${f.tools[0]!.bundleSlug}/${f.tools[0]!.slug}`}>
            <div className="findability-finding-line">
              <span className={SEVERITY_CLASS[f.severity]} title={s.severityLabel(f.severity)}>
                {s.severity[f.severity]}
              </span>
              {f.tools.map((t) =>
                t.isBuiltIn ? (
                  <span key={toolName(t)} className="findability-tool">
                    <code>{toolName(t)}</code> <span className="badge">{s.builtIn}</span>
                  </span>
                ) : (
                  <button
                    key={toolName(t)}
                    type="button"
                    className="link-button findability-tool"
                    data-testid="finding-open-tool"
                    aria-label={s.openTool(toolName(t))}
                    onClick={() => onOpenTool({ bundleId: t.bundleId, slug: t.slug, version: t.version })}
                  >
                    <code>{toolName(t)}</code>
                  </button>
                ),
              )}
              {onOpenEvals && !f.tools[0]!.isBuiltIn && (
                <button
                  type="button"
                  className="link-button findability-evals"
                  data-testid="finding-open-evals"
                  aria-label={evalsStrings.findability.evalsLabel(`${f.tools[0]!.bundleSlug}/${f.tools[0]!.slug}`)}
                  onClick={() => onOpenEvals({ bundleId: f.tools[0]!.bundleId, tool: f.tools[0]!.slug })}
                >
                  {evalsStrings.findability.evals}
                </button>
              )}
            </div>
            <p className="findability-message">
              <Marked text={f.message} />
            </p>
            <p className="findability-suggestion">
              <strong>{s.suggestion}</strong> <Marked text={f.suggestion} />
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
