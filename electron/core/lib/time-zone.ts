/**
 * Wall-clock fields of an instant in an IANA time zone, through one cached Intl formatter per
 * zone (making one costs far more than using it). Callers word their own error for a zone Intl
 * does not know: `zoneFormatter` answers undefined for it.
 */

/** The fields of a wall-clock time; `hour` 0-23, `weekday` in English ('Monday'). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Bounds the cache: zone names come from users and models. */
const MAX_CACHED = 500;

/** The formatter of a zone, or undefined when the name is not one Intl knows (or could not be one). */
export function zoneFormatter(zone: unknown): Intl.DateTimeFormat | undefined {
  if (typeof zone !== 'string') return undefined;
  const hit = formatters.get(zone);
  if (hit) return hit;
  if (zone.length === 0 || zone.length > 64 || !/^[A-Za-z0-9_+\-/:]+$/.test(zone)) return undefined;
  let f: Intl.DateTimeFormat;
  try {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'long',
    });
  } catch {
    return undefined;
  }
  if (formatters.size >= MAX_CACHED) formatters.clear();
  formatters.set(zone, f);
  return f;
}

/** The wall-clock fields of an instant (ms since the epoch) in a zone `zoneFormatter` accepted. */
export function wallClock(ms: number, f: Intl.DateTimeFormat): WallClock {
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday ?? '',
  };
}
