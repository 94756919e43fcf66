/**
 * What `tool_search` tells a model of each tool it found, in few tokens: the description's
 * opening (markup dropped, cut at a sentence or at MAX_SUMMARY_CHARS) and the arguments as
 * `name*: type` (`*` required, enums listed when short). The full schema follows in the
 * tool list of the next step.
 */
import { plainText } from './text';

export const MAX_SUMMARY_CHARS = 240;
export const MAX_ARGS_SHOWN = 12;
const MAX_ENUM_SHOWN = 6;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The opening of a description: whole sentences up to MAX_SUMMARY_CHARS, else a cut with an ellipsis. */
export function shortDescription(text: string, max = MAX_SUMMARY_CHARS): string {
  const t = plainText(text).replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
  return end >= max / 3 ? cut.slice(0, end + 1) : `${cut.slice(0, max - 1).trimEnd()}…`;
}

function typeOf(s: unknown): string {
  if (!isObj(s)) return 'any';
  if (Array.isArray(s.enum) && s.enum.length <= MAX_ENUM_SHOWN) return s.enum.map((v) => JSON.stringify(v)).join('|');
  if (Array.isArray(s.type)) return s.type.filter((t) => t !== 'null').join('|') || 'null';
  if (typeof s.type === 'string') return s.type === 'array' ? `${typeOf(s.items)}[]` : s.type;
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) return 'one of several';
  return 'any';
}

/** The arguments of an argSchema as `a*: string, b: integer, …` (required first). */
export function argsSummary(schema: unknown): string {
  if (!isObj(schema) || !isObj(schema.properties)) return '';
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const entries = Object.entries(schema.properties).sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)));
  const shown = entries.slice(0, MAX_ARGS_SHOWN).map(([name, s]) => `${name}${required.has(name) ? '*' : ''}: ${typeOf(s)}`);
  if (entries.length > MAX_ARGS_SHOWN) shown.push(`… ${entries.length - MAX_ARGS_SHOWN} more`);
  return shown.join(', ');
}
