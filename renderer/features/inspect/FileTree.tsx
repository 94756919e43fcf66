/**
 * The workspace as a tree (WAI-ARIA tree): each folder is listed when first expanded
 * ('workspace.list'), folders first. Arrows move and expand/collapse, Enter opens a file
 * or toggles a folder.
 */
import { useQueries } from '@tanstack/react-query';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { callOrThrow } from '../../api/client';
import { FROM_DISK, queryKey, useApi, useOp } from '../../api/hooks';
import { QueryError } from '../../components/QueryError';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { flattenTree, treeKeyAction, type Listing, type TreeRow } from './file-tree';
import { useInspect } from './inspect-store';

export function FileTree() {
  const { client } = useApi();
  const root = useOp('workspace.list', {}, FROM_DISK);
  const expanded = useInspect((st) => st.expanded);
  const file = useInspect((st) => st.file);
  const openFile = useInspect((st) => st.openFile);
  const toggleFolder = useInspect((st) => st.toggleFolder);
  const [focused, setFocused] = useState<string | null>(null);
  const moveFocus = useRef(false);
  const itemRefs = useRef(new Map<string, HTMLDivElement>());

  const folders = [...expanded];
  const lists = useQueries({
    queries: folders.map((path) => ({
      queryKey: queryKey('workspace.list', { path }),
      queryFn: () => callOrThrow(client, 'workspace.list', { path }),
      retry: false,
    })),
  });
  const byPath = new Map<string, Listing>();
  folders.forEach((path, i) => {
    const q = lists[i]!;
    byPath.set(path, q.data ? { status: 'ok', entries: q.data } : q.error ? { status: 'error', message: q.error.message } : { status: 'loading' });
  });
  const rows = root.data ? flattenTree(root.data, (p) => byPath.get(p), expanded) : [];
  const entryRows = rows.filter((r): r is Extract<TreeRow, { kind: 'entry' }> => r.kind === 'entry');
  // The row reached with Tab: the focused one, else the open file, else the first.
  const tabStop = [focused, file].find((p) => p !== null && entryRows.some((r) => r.entry.path === p)) ?? entryRows[0]?.entry.path;

  useEffect(() => {
    if (moveFocus.current && focused) itemRefs.current.get(focused)?.focus();
    moveFocus.current = false;
  }, [focused]);

  const act = (path: string, key: string, e: KeyboardEvent) => {
    const action = treeKeyAction(rows, path, key);
    if (action.type === 'none') return;
    e.preventDefault();
    if (action.type === 'focus') {
      moveFocus.current = true;
      setFocused(action.path);
    } else if (action.type === 'expand') toggleFolder(action.path, true);
    else if (action.type === 'collapse') toggleFolder(action.path, false);
    else openFile(action.path);
  };

  if (root.error) return <QueryError error={root.error} onRetry={() => void root.refetch()} />;
  if (root.isPending) return <p className="muted">{s.files.loading}</p>;
  if (rows.length === 0) return <p className="muted" data-testid="inspect-empty-files">{s.files.emptyWorkspace}</p>;

  return (
    <div role="tree" aria-label={s.files.treeLabel} className="file-tree" data-testid="file-tree">
      {rows.map((row) => {
        const pad = { paddingLeft: `${(row.level - 1) * 1.1 + 0.4}rem` };
        if (row.kind === 'note') {
          return (
            <div key={`${row.parent}\u0000note`} role="treeitem" aria-level={row.level} aria-disabled="true" className={`file-note ${row.note}`} style={pad}>
              {row.note === 'loading' ? s.files.loading : row.note === 'empty' ? s.files.emptyFolder : s.files.folderFailed(row.message ?? '')}
            </div>
          );
        }
        const { entry } = row;
        const isDir = entry.kind === 'dir';
        const isOpen = !isDir && entry.path === file;
        return (
          <div
            key={entry.path}
            ref={(el) => {
              if (el) itemRefs.current.set(entry.path, el);
              else itemRefs.current.delete(entry.path);
            }}
            role="treeitem"
            aria-level={row.level}
            aria-posinset={row.posinset}
            aria-setsize={row.setsize}
            aria-expanded={isDir ? row.expanded : undefined}
            aria-selected={isOpen}
            aria-disabled={entry.kind === 'other' || undefined}
            tabIndex={entry.path === tabStop ? 0 : -1}
            className={`file-item ${entry.kind}${isOpen ? ' active' : ''}`}
            data-testid={`file-item-${entry.path}`}
            style={pad}
            onFocus={() => setFocused(entry.path)}
            onClick={() => {
              setFocused(entry.path);
              if (isDir) toggleFolder(entry.path);
              else if (entry.kind !== 'other') openFile(entry.path);
            }}
            onKeyDown={(e) => act(entry.path, e.key, e)}
          >
            <span className="file-icon" aria-hidden="true">
              {isDir ? (row.expanded ? '▾' : '▸') : ''}
            </span>
            <span className="file-name">{entry.name}</span>
            {!isDir && <span className="file-size">{s.size.bytes(entry.size)}</span>}
          </div>
        );
      })}
    </div>
  );
}
