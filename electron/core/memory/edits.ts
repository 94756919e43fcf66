/**
 * What a `block_edit` call would make of a block, before anything changes: the content after
 * it (the service checks its size and may show it to the human) and how to make it in the
 * Loro document (an insert at the end for an append, a diff otherwise). Every error says
 * what to do instead.
 */
import { applyPatch } from 'diff';
import type { LoroDoc, LoroList, LoroText } from 'loro-crdt';
import { AppError } from '../../../shared/errors';
import { render, ROOT, writeValue, type BlockValue } from './block-content';
import type { BlockRef, PlannedEdit } from './block-store';

export interface BlockEditInput {
  op: 'append' | 'replace' | 'patch' | 'set_field';
  label: string;
  content?: string;
  old?: string;
  new?: string;
  field?: string;
  value?: unknown;
  patch?: string;
}

export interface EditPlan extends PlannedEdit {
  /** What was done, for the tool's message. */
  done: string;
}

/** A plan whose content is known: its size is its rendering's. */
function whole(next: BlockValue, done: string, apply: (doc: LoroDoc) => void): EditPlan {
  return { size: render(next).length, next: () => next, apply, done };
}

const need = (op: string, field: string, what: string) => new AppError('VALIDATION_FAILED', `${op} needs ${field}: ${what}`, { field });

export const wrongSchema = (op: string, label: string, kind: string, works: string, instead: string) =>
  `${op} works on ${works} blocks; '${label}' is a ${kind} block: ${instead}`;

export const replaceMatches = (label: string, n: number) =>
  n === 0
    ? `replace found no match of old in block '${label}': old must be copied exactly from the block (load it to see its content)`
    : `replace found ${n} matches of old in block '${label}': it must match exactly once; give more of the surrounding text so it does`;

export const patchDoesNotApply = (label: string, why?: string) =>
  `the patch does not apply to block '${label}'${why ? ` (${why})` : ''}: its context and removed lines must match the block's content exactly; load the block and make the diff against it`;

export function planEdit(block: BlockRef, input: BlockEditInput): EditPlan {
  const { schema, label } = block.info;
  const kind = schema.kind;
  switch (input.op) {
    case 'append': {
      if (input.content === undefined || input.content === '') throw need('append', 'content', 'the text to add');
      const content = input.content;
      if (kind === 'Text') {
        // A new line between the old text and the new, unless there is one already. The
        // size is known without reading the text: an append stays cheap on a long block.
        const size = block.info.size;
        const last = block.lastChar();
        const add = size === 0 || last === '\n' ? content : `\n${content}`;
        return {
          size: size + add.length,
          next: () => (block.content() as string) + add,
          apply: (doc) => (doc.getText(ROOT) as LoroText).insert(size, add),
          done: `appended ${content.length} characters`,
        };
      }
      if (kind === 'List') {
        const cur = block.content() as string[];
        return whole([...cur, content], `appended item ${cur.length + 1}`, (doc) => (doc.getList(ROOT) as LoroList).push(content));
      }
      throw new AppError('VALIDATION_FAILED', wrongSchema('append', label, kind, 'Text and List', 'use set_field'), { field: 'op' });
    }
    case 'replace': {
      if (kind !== 'Text') throw new AppError('VALIDATION_FAILED', wrongSchema('replace', label, kind, 'Text', kind === 'List' ? 'use append' : 'use set_field'), { field: 'op' });
      if (input.old === undefined || input.old === '') throw need('replace', 'old', 'the exact text to replace, as it is in the block');
      if (input.new === undefined) throw need('replace', 'new', 'the text to put in its place (empty to delete it)');
      const cur = block.content() as string;
      const n = countOf(cur, input.old);
      if (n !== 1) throw new AppError(n === 0 ? 'NOT_FOUND' : 'CONFLICT', replaceMatches(label, n), { field: 'old', matches: n });
      const at = cur.indexOf(input.old);
      const old = input.old;
      const replacement = input.new;
      return whole(cur.slice(0, at) + replacement + cur.slice(at + old.length), `replaced ${old.length} characters with ${replacement.length}`, (doc) => {
        doc.getText(ROOT).splice(at, old.length, replacement);
      });
    }
    case 'patch': {
      if (kind !== 'Text') throw new AppError('VALIDATION_FAILED', wrongSchema('patch', label, kind, 'Text', kind === 'List' ? 'use append' : 'use set_field'), { field: 'op' });
      if (input.patch === undefined || !input.patch.trim()) throw need('patch', 'patch', 'a unified diff of the block');
      const cur = block.content() as string;
      let out: string | false;
      try {
        out = applyPatch(cur, input.patch);
      } catch (e) {
        throw new AppError('VALIDATION_FAILED', patchDoesNotApply(label, `it is not a unified diff: ${(e as Error).message}`), { field: 'patch' });
      }
      if (out === false) throw new AppError('CONFLICT', patchDoesNotApply(label), { field: 'patch' });
      if (out === cur) throw new AppError('VALIDATION_FAILED', patchDoesNotApply(label, 'it has no hunk that changes anything'), { field: 'patch' });
      const next = out;
      return whole(next, 'applied the patch', (doc) => writeValue(doc, schema, next));
    }
    case 'set_field': {
      if (kind !== 'Map' && kind !== 'Composite') throw new AppError('VALIDATION_FAILED', wrongSchema('set_field', label, kind, 'Map and Composite', kind === 'Text' ? 'use append, replace or patch' : 'use append'), { field: 'op' });
      if (input.field === undefined || input.field === '') throw need('set_field', 'field', 'the name of the field to set');
      if (input.value === undefined) throw need('set_field', 'value', 'the field\'s new value (any JSON)');
      const field = input.field;
      if (schema.kind === 'Composite') {
        const f = schema.fields.find((x) => x.name === field);
        if (!f) throw new AppError('VALIDATION_FAILED', `block '${label}' has no field '${field}'; its fields: ${schema.fields.map((x) => x.name).join(', ')}`, { field: 'field' });
        if (f.read_only) throw new AppError('FORBIDDEN', `refused by block schema: field '${field}' of block '${label}' is read_only`, { layer: 'block schema', field: 'field' });
      } else if (field.length > 100) throw new AppError('VALIDATION_FAILED', 'a field name has at most 100 characters', { field: 'field' });
      const value = input.value;
      return whole({ ...(block.content() as Record<string, unknown>), [field]: value }, `set field '${field}'`, (doc) => doc.getMap(ROOT).set(field, value as never));
    }
  }
}

function countOf(text: string, sub: string): number {
  let n = 0;
  for (let i = text.indexOf(sub); i !== -1; i = text.indexOf(sub, i + sub.length)) n++;
  return n;
}
