/** A Tools list row's usage: the last 30 days as a sparkline, calls and error rate. */
import type { ToolUsageSummary } from '../../../../shared/model/usage';
import { usageStrings as u } from '../../../i18n/usage-strings';
import { formatRate } from './format';
import { UsageSparkline } from './UsageSparkline';
import './usage.css';

export function ToolUsageCell({ summary, slug }: { summary: ToolUsageSummary | undefined; slug: string }) {
  if (!summary) return <span className="tool-usage" aria-hidden="true" />;
  return (
    <span className="tool-usage" data-testid={`tool-usage-${slug}`}>
      <UsageSparkline days={summary.days} width={90} height={22} testId={`sparkline-${slug}`} />
      <span className="tool-usage-figures">
        {summary.calls === 0 ? (
          <span className="muted">{u.noCalls}</span>
        ) : (
          <>
            <span data-testid={`usage-calls-${slug}`}>{u.calls(summary.calls)}</span>
            <span className={summary.errors ? 'usage-errors has-errors' : 'usage-errors'} data-testid={`usage-errors-${slug}`}>
              {u.errorRate(formatRate(summary.errors / summary.calls))}
            </span>
          </>
        )}
      </span>
    </span>
  );
}
