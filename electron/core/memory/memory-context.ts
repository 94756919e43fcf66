/**
 * What a model is given of its memory on every step (docs/design/memory.md: a pinned block
 * stays in context across batches):
 * - the pinned blocks of the memory the conversation uses, rendered after the system text,
 *   whole, in the order they were made, within a character budget; a block that does not fit
 *   is left out and the text says so (with its size), so the model knows to `block load` it;
 * - an unpinned block's content reaches the model only in the batch (the turn) that loaded
 *   it: a `block load` result of an earlier turn is rendered as a short note instead.
 */
import type { ToolCard } from '../../../shared/model/conversation';
import type { BlockStore } from './block-store';

/** Characters of pinned blocks given to a model on each step. */
export const PINNED_BUDGET_CHARS = 8_000;

export const MEMORY_HEADING = '# Memory: pinned blocks';

export const pinnedLeftOut = (labels: { label: string; size: number }[], budget: number) =>
  `[${labels.length} pinned block${labels.length === 1 ? '' : 's'} left out, over the memory budget of ${budget.toLocaleString('en-US')} characters: ${labels
    .map((b) => `'${b.label}' (${b.size.toLocaleString('en-US')} characters)`)
    .join(', ')}; read ${labels.length === 1 ? 'it' : 'them'} with block load]`;

export const loadedEarlier = (label: string) =>
  `[block '${label}' was loaded in an earlier batch; an unpinned block's content stays only in the batch that loaded it: load it again to read it, or pin it to keep it in context]`;

/** The pinned blocks of `owner` as the text after the system prompt; undefined when none is pinned. */
export function pinnedContext(blocks: Pick<BlockStore, 'list' | 'view'>, owner: string, budget = PINNED_BUDGET_CHARS): string | undefined {
  const pinned = blocks
    .list(owner)
    .filter((b) => b.pinned)
    // Oldest first; blocks made in the same millisecond in the order they were made (their ids are time-ordered).
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (pinned.length === 0) return undefined;
  const parts: string[] = [];
  const out: { label: string; size: number }[] = [];
  let used = 0;
  for (const b of pinned) {
    if (used + b.size > budget) {
      out.push({ label: b.label, size: b.size });
      continue;
    }
    used += b.size;
    const v = blocks.view(owner, b.label);
    parts.push(`<block label="${attr(b.label)}" schema="${b.schema.kind}" type="${b.type}" permission="${b.permission}" size="${b.size}/${b.charLimit}">\n${v.text}\n</block>`);
  }
  if (out.length) parts.push(pinnedLeftOut(out, budget));
  return `${MEMORY_HEADING}\n\n${parts.join('\n\n')}`;
}

/** A `block load` or `file load` result: what a later batch is told instead of the content. */
export function loadedBlockNote(card: ToolCard, blockFunctionBundle: (bundleId: string) => boolean): string | undefined {
  // `block load` and `file load` (a file's content is its block's) both load a block.
  if ((card.slug !== 'block' && card.slug !== 'file') || card.status !== 'ok' || !blockFunctionBundle(card.bundleId)) return undefined;
  const v = card.value as { op?: unknown; block?: { label?: unknown }; label?: unknown } | undefined;
  const label = typeof v?.block?.label === 'string' ? v.block.label : typeof v?.label === 'string' ? v.label : undefined;
  if (v?.op !== 'load' || label === undefined) return undefined;
  return loadedEarlier(label);
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
