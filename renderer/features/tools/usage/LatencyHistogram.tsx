/** The latency histogram as inline SVG bars with their bucket under each; the counts are in the label and a hidden table. */
import type { ToolUsageStats } from '../../../../shared/model/usage';
import { usageStrings as u } from '../../../i18n/usage-strings';
import { formatBound } from './format';

const d = u.dashboard;

export function LatencyHistogram({ buckets }: { buckets: ToolUsageStats['latencyHistogram'] }) {
  const labels = buckets.map((b) => d.bucket(formatBound(b.fromMs), b.toMs === undefined ? undefined : formatBound(b.toMs)));
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const width = 320;
  const chart = 64;
  const step = width / buckets.length;
  return (
    <figure className="usage-histogram" data-testid="usage-histogram">
      <svg role="img" aria-label={d.histogramLabel(buckets.map((b, i) => d.bucketCount(labels[i]!, b.count)).join(', '))} width="100%" viewBox={`0 0 ${width} ${chart + 28}`} preserveAspectRatio="xMidYMid meet">
        {buckets.map((b, i) => {
          const h = b.count ? Math.max(2, (b.count / max) * (chart - 12)) : 0;
          return (
            <g key={b.fromMs}>
              {h > 0 && <rect className="usage-bar" x={i * step + 3} y={chart - h} width={step - 6} height={h} />}
              <text className="usage-count" x={i * step + step / 2} y={chart - h - 3} textAnchor="middle">
                {b.count}
              </text>
              <text className="usage-axis" x={i * step + step / 2} y={chart + 12} textAnchor="middle">
                {b.toMs === undefined ? `≥${formatBound(b.fromMs)}` : `<${formatBound(b.toMs)}`}
              </text>
            </g>
          );
        })}
        <line x1={0} x2={width} y1={chart + 0.5} y2={chart + 0.5} className="usage-baseline" />
      </svg>
      <table className="visually-hidden">
        <caption>{d.histogram}</caption>
        <tbody>
          {buckets.map((b, i) => (
            <tr key={b.fromMs}>
              <th scope="row">{labels[i]}</th>
              <td>{b.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
