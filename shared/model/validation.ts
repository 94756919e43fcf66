/**
 * The registry's validation rules (docs/design/registry.md, names), pure: no Node or DOM APIs, so
 * the renderer can check a form with the same code the core uses to refuse a write.
 *
 * Slug and version ("labels"):
 * - allowed: Unicode letters (\p{L}), decimal digits (\p{Nd}) and the ASCII '-'; the
 *   version also allows '.'. "Digit" means the decimal-digit category
 *   only: \p{No} (², ½, ①) and \p{Nl} (Ⅻ) look like symbols and are refused.
 * - everything else is refused: '_', whitespace, slashes, controls, symbols, punctuation
 *   and also combining marks. Labels are checked after NFC normalisation, so an accent
 *   typed as e + U+0301 is composed to é and passes; a mark with no precomposed form
 *   (e.g. Devanagari vowel signs) is refused: the rule allows letters and digits, not marks.
 * - 1 to 64 runes (code points, not UTF-16 units), case-sensitive, compared and stored NFC.
 * - a version made only of dots is refused: '.' and '..' cannot be a URL path segment.
 *
 * JSON values a client sends (schemas, the HTTP spec) are measured by an iterative walk
 * with a budget before anything recursive (zod, ajv, JSON.stringify) touches them, so a
 * 1 MB or 10,000-deep value is refused fast and without a stack overflow.
 */
import { z } from 'zod';
import { AppError } from '../errors';

export const LABEL_MAX_RUNES = 64;

/** A rule a value broke: the field, a short rule name, and a sentence a person can act on. */
export interface RuleViolation {
  field: string;
  rule: string;
  message: string;
}

export function violationError(v: RuleViolation): AppError {
  return new AppError('VALIDATION_FAILED', v.message, { field: v.field, rule: v.rule });
}

export function nfc(s: string): string {
  return s.normalize('NFC');
}

/** Length in code points: an astral letter such as 𝐀 counts once. */
export function runeLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Quotes a value for an error message: at most 80 runes, invisible characters escaped. */
export function quote(s: string): string {
  const runes = [...s];
  const shown = runes
    .slice(0, 80)
    .map((r) => (/[\p{C}\p{Z}]/u.test(r) && r !== ' ' ? `\\u{${r.codePointAt(0)!.toString(16).toUpperCase()}}` : r))
    .join('');
  return `'${shown}${runes.length > 80 ? '…' : ''}'`;
}

