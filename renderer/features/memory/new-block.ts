/** The "New block" form's content as memory.blocks.create takes it: Text as typed, List one item per line, Map a JSON object. */
export type NewBlockKind = 'Text' | 'List' | 'Map';

export function blockContent(kind: NewBlockKind, text: string): { ok: true; content: unknown } | { ok: false } {
  if (kind === 'Text') return { ok: true, content: text };
  if (kind === 'List') return { ok: true, content: text.split('\n').filter((l) => l.trim() !== '') };
  if (text.trim() === '') return { ok: true, content: {} };
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? { ok: true, content: v } : { ok: false };
  } catch {
    return { ok: false };
  }
}
