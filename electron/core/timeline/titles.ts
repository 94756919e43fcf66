/**
 * Titles a conversation takes from what started it when that is not plain text: a message
 * of only directives is named by what they do (`Input: notes.md`, `Tools: weather`), a
 * tool run from the palette by the tool and its first argument (`Weather: Oslo`), never
 * by the raw directive text.
 */
import type { ParsedText } from '../../../shared/directives/types';

const MAX_ARG_CHARS = 60;

function lastSegment(value: string): string {
  const parts = value.split('/').filter(Boolean);
  return parts.at(-1) ?? value;
}

/** The title of a message that is only directives. */
export function directivesTitle(parsed: ParsedText): string {
  const parts: string[] = [];
  const inputs = parsed.directives.flatMap((d) => (d.kind === 'input' ? [d.source.scheme === 'file' ? lastSegment(d.source.value) : `${d.source.scheme}:${d.source.value}`] : []));
  if (inputs.length > 0) parts.push(`Input: ${inputs.join(', ')}`);
  const tools = parsed.tools.map((t) => lastSegment(t.name));
  if (tools.length > 0) parts.push(`Tools: ${tools.join(', ')}`);
  if (parts.length === 0 && parsed.model) parts.push(`Model: ${parsed.model}`);
  return parts.join(' · ');
}

/**
 * The title of a conversation a palette run starts: the tool, and the first short argument
 * the user gave. Its schema (`argSchema`) orders them: required arguments first, then the
 * others, each in the schema's order; a value that is only the argument's default (the form
 * fills those in) names the run last, not first.
 */
export function toolRunTitle(displayName: string, args: unknown, argSchema?: unknown): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return displayName;
  const values = args as Record<string, unknown>;
  const schema = (typeof argSchema === 'object' && argSchema !== null ? argSchema : {}) as { properties?: unknown; required?: unknown };
  const properties = (typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}) as Record<string, { default?: unknown } | undefined>;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const named = Object.keys(properties);
  const order = [...named.filter((k) => required.has(k)), ...named.filter((k) => !required.has(k)), ...Object.keys(values).filter((k) => !(k in properties))];
  const isDefault = (k: string) => properties[k]?.default !== undefined && properties[k]?.default === values[k];
  const keys = [...order.filter((k) => !isDefault(k)), ...order.filter(isDefault)];
  for (const k of keys) {
    const v = values[k];
    if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number' || typeof v === 'boolean') {
      const text = String(v).replace(/\s+/g, ' ').trim();
      return `${displayName}: ${text.length > MAX_ARG_CHARS ? `${text.slice(0, MAX_ARG_CHARS - 1)}…` : text}`;
    }
  }
  return displayName;
}
