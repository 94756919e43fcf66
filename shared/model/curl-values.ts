/**
 * The values a curl command holds, kept in the tool it becomes (shared/model/curl.ts): each
 * argument lifted from the command gets the command's value as its `default`, so the tool runs
 * as pasted, and a JSON Schema type read from that value, so a model may send `{"days": 2}`.
 * Pure (no Node, no DOM), like curl.ts.
 *
 * Text (query parameters, path segments, form fields) is typed only when the type keeps the
 * exact text: the tool sends `String(value)`, so a value becomes a number only when it prints
 * back as itself (`2`, `-3`, `0.5`; not `007`, `1.0`, `1e3`, `+47`), and a whole number only
 * up to MAX_INTEGER_DIGITS digits (longer digit strings are ids, phone numbers or millisecond
 * times, which a model should copy as text). `true` and `false` are booleans. JSON values
 * keep their JSON type.
 *
 * A value shaped like a credential (a JWT, a token with a well-known vendor prefix) is never a
 * default: curl.ts treats it as a secret, as it does values under secret-like names.
 */
import type { JsonSchemaObject } from './tool';

/** Whole numbers with more digits than this stay text. */
export const MAX_INTEGER_DIGITS = 9;
/** Decimals with more significant digits than this stay text (beyond, a double may not print them back). */
const MAX_DECIMAL_DIGITS = 15;

export type ArgValue = string | number | boolean;

/** The typed value of a text value from the command: a number or boolean when that keeps the exact text, else the text. */
export function typedValue(text: string): ArgValue {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?(?:0|[1-9]\d*)$/.test(text)) {
    const digits = text.replace('-', '').length;
    // '-0' prints back as '0': it stays text.
    return digits <= MAX_INTEGER_DIGITS && String(Number(text)) === text ? Number(text) : text;
  }
  if (/^-?(?:0|[1-9]\d*)\.\d+$/.test(text)) {
    const significant = text.replace(/^-?0*\.?0*/, '').replace('.', '').length;
    return significant <= MAX_DECIMAL_DIGITS && String(Number(text)) === text ? Number(text) : text;
  }
  return text;
}

/** The schema of an argument whose value the command gave: its JSON type and that value as `default`. */
export function valueSchema(value: ArgValue, description: string): JsonSchemaObject {
  const type = typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : 'string';
  return { type, description, default: value };
}

const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /^eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*$/, // JWT
  /^(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{8,}$/, // Stripe secret and restricted keys
  /^sk-[A-Za-z0-9_-]{16,}$/, // OpenAI, Anthropic and others
  /^(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}$/, // GitHub
  /^github_pat_[A-Za-z0-9_]{20,}$/,
  /^glpat-[A-Za-z0-9_-]{20,}$/, // GitLab
  /^xox[abprs]-[A-Za-z0-9-]{10,}$/, // Slack
  /^AKIA[0-9A-Z]{16}$/, // AWS access key id
  /^AIza[0-9A-Za-z_-]{35}$/, // Google API key
  /^hf_[A-Za-z0-9]{20,}$/, // Hugging Face
];

/** Whether a value looks like a credential whatever its name: it must not be written into a tool. */
export function looksLikeCredential(value: string): boolean {
  return value.length <= 4096 && CREDENTIAL_SHAPES.some((re) => re.test(value));
}
