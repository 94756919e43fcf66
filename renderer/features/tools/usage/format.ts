/** Numbers of usage at a glance as people read them. */

export function formatRate(rate: number): string {
  if (rate === 0) return '0%';
  const pct = rate * 100;
  return `${pct < 10 && pct !== Math.round(pct) ? pct.toFixed(1) : Math.round(pct)}%`;
}

export function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

export { formatBytes } from '../../../../shared/bytes';

/** Bucket bounds: 10 ms, 1 s. */
export function formatBound(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${ms / 1000} s`;
}

/** The user's IANA time zone, for days as they live them. */
export function userTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}
