import { describe, expect, it } from 'vitest';
import type { WorkspaceEntry } from '../../../shared/model/routing';
import { flattenTree, parentPaths, sortEntries, treeKeyAction, utf8Length, type Listing } from './file-tree';

const e = (path: string, kind: WorkspaceEntry['kind'] = 'file'): WorkspaceEntry => ({ name: path.split('/').pop()!, path, kind, size: 1, modifiedAt: '2026-01-01T00:00:00.000Z' });

const root = [e('notes.md'), e('exports', 'dir'), e('a10.txt'), e('a2.txt'), e('archive', 'dir')];
const lists: Record<string, Listing> = {
  exports: { status: 'ok', entries: [e('exports/results.md'), e('exports/old', 'dir')] },
  'exports/old': { status: 'ok', entries: [] },
  archive: { status: 'loading' },
};

describe('sortEntries', () => {
  it('puts folders first, then names in natural order', () => {
    expect(sortEntries(root).map((x) => x.name)).toEqual(['archive', 'exports', 'a2.txt', 'a10.txt', 'notes.md']);
  });
});

describe('parentPaths', () => {
  it('lists the folders holding a path', () => {
    expect(parentPaths('a/b/c.md')).toEqual(['a', 'a/b']);
    expect(parentPaths('top.md')).toEqual([]);
  });
});

describe('flattenTree', () => {
  it('shows expanded folders under their row, with notes for loading and empty folders', () => {
    const rows = flattenTree(root, (p) => lists[p], new Set(['exports', 'exports/old', 'archive']));
    expect(rows.map((r) => (r.kind === 'entry' ? `${r.level}:${r.entry.path}` : `${r.level}:(${r.note})`))).toEqual([
      '1:archive',
      '2:(loading)',
      '1:exports',
      '2:exports/old',
      '3:(empty)',
      '2:exports/results.md',
      '1:a2.txt',
      '1:a10.txt',
      '1:notes.md',
    ]);
  });

  it('hides the contents of collapsed folders, even when listed before', () => {
    const rows = flattenTree(root, (p) => lists[p], new Set(['exports/old']));
    expect(rows).toHaveLength(5);
  });
});

describe('treeKeyAction', () => {
  const rows = flattenTree(root, (p) => lists[p], new Set(['exports']));

  it('moves up and down over entries, skipping notes', () => {
    expect(treeKeyAction(rows, 'archive', 'ArrowDown')).toEqual({ type: 'focus', path: 'exports' });
    expect(treeKeyAction(rows, 'exports', 'ArrowDown')).toEqual({ type: 'focus', path: 'exports/old' });
    expect(treeKeyAction(rows, 'exports/old', 'ArrowUp')).toEqual({ type: 'focus', path: 'exports' });
    expect(treeKeyAction(rows, 'archive', 'ArrowUp')).toEqual({ type: 'none' });
    expect(treeKeyAction(rows, 'archive', 'End')).toEqual({ type: 'focus', path: 'notes.md' });
  });

  it('expands, enters, collapses and climbs folders', () => {
    expect(treeKeyAction(rows, 'archive', 'ArrowRight')).toEqual({ type: 'expand', path: 'archive' });
    expect(treeKeyAction(rows, 'exports', 'ArrowRight')).toEqual({ type: 'focus', path: 'exports/old' });
    expect(treeKeyAction(rows, 'exports', 'ArrowLeft')).toEqual({ type: 'collapse', path: 'exports' });
    expect(treeKeyAction(rows, 'exports/results.md', 'ArrowLeft')).toEqual({ type: 'focus', path: 'exports' });
  });

  it('opens a file and toggles a folder with Enter', () => {
    expect(treeKeyAction(rows, 'notes.md', 'Enter')).toEqual({ type: 'open', path: 'notes.md' });
    expect(treeKeyAction(rows, 'archive', 'Enter')).toEqual({ type: 'expand', path: 'archive' });
    expect(treeKeyAction(rows, 'exports', 'Enter')).toEqual({ type: 'collapse', path: 'exports' });
  });

  it('focuses the first entry when the focused one is gone', () => {
    expect(treeKeyAction(rows, 'deleted.md', 'ArrowDown')).toEqual({ type: 'focus', path: 'archive' });
  });
});

describe('utf8Length', () => {
  it('counts bytes as UTF-8 encodes them', () => {
    for (const s of ['', 'abc', 'é', '€', '😀', 'a😀é€\n', '\ud800x']) expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
  });
});
