/**
 * Placeholders in file paths of directives (`output=file:archive/{today}.md`,
 * `@input file:journal/{yyyy}/{mm}/*.md`), expanded with the local date and time of the
 * injected clock. Every value is safe in a file name (no ':').
 *
 * A placeholder is `{name}` where name is a word; anything else in braces (a glob's
 * `{a,b}`) is left alone. An unknown name is a VALIDATION_FAILED naming the known ones.
 */
import { AppError } from '../../../shared/errors';

const PLACEHOLDER_RE = /\{([A-Za-z][A-Za-z0-9_-]*)\}/g;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

const PLACEHOLDERS: Record<string, (d: Date) => string> = {
  /** YYYY-MM-DD */
  today: (d) => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
  date: (d) => PLACEHOLDERS.today!(d),
  /** YYYY-MM-DDTHH-mm-ss */
  now: (d) => `${PLACEHOLDERS.today!(d)}T${PLACEHOLDERS.time!(d)}`,
  /** HH-mm-ss */
  time: (d) => `${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}`,
  yyyy: (d) => pad(d.getFullYear(), 4),
  mm: (d) => pad(d.getMonth() + 1),
  dd: (d) => pad(d.getDate()),
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

/** Expands every placeholder of `text` with the local time of `now`. */
export function expandPlaceholders(text: string, now: Date): string {
  const unknown = unknownPlaceholders(text);
  if (unknown.length > 0) throw new AppError('VALIDATION_FAILED', unknownPlaceholderMessage(unknown[0]!), { placeholder: unknown[0] });
  return text.replace(PLACEHOLDER_RE, (_, name: string) => PLACEHOLDERS[name]!(now));
}
