/**
 * The workspace tree of the Files tab as rows: folders listed lazily (one workspace.list per
 * expanded folder), folders first, flattened for rendering and keyboard moves. Pure, tested.
 */
import type { WorkspaceEntry } from '../../../shared/model/routing';

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Folders first, then by name as a person sorts them (`file2` before `file10`). */
export function sortEntries(entries: readonly WorkspaceEntry[]): WorkspaceEntry[] {
  return [...entries].sort((a, b) => Number(b.kind === 'dir') - Number(a.kind === 'dir') || collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The folders that hold a workspace path, outermost first: `a/b/c.md` -> `a`, `a/b`. */
export function parentPaths(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** What a folder's listing is: its entries, still loading, or failed. */
export type Listing = { status: 'ok'; entries: readonly WorkspaceEntry[] } | { status: 'loading' } | { status: 'error'; message: string };

export type TreeRow =
  | { kind: 'entry'; entry: WorkspaceEntry; level: number; expanded: boolean; posinset: number; setsize: number; parent: string | null }
  | { kind: 'note'; note: 'loading' | 'empty' | 'error'; message?: string; level: number; parent: string };

/** The rows shown: entries of the root, and of every expanded folder under its row. */
export function flattenTree(root: readonly WorkspaceEntry[], listing: (path: string) => Listing | undefined, expanded: ReadonlySet<string>): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (entries: readonly WorkspaceEntry[], level: number, parent: string | null) => {
    const sorted = sortEntries(entries);
    sorted.forEach((entry, i) => {
      const isOpen = entry.kind === 'dir' && expanded.has(entry.path);
      rows.push({ kind: 'entry', entry, level, expanded: isOpen, posinset: i + 1, setsize: sorted.length, parent });
      if (!isOpen) return;
      const l = listing(entry.path) ?? { status: 'loading' };
      if (l.status === 'loading') rows.push({ kind: 'note', note: 'loading', level: level + 1, parent: entry.path });
      else if (l.status === 'error') rows.push({ kind: 'note', note: 'error', message: l.message, level: level + 1, parent: entry.path });
      else if (l.entries.length === 0) rows.push({ kind: 'note', note: 'empty', level: level + 1, parent: entry.path });
      else walk(l.entries, level + 1, entry.path);
    });
  };
  walk(root, 1, null);
  return rows;
}

export type TreeAction =
  | { type: 'focus'; path: string }
  | { type: 'expand'; path: string }
  | { type: 'collapse'; path: string }
  | { type: 'open'; path: string }
  | { type: 'none' };

/**
 * What a key does on the focused row (the WAI-ARIA tree pattern): Up/Down/Home/End move,
 * Right expands a folder or enters it, Left collapses it or goes to the parent, Enter and
 * Space open a file or toggle a folder.
 */
export function treeKeyAction(rows: readonly TreeRow[], focusedPath: string, key: string): TreeAction {
  const entries = rows.filter((r): r is Extract<TreeRow, { kind: 'entry' }> => r.kind === 'entry');
  const i = entries.findIndex((r) => r.entry.path === focusedPath);
  if (entries.length === 0) return { type: 'none' };
  if (i < 0) return { type: 'focus', path: entries[0]!.entry.path };
  const row = entries[i]!;
  const isDir = row.entry.kind === 'dir';
  switch (key) {
    case 'ArrowDown':
      return i + 1 < entries.length ? { type: 'focus', path: entries[i + 1]!.entry.path } : { type: 'none' };
    case 'ArrowUp':
      return i > 0 ? { type: 'focus', path: entries[i - 1]!.entry.path } : { type: 'none' };
    case 'Home':
      return { type: 'focus', path: entries[0]!.entry.path };
    case 'End':
      return { type: 'focus', path: entries[entries.length - 1]!.entry.path };
    case 'ArrowRight': {
      if (!isDir) return { type: 'none' };
      if (!row.expanded) return { type: 'expand', path: row.entry.path };
      const child = entries[i + 1];
      return child && child.parent === row.entry.path ? { type: 'focus', path: child.entry.path } : { type: 'none' };
    }
    case 'ArrowLeft':
      if (isDir && row.expanded) return { type: 'collapse', path: row.entry.path };
      return row.parent !== null ? { type: 'focus', path: row.parent } : { type: 'none' };
    case 'Enter':
    case ' ':
      if (isDir) return row.expanded ? { type: 'collapse', path: row.entry.path } : { type: 'expand', path: row.entry.path };
      return row.entry.kind === 'other' ? { type: 'none' } : { type: 'open', path: row.entry.path };
    default:
      return { type: 'none' };
  }
}

/** Bytes of a string once encoded as UTF-8, to move on in a file read by byte offsets. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
