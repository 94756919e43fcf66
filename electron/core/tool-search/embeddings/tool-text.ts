/**
 * The text of a tool that is embedded: what it is called, by whom, what it does and what it
 * takes — the fields the word ranking reads (../document.ts), as prose, cut to a length every
 * embedding model accepts. The text is the cache's key: a tool whose words change is embedded
 * again; one whose id or stamp changes but not its words is not.
 */
import { toolFields, type ToolOfBundle } from '../document';

/** Characters embedded of a tool. */
export const MAX_TOOL_TEXT_CHARS = 2_000;

export function embeddingText(t: ToolOfBundle): string {
  const f = toolFields(t);
  const lines = [
    `${f.title.trim() || f.name} (${f.name}, ${f.bundle.trim()})`,
    f.description.trim(),
    f.args ? `Arguments: ${f.args}` : '',
    f.tags ? `Tags: ${f.tags}` : '',
    f.path.trim(),
  ];
  return lines.filter(Boolean).join('\n').slice(0, MAX_TOOL_TEXT_CHARS);
}
