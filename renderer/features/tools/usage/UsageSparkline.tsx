/**
 * Calls per day as a small bar chart (inline SVG): one bar per day, oldest left, the failed
 * part of a day drawn in the danger colour on top. Screen readers get the totals in the
 * image's label and each day with calls in a visually-hidden list.
 */
import { useId } from 'react';
import type { UsageDay } from '../../../../shared/model/usage';
import { usageStrings as u } from '../../../i18n/usage-strings';

export interface UsageSparklineProps {
  days: readonly UsageDay[];
  width?: number;
  height?: number;
  testId?: string;
  /** Fills its container's width (the drawing is stretched to it). */
  fluid?: boolean;
}

export function UsageSparkline({ days, width = 120, height = 24, testId, fluid = false }: UsageSparklineProps) {
  const id = useId();
  const calls = days.reduce((n, d) => n + d.calls, 0);
  const errors = days.reduce((n, d) => n + d.errors, 0);
  const busiest = days.reduce<UsageDay | undefined>((b, d) => (!b || d.calls > b.calls ? d : b), undefined);
  const max = Math.max(1, ...days.map((d) => d.calls));
  const step = width / Math.max(1, days.length);
  const bar = Math.max(1, step - 1);
  const scale = (n: number) => (n === 0 ? 0 : Math.max(1.5, (n / max) * (height - 1)));
  const active = days.filter((d) => d.calls > 0);
  return (
    <span className={fluid ? 'usage-sparkline fluid' : 'usage-sparkline'} data-testid={testId} data-calls={calls} data-errors={errors}>
      <svg role="img" aria-label={u.sparklineLabel(calls, errors, days.length, busiest)} aria-describedby={active.length ? `${id}-days` : undefined} width={fluid ? '100%' : width} height={height} viewBox={`0 0 ${width} ${height}`} preserveAspectRatio={fluid ? 'none' : undefined}>
        <line x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} className="usage-baseline" />
        {days.map((d, i) => {
          const h = scale(d.calls);
          const e = d.errors ? Math.max(1, (d.errors / d.calls) * h) : 0;
          return (
            <g key={d.date}>
              {h > 0 && <rect className="usage-bar" x={i * step} y={height - h} width={bar} height={h - e} />}
              {e > 0 && <rect className="usage-bar-error" x={i * step} y={height - e} width={bar} height={e} />}
            </g>
          );
        })}
      </svg>
      {active.length > 0 && (
        <span id={`${id}-days`} className="visually-hidden">
          {active.map((d) => u.dayLine(d.date, d.calls, d.errors)).join('; ')}
        </span>
      )}
    </span>
  );
}
