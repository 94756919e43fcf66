/**
 * Placeholders in file paths of directives (`output=file:archive/{today}.md`,
 * `@input file:journal/{yyyy}/{mm}/*.md`), expanded with the local date and time of the
 * injected clock. Every value is safe in a file name (no ':').
 *
 * Dates are YYYY-MM-DD, weeks ISO 8601 (`2026-W48`), months YYYY-MM; day and month names
 * are English. A placeholder is `{name}` where name is a word; anything else in braces (a glob's
 * `{a,b}`) is left alone. An unknown name is a VALIDATION_FAILED naming the known ones.
 */
import { AppError } from '../../../shared/errors';

const PLACEHOLDER_RE = /\{([A-Za-z][A-Za-z0-9_-]*)\}/g;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The local calendar day `days` after d's (noon, so a daylight-saving change never moves it to another day). */
const dayOffset = (d: Date, days: number): Date => new Date(d.getFullYear(), d.getMonth(), d.getDate() + days, 12);

const ymd = (d: Date): string => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** ISO 8601 week of d's local day: `2026-W48`. Weeks start on Monday; week 1 holds the year's first Thursday. */
function isoWeek(d: Date): string {
  const thursday = dayOffset(d, 3 - ((d.getDay() + 6) % 7));
  const year = thursday.getFullYear();
  const days = Math.round((thursday.getTime() - new Date(year, 0, 1, 12).getTime()) / 86_400_000);
  const week = Math.floor(days / 7) + 1;
  return `${pad(year, 4)}-W${pad(week)}`;
}

const PLACEHOLDERS: Record<string, (d: Date) => string> = {
  /** YYYY-MM-DD */
  today: ymd,
  date: ymd,
  /** YYYY-MM-DDTHH-mm-ss */
  now: (d) => `${ymd(d)}T${PLACEHOLDERS.time!(d)}`,
  /** HH-mm-ss */
  time: (d) => `${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}`,
  yyyy: (d) => pad(d.getFullYear(), 4),
  mm: (d) => pad(d.getMonth() + 1),
  dd: (d) => pad(d.getDate()),
  yesterday: (d) => ymd(dayOffset(d, -1)),
  tomorrow: (d) => ymd(dayOffset(d, 1)),
  /** YYYY-Www (ISO week) */
  'this-week': isoWeek,
  'last-week': (d) => isoWeek(dayOffset(d, -7)),
  /** YYYY-MM */
  'this-month': (d) => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}`,
  'last-month': (d) => {
    const m = new Date(d.getFullYear(), d.getMonth() - 1, 1, 12);
    return `${pad(m.getFullYear(), 4)}-${pad(m.getMonth() + 1)}`;
  },
  /** Monday, ... (English, whatever the system's language) */
  'day-name': (d) => DAY_NAMES[d.getDay()]!,
  /** January, ... */
  'month-name': (d) => MONTH_NAMES[d.getMonth()]!,
};

export const PLACEHOLDER_NAMES: readonly string[] = Object.keys(PLACEHOLDERS);

/** The unknown placeholder names in a text (each once), for checking before anything runs. */
export function unknownPlaceholders(text: string): string[] {
  const unknown = new Set<string>();
  for (const m of text.matchAll(PLACEHOLDER_RE)) if (!Object.hasOwn(PLACEHOLDERS, m[1]!)) unknown.add(m[1]!);
  return [...unknown];
}

export function unknownPlaceholderMessage(name: string): string {
  return `unknown placeholder {${name}}: use ${PLACEHOLDER_NAMES.map((n) => `{${n}}`).join(', ')}`;
}

/**
 * Expands every placeholder of `text` with the local time of `now`. `literal`, when given,
 * rewrites the text between placeholders (`start` is its offset in `text`): a file source
 * escapes the parts of a pattern that must match as written.
 */
export function expandPlaceholders(text: string, now: Date, literal?: (part: string, start: number) => string): string {
  const unknown = unknownPlaceholders(text);
  if (unknown.length > 0) throw new AppError('VALIDATION_FAILED', unknownPlaceholderMessage(unknown[0]!), { placeholder: unknown[0] });
  if (!literal) return text.replace(PLACEHOLDER_RE, (_, name: string) => PLACEHOLDERS[name]!(now));
  let out = '';
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER_RE)) {
    out += literal(text.slice(last, m.index), last) + PLACEHOLDERS[m[1]!]!(now);
    last = m.index + m[0].length;
  }
  return out + literal(text.slice(last), last);
}
