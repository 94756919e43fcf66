/**
 * What Inspect → Memory decides from the data: which memories to offer (the open
 * conversation's first, then every other that has blocks), which versions to compare by
 * default, and whether undo and redo can do anything.
 */
import type { BlockInfo, BlockVersion } from '../../../shared/model/memory';

/** The memories to choose from: the open conversation's (even with no block yet), then the others with blocks, sorted. */
export function ownersOf(blocks: readonly Pick<BlockInfo, 'owner'>[], conversationId: string | null | undefined): string[] {
  const mine = conversationId ? `conversation:${conversationId}` : undefined;
  const others = [...new Set(blocks.map((b) => b.owner))].filter((o) => o !== mine).sort((a, b) => (a.startsWith('agent:') === b.startsWith('agent:') ? a.localeCompare(b) : a.startsWith('agent:') ? 1 : -1));
  return mine ? [mine, ...others] : others;
}

/** The default comparison: the version before the current one against the current one (absent with one version). */
export function defaultCompare(history: readonly BlockVersion[]): { from: number; to: number } | undefined {
  const current = history.find((v) => v.current) ?? history.at(-1);
  if (!current) return undefined;
  const before = history.filter((v) => v.seq < current.seq).at(-1);
  if (before) return { from: before.seq, to: current.seq };
  const after = history.find((v) => v.seq > current.seq);
  return after ? { from: current.seq, to: after.seq } : undefined;
}

export function canUndo(history: readonly BlockVersion[]): boolean {
  const current = history.find((v) => v.current);
  return !!current && current.seq > 1;
}

export function canRedo(history: readonly BlockVersion[]): boolean {
  return history.some((v) => v.undone);
}

/** A comparison's texts; undefined when a version is not in the history (any more). */
export function compared(history: readonly BlockVersion[], pick: { from: number; to: number }): { from: BlockVersion; to: BlockVersion } | undefined {
  const from = history.find((v) => v.seq === pick.from);
  const to = history.find((v) => v.seq === pick.to);
  return from && to ? { from, to } : undefined;
}

/** Who made a version, shortly: you, this conversation, or the end of another conversation's or task's id. */
export function byText(by: string, conversationId: string | null | undefined): string {
  if (by === 'user') return 'you';
  if (conversationId && by === conversationId) return 'this conversation';
  return by.length > 12 ? `…${by.slice(-8)}` : by;
}
