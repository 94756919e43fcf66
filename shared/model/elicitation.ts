/**
 * Elicitation: an MCP server asks the user for input in the middle of a call (MCP 2025-11-25
 * `elicitation/create`; at 2026-07-28 the same request embedded in an `input_required` answer).
 * Two forms: a **form** whose fields a restricted JSON Schema describes (a flat object of
 * strings, numbers, booleans, single and multiple choices), or a **URL** the user opens in the
 * browser. This module reads the schema into fields (refusing anything outside the subset, with
 * why), checks an answer against them, and describes what the window shows.
 */
import { z } from 'zod';

/** At most this many fields in one form, options in one choice, characters in one text. */
export const ELICITATION_LIMITS = { fields: 32, options: 100, message: 4_000, title: 200, description: 1_000, text: 10_000 } as const;

const STRING_FORMATS = ['email', 'uri', 'date', 'date-time'] as const;

export interface ElicitOption {
  value: string;
  label: string;
}

interface FieldBase {
  name: string;
  title?: string;
  description?: string;
  required: boolean;
}

export type ElicitField =
  | (FieldBase & { kind: 'string'; minLength?: number; maxLength?: number; format?: (typeof STRING_FORMATS)[number]; default?: string })
  | (FieldBase & { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'enum'; options: ElicitOption[]; default?: string })
  | (FieldBase & { kind: 'multi'; options: ElicitOption[]; minItems?: number; maxItems?: number; default?: string[] });

export type ElicitValue = string | number | boolean | string[];

const ElicitOptionSchema = z.object({ value: z.string(), label: z.string() }).strict();
const FieldBaseShape = { name: z.string(), title: z.string().optional(), description: z.string().optional(), required: z.boolean() };
export const ElicitFieldSchema: z.ZodType<ElicitField> = z.discriminatedUnion('kind', [
  z.object({ ...FieldBaseShape, kind: z.literal('string'), minLength: z.number().optional(), maxLength: z.number().optional(), format: z.enum(STRING_FORMATS).optional(), default: z.string().optional() }).strict(),
  z.object({ ...FieldBaseShape, kind: z.literal('number'), integer: z.boolean(), minimum: z.number().optional(), maximum: z.number().optional(), default: z.number().optional() }).strict(),
  z.object({ ...FieldBaseShape, kind: z.literal('boolean'), default: z.boolean().optional() }).strict(),
  z.object({ ...FieldBaseShape, kind: z.literal('enum'), options: z.array(ElicitOptionSchema), default: z.string().optional() }).strict(),
  z.object({ ...FieldBaseShape, kind: z.literal('multi'), options: z.array(ElicitOptionSchema), minItems: z.number().optional(), maxItems: z.number().optional(), default: z.array(z.string()).optional() }).strict(),
]);

export const ElicitValueSchema = z.union([z.string().max(ELICITATION_LIMITS.text), z.number(), z.boolean(), z.array(z.string().max(ELICITATION_LIMITS.text)).max(ELICITATION_LIMITS.options)]);
export const ElicitActionSchema = z.enum(['accept', 'decline', 'cancel']);
export type ElicitAction = z.infer<typeof ElicitActionSchema>;

/** A question waiting for the user, as the window shows it. */
export const ElicitationRequestSchema = z
  .object({
    id: z.string(),
    /** The MCP server's bundle, and its name as the user gave it. */
    bundleId: z.string(),
    server: z.string(),
    /** The tool whose call asks, when known. */
    tool: z.string().optional(),
    /** The call that asks, when known: its card shows the question in place. */
    invocationId: z.string().optional(),
    mode: z.enum(['form', 'url']),
    /** The server's own words. */
    message: z.string(),
    fields: z.array(ElicitFieldSchema).optional(),
    url: z.string().optional(),
    requestedAt: z.string(),
    expiresAt: z.string(),
  })
  .strict();
export type ElicitationRequest = z.infer<typeof ElicitationRequestSchema>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' ? v.slice(0, max) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const optional = <K extends string, V>(key: K, v: V | undefined): Partial<Record<K, V>> => (v === undefined ? {} : ({ [key]: v } as Record<K, V>));

