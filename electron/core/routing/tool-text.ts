/**
 * The text a routed tool result is written as.
 *
 * - A string result: as it is.
 * - An object result whose tool marks one top-level string property of its outputSchema
 *   with `contentMediaType` (JSON Schema's content vocabulary, e.g. readfile's `content`
 *   and fetch-url's `text`): that property's text. A buffer of a file then holds the file's
 *   lines, not a JSON document with one escaped line.
 * - Anything else: indented JSON (an absent value is empty text).
 */
import type { ToolView } from '../../../shared/model/tool';

/** The name of the outputSchema property that holds a tool's text, if it marks one. */
export function textProperty(outputSchema: unknown): string | undefined {
  if (!isObject(outputSchema) || !isObject(outputSchema.properties)) return undefined;
  const marked = Object.entries(outputSchema.properties).filter(
    ([, p]) => isObject(p) && typeof p.contentMediaType === 'string' && (p.type === 'string' || (Array.isArray(p.type) && p.type.includes('string'))),
  );
  return marked.length === 1 ? marked[0]![0] : undefined;
}

export function routedText(value: unknown, tool?: Pick<ToolView, 'outputSchema'>): string {
  if (typeof value === 'string') return value;
  const field = tool ? textProperty(tool.outputSchema) : undefined;
  if (field && isObject(value) && typeof value[field] === 'string') return value[field];
  return JSON.stringify(value, null, 2) ?? '';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
