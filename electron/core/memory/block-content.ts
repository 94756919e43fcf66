/**
 * A block's content in its Loro document, by schema: Text is a LoroText, List a LoroList of
 * strings, Map and Composite a LoroMap of JSON values, each under the root name `content`.
 * `render` is what a model reads of it, and its length is the block's size (the character
 * limit counts it).
 */
import type { LoroDoc } from 'loro-crdt';
import { AppError } from '../../../shared/errors';
import type { BlockSchema } from '../../../shared/model/memory';

export const ROOT = 'content';

export type BlockValue = string | string[] | Record<string, unknown>;

export function valueOf(doc: LoroDoc, schema: BlockSchema): BlockValue {
  switch (schema.kind) {
    case 'Text':
      return doc.getText(ROOT).toString();
    case 'List':
      return doc.getList(ROOT).toJSON() as string[];
    case 'Map':
    case 'Composite':
      return doc.getMap(ROOT).toJSON() as Record<string, unknown>;
  }
}

/** What a model reads: Text as written, a List one `- item` per line, a Map as JSON. */
export function render(value: BlockValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => `- ${v}`).join('\n');
  return Object.keys(value).length === 0 ? '{}' : JSON.stringify(value, null, 2);
}

/** Checks initial content against the schema; absent content is the schema's empty value. */
export function initialValue(schema: BlockSchema, content: unknown): BlockValue {
  switch (schema.kind) {
    case 'Text':
      if (content === undefined) return '';
      if (typeof content !== 'string') throw new AppError('VALIDATION_FAILED', 'a Text block\'s content is a string', { field: 'content' });
      return content;
    case 'List':
      if (content === undefined) return [];
      if (!Array.isArray(content) || content.some((x) => typeof x !== 'string')) throw new AppError('VALIDATION_FAILED', 'a List block\'s content is a list of strings', { field: 'content' });
      return content as string[];
    case 'Map':
    case 'Composite': {
      if (content === undefined) return schema.kind === 'Composite' ? Object.fromEntries(schema.fields.map((f) => [f.name, null])) : {};
      if (typeof content !== 'object' || content === null || Array.isArray(content)) throw new AppError('VALIDATION_FAILED', `a ${schema.kind} block's content is an object`, { field: 'content' });
      if (schema.kind === 'Composite') {
        const names = new Set(schema.fields.map((f) => f.name));
        const extra = Object.keys(content).filter((k) => !names.has(k));
        if (extra.length) throw new AppError('VALIDATION_FAILED', `a Composite block has only the fields ${[...names].join(', ')}; not ${extra.join(', ')}`, { field: 'content' });
        return { ...Object.fromEntries(schema.fields.map((f) => [f.name, null])), ...(content as Record<string, unknown>) };
      }
      return content as Record<string, unknown>;
    }
  }
}

/** Writes `value` over the document's content (the document diffs it into operations). */
export function writeValue(doc: LoroDoc, schema: BlockSchema, value: BlockValue): void {
  switch (schema.kind) {
    case 'Text':
      doc.getText(ROOT).update(value as string);
      return;
    case 'List': {
      const list = doc.getList(ROOT);
      const items = value as string[];
      const old = list.toJSON() as string[];
      // Keep the common prefix: an append is an insert at the end, not a rewrite.
      let same = 0;
      while (same < old.length && same < items.length && old[same] === items[same]) same++;
      if (old.length > same) list.delete(same, old.length - same);
      for (let i = same; i < items.length; i++) list.insert(i, items[i]);
      return;
    }
    case 'Map':
    case 'Composite': {
      const map = doc.getMap(ROOT);
      const obj = value as Record<string, unknown>;
      for (const k of map.keys()) if (!(k in obj)) map.delete(k);
      for (const [k, v] of Object.entries(obj)) {
        if (JSON.stringify(map.get(k)) !== JSON.stringify(v)) map.set(k, v as never);
      }
      return;
    }
  }
}
