/**
 * Calendar days in a time zone as UTC instants: the last N days up to and including today,
 * each with its local date and the instants its midnight and the next one fall on. Days
 * across a daylight-saving change are 23 or 25 hours long, as they are on the wall.
 */
import { AppError } from '../../../shared/errors';
import { wallClock, zoneFormatter } from './time-zone';

export interface Day {
  /** The local date, YYYY-MM-DD. */
  date: string;
  /** ISO instants (UTC, with milliseconds, as the logs write them): [start, end). */
  start: string;
  end: string;
}

/** An IANA time zone name Intl knows ('UTC', 'Europe/Berlin'), or VALIDATION_FAILED saying so. */
export function checkTimeZone(timeZone: string): string {
  formatterFor(timeZone);
  return timeZone;
}

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  const f = zoneFormatter(timeZone);
  if (!f) throw new AppError('VALIDATION_FAILED', `'${timeZone}' is not a time zone this app knows; use a name such as 'UTC' or 'Europe/Berlin'`);
  return f;
}

/** The wall-clock fields of an instant in a time zone. */
function wall(ms: number, timeZone: string): { y: number; m: number; d: number; wallMs: number } {
  const { year: y, month: m, day: d, hour: h, minute: mi, second: s } = wallClock(ms, formatterFor(timeZone));
  return { y, m, d, wallMs: Date.UTC(y, m - 1, d, h, mi, s) };
}

/** The zone's offset from UTC at an instant, in ms (positive east of Greenwich). */
function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wall(whole, timeZone).wallMs - whole;
}

/** The instant local midnight of y-m-d falls on (the first instant of that date where midnight is skipped). */
function midnight(y: number, m: number, d: number, timeZone: string): number {
  const local = Date.UTC(y, m - 1, d);
  let guess = local - offsetAt(local, timeZone);
  // Twice: the offset at the guess may differ from the one at the first guess across a change.
  guess = local - offsetAt(guess, timeZone);
  const w = wall(guess, timeZone);
  // Midnight skipped by a change (a few zones move at 00:00): the day starts at the first instant that is that date.
  if (Date.UTC(w.y, w.m - 1, w.d) < local) guess += 3_600_000;
  return guess;
}

const iso = (ms: number) => new Date(ms).toISOString();
const dateText = (y: number, m: number, d: number) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

/** The last `count` days in `timeZone`, oldest first, the last one being the day `now` falls on. */
export function lastDays(now: Date, timeZone: string, count: number): Day[] {
  const today = wall(now.getTime(), timeZone);
  const days: Day[] = [];
  for (let i = count - 1; i >= 0; i--) {
    // Date.UTC normalises day numbers below 1 into the months before.
    const at = new Date(Date.UTC(today.y, today.m - 1, today.d - i));
    const next = new Date(Date.UTC(today.y, today.m - 1, today.d - i + 1));
    const [y, m, d] = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate()];
    days.push({
      date: dateText(y, m, d),
      start: iso(midnight(y, m, d, timeZone)),
      end: iso(midnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone)),
    });
  }
  return days;
}
