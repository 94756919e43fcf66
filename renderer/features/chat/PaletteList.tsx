/**
 * The palette's tool list (a listbox driven from the composer: the caret stays in the
 * text while ↑ ↓ move the active option and Enter picks it). Each row names the tool's
 * bundle and version, marking the newest of several versions, and for a tool a sentence found
 * by its words, which words; the list reads further pages as it is scrolled (or moved
 * through) near its end, and says how many it holds.
 */
import { memo, useEffect, useMemo, useRef } from 'react';
import type { ToolView } from '../../../shared/model/tool';
import { useOp } from '../../api/hooks';
import { QueryError } from '../../components/QueryError';
import { chatStrings as s } from '../../i18n/chat-strings';
import { versionMarks } from './palette-rows';

export interface PaletteListProps {
  id: string;
  query: string;
  tools: readonly ToolView[];
  /** Why a sentence found a tool: the words it matched, by tool id. */
  words?: ReadonlyMap<string, readonly string[]>;
  /** The tools are a sentence's best matches (not every match). */
  ranked?: boolean;
  active: number;
  stale: boolean;
  loading: boolean;
  error: Error | null;
  /** The server has more matches than those listed. */
  more: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  onPick: (tool: ToolView) => void;
  onHover: (index: number) => void;
}

export const optionId = (listId: string, index: number) => `${listId}-opt-${index}`;
/** Within this many rows (or this many px) of the end, the next page is read. */
const NEAR_END_ROWS = 5;
const NEAR_END_PX = 200;

export const PaletteList = memo(function PaletteList({ id, query, tools, words, ranked = false, active, stale, loading, error, more, loadingMore, onLoadMore, onPick, onHover }: PaletteListProps) {
  const listRef = useRef<HTMLUListElement>(null);
  useEffect(() => {
    listRef.current?.querySelector<HTMLElement>(`#${CSS.escape(optionId(id, active))}`)?.scrollIntoView({ block: 'nearest' });
  }, [id, active, tools]);
  // Moved (with the arrows) near the end: read the next page before the end is reached.
  useEffect(() => {
    if (more && !loadingMore && active >= tools.length - NEAR_END_ROWS) onLoadMore();
  }, [more, loadingMore, active, tools.length, onLoadMore]);

  const bundleIds = useMemo(() => [...new Set(tools.map((t) => t.bundleId))].slice(0, 1000), [tools]);
  const bundles = useOp('bundles.list', { bundleIds, includeDisabled: true, pageSize: 100 }, { enabled: bundleIds.length > 0, placeholderData: (prev) => prev });
  const bundleName = useMemo(() => new Map((bundles.data?.items ?? []).map((b) => [b.id, b.displayName])), [bundles.data]);
  const marks = useMemo(() => versionMarks(tools), [tools]);

  // Scrolled near the end (the scrolling box is the palette panel around this list).
  const wantMore = more && !loadingMore;
  useEffect(() => {
    const box = listRef.current?.closest<HTMLElement>('.palette');
    if (!box || !wantMore) return;
    const onScroll = () => {
      if (box.scrollHeight - box.scrollTop - box.clientHeight < NEAR_END_PX) onLoadMore();
    };
    box.addEventListener('scroll', onScroll);
    return () => box.removeEventListener('scroll', onScroll);
  }, [wantMore, onLoadMore]);

  return (
    <div className="palette-list">
      {error && <QueryError error={error} />}
      {loading && <p className="muted palette-note">{s.palette.searching}</p>}
      {!loading && !error && tools.length === 0 && !stale && <p className="muted palette-note">{s.palette.noMatches(query)}</p>}
      <ul ref={listRef} id={id} role="listbox" aria-label={s.palette.listLabel(query)} aria-busy={stale} className={stale ? 'palette-options stale' : 'palette-options'}>
        {tools.map((tool, i) => {
          const mark = marks.get(tool.id);
          const why = words?.get(tool.id);
          const bundle = bundleName.get(tool.bundleId);
          return (
            <li
              key={tool.id}
              id={optionId(id, i)}
              role="option"
              aria-selected={i === active}
              aria-setsize={more ? -1 : tools.length}
              aria-posinset={i + 1}
              className={i === active ? 'palette-option active' : 'palette-option'}
              data-testid={`palette-item-${tool.slug}`}
              data-version={tool.version}
              // Keeps the caret in the composer: a click picks without moving focus first.
              onMouseDown={(e) => e.preventDefault()}
              onMouseMove={() => i !== active && onHover(i)}
              onClick={() => onPick(tool)}
            >
              <span className="palette-option-name">
                <strong>{tool.displayName}</strong> <code>+{tool.slug}</code>
                <span className="palette-option-meta muted" data-testid="palette-item-meta">
                  {bundle ? `${bundle} · ` : ''}
                  {s.palette.version(tool.version)}
                </span>
                {mark && (
                  <span className={mark === 'newest' ? 'badge ok palette-version-mark' : 'badge palette-version-mark'} data-testid="palette-item-mark">
                    {s.palette.versionMark[mark]}
                  </span>
                )}
              </span>
              {tool.description && <span className="palette-option-desc muted">{tool.description}</span>}
              {why && (
                <span className="palette-option-why muted" data-testid="palette-item-why">
                  {s.palette.matched(why)}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {tools.length > 0 && (
        <p className="muted palette-note palette-count" data-testid="palette-count" role="status">
          {more ? s.palette.countMore(tools.length) : ranked ? s.palette.countRanked(tools.length) : s.palette.count(tools.length)}
          {more && (
            <>
              {' '}
              <button type="button" className="link-button" data-testid="palette-more" disabled={loadingMore} onMouseDown={(e) => e.preventDefault()} onClick={onLoadMore}>
                {loadingMore ? s.palette.loadingMore : s.palette.loadMore}
              </button>
            </>
          )}
        </p>
      )}
      <p className="help palette-note">{s.palette.help}</p>
    </div>
  );
});
