/**
 * The `time` bundle: the current time, converting an instant between time zones, and date
 * arithmetic. Time zones are IANA names (Europe/Paris, America/New_York, UTC) as Intl knows
 * them; anything else is a VALIDATION_FAILED. ctx.now() is the clock, so tests fix it.
 *
 * Times given as text are read strictly (no Date.parse guessing):
 * - ISO 8601: `2025-03-01`, `2025-03-01T14:30`, `2025-03-01 14:30:15.250`, with an optional
 *   offset `Z`, `+01:00`, `+0100` or `+01`. Without an offset the time is a wall-clock time
 *   in the zone the tool names (fromZone / timeZone).
 * - unix seconds: `1735689600` or `-86400.5`.
 * - `now`.
 * A wall-clock time that does not exist (skipped by a DST change) moves forward by the
 * change (02:30 on a spring-forward day is 03:30); one that happens twice (fall back) is
 * the earlier of the two. This is Temporal's "compatible" rule.
 *
 * Date math adds calendar units (years, months, weeks, days) to the wall-clock date in the
 * zone, clamping to the month's end (Jan 31 + 1 month = Feb 28 or 29), then exact units
 * (hours, minutes, seconds) to the instant, as Temporal does.
 */
import { AppError } from '../../../shared/errors';
import type { LocalFunction, LocalToolContext } from '../invoke/types';
import { argsOf, enumArg, optInt, optString, q } from '../lib/args';
import { wallClock, zoneFormatter, type WallClock } from '../lib/time-zone';

const DAY_MS = 86_400_000;
const MIN_MS = utcMs(1, 1, 1, 0, 0, 0, 0) + DAY_MS;
const MAX_MS = utcMs(9999, 12, 31, 0, 0, 0, 0) - DAY_MS;
/** Duration fields: at most this many of each unit. */
export const DURATION_MAX = 10_000_000;

/** Milliseconds since the epoch of a UTC wall time; months 1-12, years 0-99 are not shifted. */
function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  return date.getTime();
}

function daysInMonth(y: number, mo: number): number {
  return new Date(utcMs(y, mo + 1, 0, 0, 0, 0, 0)).getUTCDate();
}

// ---- zones -----------------------------------------------------------------------------------

function formatter(zone: string, field = 'timeZone'): Intl.DateTimeFormat {
  const f = zoneFormatter(zone);
  if (!f) throw zoneError(zone, field);
  return f;
}

function zoneError(zone: unknown, field: string): AppError {
  return new AppError(
    'VALIDATION_FAILED',
    `${field}: ${typeof zone === 'string' ? q(zone) : String(zone)} is not a known time zone: use an IANA name such as 'Europe/Paris', 'America/New_York' or 'UTC'`,
    { field },
  );
}

/** Checks a zone name; returns it. */
export function checkZone(zone: string, field = 'timeZone'): string {
  formatter(zone, field);
  return zone;
}

type Wall = Omit<WallClock, 'weekday'> & { ms: number };

function wallOf(ms: number, zone: string): Wall & { weekday: string } {
  return { ...wallClock(ms, formatter(zone)), ms: ((ms % 1000) + 1000) % 1000 };
}

function wallMs(w: Wall): number {
  return utcMs(w.year, w.month, w.day, w.hour, w.minute, w.second, w.ms);
}

/** The zone's offset from UTC at an instant, in ms (east positive). */
function offsetAt(ms: number, zone: string): number {
  return wallMs(wallOf(ms, zone)) - ms;
}

/** The instant of a wall-clock time in a zone ("compatible" disambiguation). */
export function zonedToInstant(w: Wall, zone: string): number {
  const local = wallMs(w);
  const before = offsetAt(local - DAY_MS, zone);
  const after = offsetAt(local + DAY_MS, zone);
  const valid = [...new Set([before, after])].map((o) => local - o).filter((t) => offsetAt(t, zone) === local - t);
  if (valid.length > 0) return Math.min(...valid);
  // In a gap: read the time with the offset in force before the change (moves it forward).
  return local - before;
}

function pad(n: number, width = 2): string {
  return String(Math.abs(n)).padStart(width, '0');
}

