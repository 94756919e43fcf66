/**
 * Diffs as the app shows them: a memory consent card's diff (made by the core), the diff
 * between two versions of a block, a failed test case's expected and actual value, a chat
 * call's result and the same call run again in the tester. Unified diffs are split into lines
 * that each say what they are, so a line's colour never carries its meaning alone (each keeps
 * its + or -); side by side, each row says which side changed.
 */
import { createTwoFilesPatch, diffLines as diffTextLines } from 'diff';

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

// ---- JSON values compared: a test case's expected and actual value, a chat call and its replay ----

/** Texts longer than this (either side) are not diffed here: the two values are shown as they are. */
export const MAX_DIFF_CHARS = 200_000;
/** Past this many changed lines a diff is not worth reading line by line (and costs too much to make). */
const MAX_EDIT_LENGTH = 5_000;
/** A value shorter than this many lines is shown whole in a unified diff; a longer one around its changes. */
const WHOLE_LINES = 200;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A JSON value as text to compare: indented, object keys sorted (key order never makes two
 * values differ, as in the test cases' comparison), `undefined` as `(no value)`.
 */
export function jsonText(value: unknown): string {
  if (value === undefined) return '(no value)';
  try {
    return JSON.stringify(value, (_k, v: unknown) => (isPlainObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v), 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export type JsonDiff =
  | { kind: 'same' }
  /** Too large or too different to show line by line. */
  | { kind: 'too-large' }
  | { kind: 'diff'; lines: DiffLine[]; added: number; removed: number };

/** A unified diff of two JSON values (expected first), keys sorted. */
export function jsonDiff(expected: unknown, actual: unknown, names: { before: string; after: string }): JsonDiff {
  const before = jsonText(expected);
  const after = jsonText(actual);
  if (before === after) return { kind: 'same' };
  if (before.length > MAX_DIFF_CHARS || after.length > MAX_DIFF_CHARS) return { kind: 'too-large' };
  const longest = Math.max(countLines(before), countLines(after));
  const patch = createTwoFilesPatch(names.before, names.after, `${before}\n`, `${after}\n`, '', '', { context: longest <= WHOLE_LINES ? WHOLE_LINES : 5, maxEditLength: MAX_EDIT_LENGTH });
  if (patch === undefined) return { kind: 'too-large' };
  const lines = diffLines(patch);
  return { kind: 'diff', lines, ...diffCounts(lines) };
}

/** One side of a row of a side-by-side diff: the line number on its side, the text, and what it is. */
export interface SplitCell {
  n: number;
  text: string;
  kind: 'same' | 'remove' | 'add';
}

/** A row of a side-by-side diff; a side is absent where the other side has a line it lacks. */
export interface SplitRow {
  left?: SplitCell;
  right?: SplitCell;
}

export type SplitDiff = { kind: 'same'; rows: SplitRow[] } | { kind: 'too-large' } | { kind: 'diff'; rows: SplitRow[]; added: number; removed: number };

/**
 * Two JSON values side by side, line against line: unchanged lines on both sides, a removed
 * line on the left facing the line added in its place on the right.
 */
export function splitJsonDiff(before: unknown, after: unknown): SplitDiff {
  const a = jsonText(before);
  const b = jsonText(after);
  // Equal values are the same at any size (their lines are not drawn when too many to show).
  if (a === b && a.length > MAX_DIFF_CHARS) return { kind: 'same', rows: [] };
  if (a.length > MAX_DIFF_CHARS || b.length > MAX_DIFF_CHARS) return { kind: 'too-large' };
  const changes = diffTextLines(`${a}\n`, `${b}\n`, { maxEditLength: MAX_EDIT_LENGTH });
  if (changes === undefined) return { kind: 'too-large' };
  const rows: SplitRow[] = [];
  let left = 0;
  let right = 0;
  let added = 0;
  let removed = 0;
  const linesOf = (value: string) => {
    const ls = value.split('\n');
    if (ls.at(-1) === '') ls.pop();
    return ls;
  };
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!;
    if (!c.added && !c.removed) {
      for (const text of linesOf(c.value)) rows.push({ left: { n: ++left, text, kind: 'same' }, right: { n: ++right, text, kind: 'same' } });
      continue;
    }
    // A removal followed by an addition is a change: the lines face each other.
    const next = changes[i + 1];
    const gone = c.removed ? linesOf(c.value) : [];
    const come = c.added ? linesOf(c.value) : next?.added && c.removed ? linesOf(next.value) : [];
    if (c.removed && next?.added) i++;
    removed += gone.length;
    added += come.length;
    for (let k = 0; k < Math.max(gone.length, come.length); k++) {
      rows.push({
        ...(k < gone.length ? { left: { n: ++left, text: gone[k]!, kind: 'remove' as const } } : {}),
        ...(k < come.length ? { right: { n: ++right, text: come[k]!, kind: 'add' as const } } : {}),
      });
    }
  }
  return added === 0 && removed === 0 ? { kind: 'same', rows } : { kind: 'diff', rows, added, removed };
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
