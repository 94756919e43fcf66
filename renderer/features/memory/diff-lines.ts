/**
 * Unified diffs as the memory views show them: a consent card's diff (made by the core) and
 * the diff between two versions of a block (made here), split into lines that each say what
 * they are, so a line's colour never carries its meaning alone (each keeps its + or -).
 */
import { createTwoFilesPatch } from 'diff';

export type DiffLineKind = 'add' | 'remove' | 'same' | 'hunk' | 'header';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/** Lines of a unified diff; the `Index:`, `===` and `\ No newline at end of file` lines are left out. */
export function diffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  const lines = diff.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const text of lines) {
    if (text.startsWith('Index: ') || /^=+$/.test(text) || text.startsWith('\\')) continue;
    if (text.startsWith('--- ') || text.startsWith('+++ ')) out.push({ kind: 'header', text });
    else if (text.startsWith('@@')) out.push({ kind: 'hunk', text });
    else if (text.startsWith('+')) out.push({ kind: 'add', text });
    else if (text.startsWith('-')) out.push({ kind: 'remove', text });
    else out.push({ kind: 'same', text });
  }
  return out;
}

/** The diff between two texts (older first), as lines; no change: no lines. */
export function textDiff(before: string, after: string, names: { before: string; after: string }): DiffLine[] {
  if (before === after) return [];
  return diffLines(createTwoFilesPatch(names.before, names.after, before, after, '', '', { context: 3 }));
}

/** How many lines a diff adds and removes. */
export function diffCounts(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'remove') removed++;
  }
  return { added, removed };
}
