/**
 * Turns a zod failure into the store's error: VALIDATION_FAILED with `{field, rule}` and
 * a message that names the field. Only the first issue is reported; all issues are
 * kept in `details.issues` for a form that wants to mark every field.
 */
import type { z } from 'zod';
import { AppError } from '../../../shared/errors';

const RULE_OF_CODE: Record<string, string> = {
  invalid_type: 'type',
  unrecognized_keys: 'unknown-field',
  too_big: 'max',
  too_small: 'min',
  invalid_value: 'one-of',
  invalid_format: 'format',
  invalid_union: 'type',
};

interface Issue {
  field: string;
  rule: string;
  message: string;
}

function fieldOf(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

/** `whole` names the value itself when an issue is about all of it. */
function describe(issue: z.core.$ZodIssue, prefix: string, whole: string): Issue {
  const field = fieldOf(prefix, issue.path);
  const shown = field || whole;
  const params = (issue as { params?: { rule?: unknown } }).params;
  const rule = typeof params?.rule === 'string' ? params.rule : (RULE_OF_CODE[issue.code] ?? issue.code);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `'${k}'`).join(', ');
    return { field: shown, rule, message: `${shown} has unknown field${issue.keys.length > 1 ? 's' : ''} ${keys}` };
  }
  if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message) && field) {
    return { field, rule: 'required', message: `${field} is required (${issue.expected})` };
  }
  // Our own rule messages already name their field ("slug may contain ..."); zod's do not.
  const leaf = [...issue.path].reverse().find((p) => typeof p === 'string');
  const named = typeof params?.rule === 'string' && typeof leaf === 'string' && issue.message.startsWith(leaf);
  return { field: shown, rule, message: named ? issue.message : `${shown}: ${issue.message}` };
}

/** Parses `value` or throws VALIDATION_FAILED; `prefix` names the whole value (e.g. 'body'). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => describe(i, prefix, 'the body'));
  const first = issues[0]!;
  throw new AppError('VALIDATION_FAILED', first.message, { field: first.field, rule: first.rule, issues: issues.slice(0, 50) });
}

/** The message of a failed parse, for problems found in files on disk. */
export function firstIssueMessage(error: z.ZodError, prefix = ''): string {
  const first = error.issues[0];
  return first ? describe(first, prefix, 'the file').message : 'does not match the schema';
}