/** The options of a choice: `enum` (with legacy `enumNames`), or `oneOf`/`anyOf` of `{const, title}`. */
function optionsOf(s: Record<string, unknown>, where: string): ElicitOption[] | string {
  let options: ElicitOption[] | undefined;
  if (Array.isArray(s.enum)) {
    if (!s.enum.every((v) => typeof v === 'string')) return `${where}: a choice's values must be text`;
    const names = Array.isArray(s.enumNames) ? s.enumNames : [];
    options = (s.enum as string[]).map((v, i) => ({ value: v, label: (typeof names[i] === 'string' ? (names[i] as string) : v).slice(0, ELICITATION_LIMITS.title) }));
  } else {
    const list = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
    if (!list) return `${where}: not a choice`;
    options = [];
    for (const o of list) {
      if (!isObj(o) || typeof o.const !== 'string') return `${where}: each option must be {const, title} with text as its const`;
      options.push({ value: o.const, label: str(o.title, ELICITATION_LIMITS.title) ?? o.const.slice(0, ELICITATION_LIMITS.title) });
    }
  }
  if (options.length === 0) return `${where}: a choice needs at least one option`;
  if (options.some((o) => o.value.length > ELICITATION_LIMITS.title)) return `${where}: an option's value is longer than ${ELICITATION_LIMITS.title} characters`;
  if (options.length > ELICITATION_LIMITS.options) return `${where}: at most ${ELICITATION_LIMITS.options} options`;
  if (new Set(options.map((o) => o.value)).size !== options.length) return `${where}: an option is listed twice`;
  return options;
}

function fieldOf(name: string, s: unknown, required: boolean): ElicitField | string {
  const where = `field '${name.slice(0, 60)}'`;
  if (!isObj(s)) return `${where}: its schema is not an object`;
  const base = { name, required, ...optional('title', str(s.title, ELICITATION_LIMITS.title)), ...optional('description', str(s.description, ELICITATION_LIMITS.description)) };
  if (s.type === 'string' && (Array.isArray(s.enum) || Array.isArray(s.oneOf) || Array.isArray(s.anyOf))) {
    const options = optionsOf(s, where);
    if (typeof options === 'string') return options;
    const d = typeof s.default === 'string' && options.some((o) => o.value === s.default) ? s.default : undefined;
    return { ...base, kind: 'enum', options, ...optional('default', d) };
  }
  if (s.type === 'string') {
    if (s.format !== undefined && !(STRING_FORMATS as readonly unknown[]).includes(s.format)) return `${where}: the format '${String(s.format).slice(0, 40)}' is not one a form can ask for (email, uri, date, date-time)`;
    return {
      ...base,
      kind: 'string',
      ...optional('minLength', num(s.minLength)),
      ...optional('maxLength', num(s.maxLength)),
      ...optional('format', s.format as (typeof STRING_FORMATS)[number] | undefined),
      ...optional('default', str(s.default, ELICITATION_LIMITS.text)),
    };
  }
  if (s.type === 'number' || s.type === 'integer') {
    return { ...base, kind: 'number', integer: s.type === 'integer', ...optional('minimum', num(s.minimum)), ...optional('maximum', num(s.maximum)), ...optional('default', num(s.default)) };
  }
  if (s.type === 'boolean') return { ...base, kind: 'boolean', ...optional('default', typeof s.default === 'boolean' ? s.default : undefined) };
  if (s.type === 'array') {
    if (!isObj(s.items)) return `${where}: a list must say what it holds (items)`;
    const options = optionsOf({ type: 'string', ...s.items }, where);
    if (typeof options === 'string') return `${where}: a list can only be a multiple choice of text options`;
    const d = Array.isArray(s.default) && s.default.every((v) => typeof v === 'string' && options.some((o) => o.value === v)) ? (s.default as string[]) : undefined;
    return { ...base, kind: 'multi', options, ...optional('minItems', num(s.minItems)), ...optional('maxItems', num(s.maxItems)), ...optional('default', d) };
  }
  return `${where}: the type '${String(s.type).slice(0, 40)}' is not one a form can ask for (text, number, yes/no, a choice)`;
}

