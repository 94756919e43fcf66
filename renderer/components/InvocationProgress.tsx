/**
 * A running call's progress bar (a tool card in the chat, the tester, the `+` palette): shown
 * once the call reports progress, determinate when it gives a total, with the server's message.
 * `useInvocationProgressFeed` (mounted once, in App) keeps every call's latest report.
 */
import { useEffect, type ReactNode } from 'react';
import { useApi } from '../api/hooks';
import type { InvocationProgress as InvocationProgressReport } from '../../shared/model/invocation';
import { t } from '../i18n/strings';
import { progressView, useInvocationProgress } from './invocation-progress';

/** Follows the core's `invocation.progress` events for as long as the window lives. */
export function useInvocationProgressFeed(): void {
  const { client } = useApi();
  useEffect(() => client.on('invocation.progress', (p) => useInvocationProgress.getState().report(p)), [client]);
}

/** `fallback`: what shows until the call's first report (nothing by default). */
export function InvocationProgress({ invocationId, label = t.progress.label, fallback = null }: { invocationId: string; label?: string; fallback?: ReactNode }) {
  const report = useInvocationProgress((st) => st.reports.get(invocationId));
  if (!report) return <>{fallback}</>;
  return <ProgressBar report={report} label={label} />;
}

/** One report as a bar: its value and maximum when it gives a total, busy without one; its words and message beside it. */
export function ProgressBar({ report, label }: { report: Pick<InvocationProgressReport, 'progress' | 'total' | 'message'>; label: string }) {
  const v = progressView(report);
  return (
    <div className="invocation-progress" data-testid="invocation-progress">
      {v.max !== undefined ? (
        <progress max={v.max} value={v.value} aria-label={label} aria-valuetext={v.message ? `${v.text}: ${v.message}` : v.text} />
      ) : (
        <progress aria-label={label} aria-busy="true" aria-valuetext={v.message ? `${v.text}: ${v.message}` : v.text} />
      )}
      <span className="muted invocation-progress-text" data-testid="invocation-progress-text">
        {v.text}
        {v.message && <span className="invocation-progress-message"> — {v.message}</span>}
      </span>
    </div>
  );
}