function offsetText(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const total = Math.round(Math.abs(offsetMs) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${sign}${pad(h)}:${pad(m)}${s ? `:${pad(s)}` : ''}`;
}

export interface TimeView {
  /** The instant in UTC, ISO 8601. */
  iso: string;
  /** Unix time in whole seconds (floor). */
  unix: number;
  unixMs: number;
  timeZone: string;
  /** The wall-clock time in the zone with its offset, e.g. 2025-01-01T09:00:00.000+09:00. */
  local: string;
  date: string;
  time: string;
  offset: string;
  weekday: string;
}

export function describe(ms: number, zone: string): TimeView {
  const w = wallOf(ms, zone);
  const date = `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
  const time = `${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
  const offset = offsetText(wallMs(w) - ms);
  return {
    iso: new Date(ms).toISOString(),
    unix: Math.floor(ms / 1000),
    unixMs: ms,
    timeZone: zone,
    local: `${date}T${time}.${pad(w.ms, 3)}${offset}`,
    date,
    time,
    offset,
    weekday: w.weekday,
  };
}

// ---- reading times ---------------------------------------------------------------------------

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const UNIX = /^[+-]?\d{1,15}(?:\.\d{1,9})?$/;

function nowMs(ctx: LocalToolContext | undefined): number {
  const d = typeof ctx?.now === 'function' ? ctx.now() : new Date();
  const ms = d instanceof Date ? d.getTime() : NaN;
  if (!Number.isFinite(ms)) throw new AppError('INTERNAL', 'the clock gave an invalid time');
  return ms;
}

function inRange(ms: number, field: string, input: string): number {
  if (!Number.isFinite(ms) || ms < MIN_MS || ms > MAX_MS) {
    throw new AppError('VALIDATION_FAILED', `${field}: ${q(input)} is outside the supported range (years 1 to 9999)`, { field });
  }
  return ms;
}

/** Reads a time argument (see the module comment); `zone` applies when it has no offset. */
export function parseTime(input: string, zone: string, field: string, ctx: LocalToolContext | undefined): number {
  const s = input.trim();
  if (s.toLowerCase() === 'now') return nowMs(ctx);
  if (UNIX.test(s)) return inRange(Math.round(Number(s) * 1000), field, input);
  const m = ISO.exec(s);
  if (!m) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${field}: cannot read ${q(input)} as a time: use ISO 8601 such as '2025-03-01T14:30:00Z', '2025-03-01 14:30' or '2025-03-01', unix seconds, or 'now'`,
      { field },
    );
  }
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', off] = m;
  const w: Wall = { year: +y!, month: +mo!, day: +d!, hour: +h, minute: +mi, second: +sec, ms: Math.floor(Number(`0.${frac || '0'}`) * 1000) };
  const bad = (what: string) => new AppError('VALIDATION_FAILED', `${field}: ${q(input)} has an invalid ${what}`, { field });
  if (w.year < 1) throw bad('year');
  if (w.month < 1 || w.month > 12) throw bad('month');
  if (w.day < 1 || w.day > daysInMonth(w.year, w.month)) throw bad('day');
  if (w.hour > 23) throw bad('hour');
  if (w.minute > 59) throw bad('minute');
  if (w.second > 59) throw bad('second');
  if (off === undefined) return inRange(zonedToInstant(w, zone), field, input);
  if (off === 'Z' || off === 'z') return inRange(wallMs(w), field, input);
  const om = /^([+-])(\d{2}):?(\d{2})?$/.exec(off)!;
  const oh = Number(om[2]);
  const omin = Number(om[3] ?? '0');
  if (oh > 23 || omin > 59) throw bad('offset');
  const sign = om[1] === '-' ? -1 : 1;
  return inRange(wallMs(w) - sign * (oh * 3600_000 + omin * 60_000), field, input);
}

// ---- date math -------------------------------------------------------------------------------

interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