/** A requested schema read into fields; a string says why it is outside what a form can ask. */
export function elicitationFields(schema: unknown): ElicitField[] | string {
  if (!isObj(schema) || schema.type !== 'object' || !isObj(schema.properties)) return 'the form must be an object schema with properties';
  const names = Object.keys(schema.properties);
  if (names.length > ELICITATION_LIMITS.fields) return `the form asks for ${names.length} fields; at most ${ELICITATION_LIMITS.fields} are shown`;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const unknown = required.find((r) => !names.includes(r));
  if (unknown !== undefined) return `the form requires '${unknown.slice(0, 60)}', which it does not describe`;
  const fields: ElicitField[] = [];
  for (const name of names) {
    if (name === '__proto__' || name.length > 200) return `a field's name is not allowed`;
    const f = fieldOf(name, schema.properties[name], required.includes(name));
    if (typeof f === 'string') return f;
    fields.push(f);
  }
  return fields;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** RFC 3339 date and time, with seconds and a zone (what servers' format checks take). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function valueProblem(f: ElicitField, v: unknown): string | undefined {
  const label = f.title ?? f.name;
  switch (f.kind) {
    case 'string': {
      if (typeof v !== 'string') return `${label}: text is expected`;
      if (f.minLength !== undefined && v.length < f.minLength) return `${label}: at least ${f.minLength} characters`;
      if (f.maxLength !== undefined && v.length > f.maxLength) return `${label}: at most ${f.maxLength} characters`;
      if (v.length > ELICITATION_LIMITS.text) return `${label}: at most ${ELICITATION_LIMITS.text} characters`;
      if (f.format === 'email' && !EMAIL.test(v)) return `${label}: an e-mail address is expected`;
      if (f.format === 'uri' && !URL.canParse(v)) return `${label}: a URL is expected`;
      if (f.format === 'date' && !(DATE.test(v) && !Number.isNaN(Date.parse(v)))) return `${label}: a date (YYYY-MM-DD) is expected`;
      if (f.format === 'date-time' && !(DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)))) return `${label}: a date and time is expected`;
      return undefined;
    }
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return `${label}: a number is expected`;
      if (f.integer && !Number.isInteger(v)) return `${label}: a whole number is expected`;
      if (f.minimum !== undefined && v < f.minimum) return `${label}: at least ${f.minimum}`;
      if (f.maximum !== undefined && v > f.maximum) return `${label}: at most ${f.maximum}`;
      return undefined;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `${label}: yes or no is expected`;
    case 'enum':
      return typeof v === 'string' && f.options.some((o) => o.value === v) ? undefined : `${label}: one of the options is expected`;
    case 'multi': {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && f.options.some((o) => o.value === x))) return `${label}: options from the list are expected`;
      if (new Set(v).size !== v.length) return `${label}: an option is chosen twice`;
      if (f.minItems !== undefined && v.length < f.minItems) return `${label}: choose at least ${f.minItems}`;
      if (f.maxItems !== undefined && v.length > f.maxItems) return `${label}: choose at most ${f.maxItems}`;
      return undefined;
    }
  }
}

/** Why an accepted answer does not fit its form (the first problem), or undefined when it does. */
export function elicitationContentProblem(fields: readonly ElicitField[], content: unknown): string | undefined {
  if (!isObj(content)) return 'the answer must be an object of fields';
  for (const key of Object.keys(content)) if (!fields.some((f) => f.name === key)) return `the form has no field '${key.slice(0, 60)}'`;
  for (const f of fields) {
    const v = content[f.name];
    if (v === undefined || v === '') {
      if (f.required) return `${f.title ?? f.name}: required`;
      continue;
    }
    const problem = valueProblem(f, v);
    if (problem) return problem;
  }
  return undefined;
}

/** The form's starting values: each field's default where it has one. */
export function elicitationDefaults(fields: readonly ElicitField[]): Record<string, ElicitValue> {
  const out: Record<string, ElicitValue> = {};
  for (const f of fields) if (f.default !== undefined) out[f.name] = f.default;
  return out;
}
