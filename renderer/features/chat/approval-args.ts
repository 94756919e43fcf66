/** The arguments of a call waiting for approval, as the user edits them (JSON text). */
import { chatStrings } from '../../i18n/chat-strings';

export type ParsedArgs = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

export function argsText(args: unknown): string {
  if (args === undefined) return '{}';
  try {
    return JSON.stringify(args, null, 2) ?? '{}';
  } catch {
    return '{}';
  }
}

/** A tool's arguments are one JSON object. */
export function parseArgs(text: string): ParsedArgs {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: chatStrings.approval.invalidJson((e as Error).message) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: chatStrings.approval.notObject };
  return { ok: true, value: value as Record<string, unknown> };
}

/** What to send with the decision: the edited arguments, or nothing when they are unchanged. */
export function editedArgs(original: unknown, text: string): { args?: Record<string, unknown>; error?: string } {
  const parsed = parseArgs(text);
  if (!parsed.ok) return { error: parsed.message };
  return sameJson(original, parsed.value) ? {} : { args: parsed.value };
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