const DURATION_UNITS = ['years', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds'] as const;

/** Adds calendar units on the wall clock (clamping the day), then exact units. */
export function addDuration(ms: number, d: Duration, zone: string): number {
  const w = wallOf(ms, zone);
  let t = ms;
  if (d.years || d.months || d.weeks || d.days) {
    const monthIndex = w.month - 1 + d.years * 12 + d.months;
    const year = w.year + Math.floor(monthIndex / 12);
    const month = (((monthIndex % 12) + 12) % 12) + 1;
    if (year < 1 || year > 9999) throw outOfRange();
    const day = Math.min(w.day, daysInMonth(year, month));
    const shifted = new Date(utcMs(year, month, day, 0, 0, 0, 0) + (d.weeks * 7 + d.days) * DAY_MS);
    if (!Number.isFinite(shifted.getTime())) throw outOfRange();
    const target: Wall = { ...w, year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
    if (target.year < 1 || target.year > 9999) throw outOfRange();
    t = zonedToInstant(target, zone);
  }
  t += d.hours * 3600_000 + d.minutes * 60_000 + d.seconds * 1000;
  if (!Number.isFinite(t) || t < MIN_MS || t > MAX_MS) throw outOfRange();
  return t;
}

function outOfRange(): AppError {
  return new AppError('VALIDATION_FAILED', 'the result is outside the supported range (years 1 to 9999)');
}

const ZERO: Duration = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0 };

/** The calendar difference from a to b (a <= b) in the zone: years, months, days, then exact time. */
function calendarDiff(a: number, b: number, zone: string) {
  const wa = wallOf(a, zone);
  const wb = wallOf(b, zone);
  let months = (wb.year - wa.year) * 12 + (wb.month - wa.month);
  while (months > 0 && addDuration(a, { ...ZERO, months }, zone) > b) months--;
  const mid = months > 0 ? addDuration(a, { ...ZERO, months }, zone) : a;
  const wm = wallOf(mid, zone);
  let days = Math.round((utcMs(wb.year, wb.month, wb.day, 0, 0, 0, 0) - utcMs(wm.year, wm.month, wm.day, 0, 0, 0, 0)) / DAY_MS);
  while (days > 0 && addDuration(mid, { ...ZERO, days }, zone) > b) days--;
  const mid2 = days > 0 ? addDuration(mid, { ...ZERO, days }, zone) : mid;
  let rest = b - mid2;
  const hours = Math.floor(rest / 3600_000);
  rest -= hours * 3600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return { years: Math.floor(months / 12), months: months % 12, days, hours, minutes, seconds, milliseconds: rest - seconds * 1000 };
}

// ---- the functions ---------------------------------------------------------------------------

function zoneArg(args: Record<string, unknown>, name: string, fallback: string): string {
  return checkZone(optString(args, name, 64) ?? fallback, name);
}

function makeNow(): LocalFunction {
  return async (ctx, rawArgs) => {
    const args = argsOf(rawArgs);
    return describe(nowMs(ctx), zoneArg(args, 'timeZone', 'UTC'));
  };
}

function makeConvert(): LocalFunction {
  return async (ctx, rawArgs) => {
    const args = argsOf(rawArgs);
    const fromZone = zoneArg(args, 'fromZone', 'UTC');
    const toZone = zoneArg(args, 'toZone', 'UTC');
    const time = optString(args, 'time', 100);
    const ms = time === undefined ? nowMs(ctx) : parseTime(time, fromZone, 'time', ctx);
    return { from: describe(ms, fromZone), to: describe(ms, toZone) };
  };
}

function makeDateMath(): LocalFunction {
  return async (ctx, rawArgs) => {
    const args = argsOf(rawArgs);
    const operation = enumArg(args, 'operation', ['add', 'subtract', 'difference'] as const, 'add');
    const zone = zoneArg(args, 'timeZone', 'UTC');
    const dateText = optString(args, 'date', 100);
    const start = dateText === undefined ? nowMs(ctx) : parseTime(dateText, zone, 'date', ctx);
    if (operation === 'difference') {
      const otherText = optString(args, 'other', 100);
      if (otherText === undefined) throw new AppError('VALIDATION_FAILED', "other is required for 'difference': the date to measure to", { field: 'other' });
      const end = parseTime(otherText, zone, 'other', ctx);
      const ms = end - start;
      const sign = ms < 0 ? -1 : ms > 0 ? 1 : 0;
      const cal = calendarDiff(Math.min(start, end), Math.max(start, end), zone);
      return {
        operation,
        timeZone: zone,
        start: describe(start, zone),
        end: describe(end, zone),
        difference: {
          milliseconds: ms,
          seconds: ms / 1000,
          minutes: ms / 60_000,
          hours: ms / 3600_000,
          days: ms / DAY_MS,
          weeks: ms / (7 * DAY_MS),
          calendar: { sign, ...cal },
        },
      };
    }
    const d: Duration = { ...ZERO };
    let any = false;
    for (const unit of DURATION_UNITS) {
      const v = optInt(args, unit, -DURATION_MAX, DURATION_MAX);
      if (v !== undefined) {
        d[unit] = operation === 'subtract' ? -v : v;
        any ||= v !== 0;
      }
    }
    if (!any && !DURATION_UNITS.some((u) => args[u] !== undefined)) {
      throw new AppError('VALIDATION_FAILED', `give at least one of ${DURATION_UNITS.join(', ')} to ${operation}`);
    }
    const result = addDuration(start, d, zone);
    return { operation, timeZone: zone, start: describe(start, zone), result: describe(result, zone) };
  };
}

export type TimeFunctionName = 'now' | 'convert' | 'date-math';

export function createTimeFunctions(): Record<TimeFunctionName, LocalFunction> {
  return { now: makeNow(), convert: makeConvert(), 'date-math': makeDateMath() };
}
