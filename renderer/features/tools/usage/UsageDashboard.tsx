/**
 * A tool's usage over the last 30 days, from the invocation log ('tools.usageStats'): calls,
 * error rate, latency p50/p95, result size, the latency histogram, calls per day and the
 * most frequent error codes.
 */
import { useId } from 'react';
import { USAGE_DAYS } from '../../../../shared/model/usage';
import { QueryError } from '../../../components/QueryError';
import { usageStrings as u } from '../../../i18n/usage-strings';
import { formatBytes, formatMs, formatRate } from './format';
import { LatencyHistogram } from './LatencyHistogram';
import { UsageSparkline } from './UsageSparkline';
import { useUsageStats } from './use-usage';
import './usage.css';

const d = u.dashboard;

export function UsageDashboard(props: { bundleId: string; slug: string; version: string }) {
  const titleId = useId();
  const stats = useUsageStats(props);
  const s = stats.data;
  return (
    <section className="usage-dashboard" aria-labelledby={titleId} data-testid="usage-dashboard">
      <header className="section-head">
        <h3 id={titleId}>{d.title}</h3>
        {s && <p className="help">{d.window(USAGE_DAYS, s.timeZone)}</p>}
      </header>
      {stats.error && <QueryError error={stats.error} onRetry={() => void stats.refetch()} />}
      {!s && !stats.error && <p className="muted">{d.loading}</p>}
      {s && s.calls === 0 && (
        <p className="muted" data-testid="usage-empty">
          {d.empty}
        </p>
      )}
      {s && s.calls > 0 && (
        <>
          <dl className="usage-figures">
            <div>
              <dt>{d.calls}</dt>
              <dd data-testid="usage-stat-calls">{s.calls.toLocaleString('en-US')}</dd>
            </div>
            <div>
              <dt>{d.errorRate}</dt>
              <dd data-testid="usage-stat-error-rate">
                {formatRate(s.errorRate)} <span className="muted">({d.errorsOf(s.errors)})</span>
              </dd>
            </div>
            <div>
              <dt>{d.p50}</dt>
              <dd data-testid="usage-stat-p50">{s.latencyMs ? formatMs(s.latencyMs.p50) : d.none}</dd>
            </div>
            <div>
              <dt>{d.p95}</dt>
              <dd data-testid="usage-stat-p95">{s.latencyMs ? formatMs(s.latencyMs.p95) : d.none}</dd>
            </div>
            <div>
              <dt>{d.resultSize}</dt>
              <dd data-testid="usage-stat-size">
                {s.resultBytes ? (
                  <>
                    {formatBytes(s.resultBytes.median)} <span className="muted">{d.resultSizeMax(formatBytes(s.resultBytes.max))}</span>
                  </>
                ) : (
                  d.none
                )}
              </dd>
            </div>
          </dl>
          <p className="help">{d.percentileHelp}</p>
          <div className="usage-charts">
            <div>
              <h4>{d.histogram}</h4>
              <LatencyHistogram buckets={s.latencyHistogram} />
            </div>
            <div>
              <h4>{d.perDay}</h4>
              <UsageSparkline days={s.days} width={240} height={48} fluid testId="usage-dashboard-sparkline" />
              <p className="help usage-axis-note">
                {s.days[0]?.date} – {s.days.at(-1)?.date}
              </p>
            </div>
            <div>
              <h4>{d.errorsByCode}</h4>
              {s.errors === 0 ? (
                <p className="muted">{d.noErrors}</p>
              ) : (
                <ul className="usage-codes" data-testid="usage-error-codes">
                  {s.errorsByCode.map((c) => (
                    <li key={c.code}>
                      <code>{c.code}</code> <span data-testid={`usage-code-${c.code}`}>{c.count}</span>
                    </li>
                  ))}
                  {s.otherErrors > 0 && (
                    <li>
                      <span className="muted">{d.otherCodes}</span> {s.otherErrors}
                    </li>
                  )}
                </ul>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}