function describeRune(r: string): string {
  const cp = `U+${r.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  if (/[\p{C}\p{Z}]/u.test(r)) return cp;
  return `'${r}' (${cp})`;
}

const LABEL_RUNE = { slug: /^[\p{L}\p{Nd}-]$/u, version: /^[\p{L}\p{Nd}.-]$/u } as const;
const ALLOWED_WORDS = { slug: "letters, digits and '-'", version: "letters, digits, '-' and '.'" } as const;

export type LabelKind = keyof typeof LABEL_RUNE;

/** Why a slug or version is refused, or null. Checks the NFC form of the value. */
export function labelViolation(kind: LabelKind, value: unknown, field: string = kind): RuleViolation | null {
  if (typeof value !== 'string') {
    return { field, rule: 'type', message: `${field} must be a string: got ${value === null ? 'null' : typeof value}` };
  }
  const s = nfc(value);
  if (s.length === 0) return { field, rule: 'required', message: `${field} must not be empty` };
  const runes = [...s];
  if (runes.length > LABEL_MAX_RUNES) {
    return {
      field,
      rule: 'max-length',
      message: `${field} may be at most ${LABEL_MAX_RUNES} characters: got ${runes.length} in ${quote(s)}`,
    };
  }
  const bad = runes.findIndex((r) => !LABEL_RUNE[kind].test(r));
  if (bad >= 0) {
    return {
      field,
      rule: 'charset',
      message: `${field} may contain ${ALLOWED_WORDS[kind]} only: got ${quote(s)} (${describeRune(runes[bad]!)} at position ${bad + 1} is not allowed)`,
    };
  }
  if (kind === 'version' && /^\.+$/.test(s)) {
    return { field, rule: 'dots-only', message: `${field} must contain a letter, digit or '-': got ${quote(s)}` };
  }
  return null;
}

/** Returns the NFC form of a valid slug, or throws VALIDATION_FAILED naming the rule. */
export function checkSlug(value: unknown, field = 'slug'): string {
  const v = labelViolation('slug', value, field);
  if (v) throw violationError(v);
  return nfc(value as string);
}

export function checkVersion(value: unknown, field = 'version'): string {
  const v = labelViolation('version', value, field);
  if (v) throw violationError(v);
  return nfc(value as string);
}

/** Labels are case-sensitive and compared in NFC. */
export function sameLabel(a: string, b: string): boolean {
  return nfc(a) === nfc(b);
}

/** The identity of a tool inside its bundle. NUL cannot occur in a label, so it separates. */
export function toolKey(slug: string, version: string): string {
  return `${nfc(slug)}\u0000${nfc(version)}`;
}

// ---- ids ----------------------------------------------------------------------------

/**
 * A UUIDv7 in canonical lowercase. Uppercase is refused rather than folded: ids name
 * folders, and on a case-insensitive disk two spellings would be one folder.
 */
export const UUID_V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function uuidV7Violation(value: unknown, field: string): RuleViolation | null {
  if (typeof value === 'string' && UUID_V7_PATTERN.test(value)) return null;
  const got = typeof value === 'string' ? quote(value) : typeof value;
  return { field, rule: 'uuid-v7', message: `${field} must be a lowercase UUIDv7 (e.g. 0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f35): got ${got}` };
}

export function checkUuidV7(value: unknown, field: string): string {
  const v = uuidV7Violation(value, field);
  if (v) throw violationError(v);
  return value as string;
}

// ---- JSON values --------------------------------------------------------------------

export interface JsonLimits {
  /** Size of the compact JSON text in UTF-8 bytes (measured as an upper bound: numbers count 24). */
  maxBytes: number;
  /** Nesting of objects and arrays; `{}` is 1. */
  maxDepth: number;
  /** Objects and arrays in total: bounds the work of compiling a schema. */
  maxNodes: number;
}

/**
 * Limits for argSchema and outputSchema. maxNodes keeps ajv's compile time of one schema
 * in the hundreds of milliseconds (ajv compiles ~2,000 subschemas in ~0.35 s here).
 */
export const SCHEMA_LIMITS: JsonLimits = { maxBytes: 256 * 1024, maxDepth: 64, maxNodes: 2000 };
/** Limits for the HTTP spec of a tool (templates, headers, body). */
export const HTTP_SPEC_LIMITS: JsonLimits = { maxBytes: 256 * 1024, maxDepth: 32, maxNodes: 2000 };

function utf8Length(s: string): number {
  let n = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x80) n += c === 0x22 || c === 0x5c ? 2 : c < 0x20 ? 6 : 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && k + 1 < s.length) {
      n += 4;
      k++;
    } else n += 3;
  }
  return n + 2;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Walks a value without recursion and stops as soon as a limit is passed. Also refuses
 * what JSON cannot carry (undefined, functions, NaN, Dates, ...). An object graph with a
 * cycle is refused by the depth limit; one with heavy sharing by the size budget.
 */
export function jsonViolation(value: unknown, field: string, limits: JsonLimits): RuleViolation | null {
  const stack: [unknown, number, string][] = [[value, 1, field]];
  let bytes = 0;
  let nodes = 0;
  const tooBig = (): RuleViolation => ({
    field,
    rule: 'max-size',
    message: `${field} is too large: its JSON may be at most ${Math.round(limits.maxBytes / 1024)} KiB`,
  });
  while (stack.length > 0) {
    const [v, depth, where] = stack.pop()!;
    if (v === null || typeof v === 'boolean') bytes += 5;
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { field, rule: 'not-json', message: `${where} must be a finite number` };
      bytes += 24;
    } else if (typeof v === 'string') bytes += utf8Length(v);
    else if (Array.isArray(v) || isPlainObject(v)) {
      if (depth > limits.maxDepth) {
        return { field, rule: 'max-depth', message: `${field} is nested too deeply: at most ${limits.maxDepth} levels of objects and arrays` };
      }
      if (++nodes > limits.maxNodes) {
        return { field, rule: 'max-nodes', message: `${field} is too complex: at most ${limits.maxNodes} objects and arrays in total` };
      }
      bytes += 2;
      if (Array.isArray(v)) {
        for (let k = v.length - 1; k >= 0; k--) {
          bytes += 1;
          stack.push([v[k], depth + 1, `${where}[${k}]`]);
          if (bytes > limits.maxBytes) return tooBig();
        }
      } else {
        for (const [key, child] of Object.entries(v)) {
          bytes += utf8Length(key) + 2;
          stack.push([child, depth + 1, `${where}.${key}`]);
          if (bytes > limits.maxBytes) return tooBig();
        }
      }
    } else {
      return { field, rule: 'not-json', message: `${where} is not a JSON value (${v === undefined ? 'undefined' : typeof v})` };
    }
    if (bytes > limits.maxBytes) return tooBig();
  }
  return null;
}

/** A JSON Schema as the registry stores it: a JSON object within SCHEMA_LIMITS. */
export function schemaViolation(value: unknown, field: string): RuleViolation | null {
  if (!isPlainObject(value)) {
    return { field, rule: 'type', message: `${field} must be a JSON Schema object: got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` };
  }
  return jsonViolation(value, field, SCHEMA_LIMITS);
}

/**
 * Tool arguments are passed as one JSON object (as every model API does), so the
 * argument schema must say so at its top level.
 */
export function argSchemaViolation(value: unknown, field = 'argSchema'): RuleViolation | null {
  const v = schemaViolation(value, field);
  if (v) return v;
  if ((value as Record<string, unknown>).type !== 'object') {
    return {
      field,
      rule: 'root-type',
      message: `${field} must describe an object: set "type": "object" at its top level (tool arguments are one JSON object)`,
    };
  }
  return null;
}

// ---- zod field schemas shared by the bundle and tool models ---------------------------

/** Adds a rule check to a zod schema, with the rule's own message and name. */
function withRule<T extends z.ZodType>(schema: T, check: (v: unknown) => RuleViolation | null): T {
  return schema.superRefine((value, ctx) => {
    const v = check(value);
    if (v) ctx.addIssue({ code: 'custom', message: v.message, params: { rule: v.rule } });
  }) as unknown as T;
}

/** In a zod schema the field is named by the issue's path, so the message starts at "must". */
export const UuidV7Schema = withRule(z.string(), (v) => {
  const violation = uuidV7Violation(v, 'id');
  return violation && { ...violation, message: violation.message.replace(/^id /, '') };
});
export const TimestampSchema = z.iso.datetime({ error: 'must be an ISO-8601 UTC timestamp such as 2025-01-31T12:00:00.000Z' });
export const SlugSchema = withRule(z.string(), (v) => labelViolation('slug', v));
export const VersionSchema = withRule(z.string(), (v) => labelViolation('version', v));
/** Tags follow the slug rule: they travel in query strings (`tags=a,b`) and filters. */
export const TagSchema = withRule(z.string(), (v) => labelViolation('slug', v, 'tag'));
export const TagsSchema = z
  .array(TagSchema)
  .max(32, { error: 'at most 32 tags' })
  .superRefine((tags, ctx) => {
    const seen = new Set<string>();
    for (const t of tags) {
      const k = nfc(t);
      if (seen.has(k)) ctx.addIssue({ code: 'custom', message: `tag ${quote(t)} is listed twice`, params: { rule: 'unique' } });
      seen.add(k);
    }
  });

const NO_CONTROLS = /^[^\p{Cc}]*$/u;
const NO_CONTROLS_BUT_LINES = /^(?:[^\p{Cc}]|[\n\t])*$/u;

export const DisplayNameSchema = z
  .string()
  .max(128, { error: 'may be at most 128 characters' })
  .regex(/\S/, { error: 'must not be blank' })
  .regex(NO_CONTROLS, { error: 'must not contain control characters' });
export const DescriptionSchema = z
  .string()
  .max(16_384, { error: 'may be at most 16,384 characters' })
  .regex(NO_CONTROLS_BUT_LINES, { error: 'must not contain control characters other than newlines and tabs' });
