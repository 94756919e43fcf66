/**
 * The palette's search: the server ranks ('tools.search': prefix > word > fuzzy > recency),
 * so this stays fast with any number of tools. Results come a page at a time; `loadMore`
 * reads the next page (the list asks for it when scrolled, or moved with the arrows, near
 * its end). Queries are debounced and the previous answer stays on screen while the next
 * one comes (marked stale).
 */
import { useCallback, useMemo } from 'react';
import type { ToolView } from '../../../shared/model/tool';
import { usePagedOp } from '../../api/hooks';
import { useDebounced } from '../../hooks/use-debounced';

export const PALETTE_PAGE_SIZE = 40;
export const PALETTE_DEBOUNCE_MS = 50;

export interface PaletteSearch {
  tools: ToolView[];
  /** The tools shown were found for an earlier query: a newer answer is on its way. */
  stale: boolean;
  loading: boolean;
  error: Error | null;
  /** The query the shown tools answer. */
  shownQuery: string | null;
  /** More matches than those read so far: the server has further pages. */
  more: boolean;
  loadingMore: boolean;
  loadMore(): void;
}

const EMPTY: ToolView[] = [];

export function usePaletteSearch(query: string, enabled: boolean): PaletteSearch {
  const q = useDebounced(query.trim(), PALETTE_DEBOUNCE_MS);
  const found = usePagedOp('tools.search', { q, pageSize: PALETTE_PAGE_SIZE }, enabled, true);
  const pages = found.data?.pages;
  const tools = useMemo(() => {
    if (!pages) return EMPTY;
    const seen = new Set<string>();
    const out: ToolView[] = [];
    for (const page of pages) {
      for (const h of page.items) {
        const t = h.tool;
        if (!t.isEnabled || t.unavailableReason || seen.has(t.id)) continue;
        seen.add(t.id);
        out.push(t);
      }
    }
    return out;
  }, [pages]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = found;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return {
    tools,
    stale: q !== query.trim() || found.isPlaceholderData || (found.isFetching && !isFetchingNextPage),
    loading: found.isPending && enabled,
    error: found.error,
    shownQuery: found.data ? (found.isPlaceholderData ? null : q) : null,
    more: hasNextPage && !found.isPlaceholderData,
    loadingMore: isFetchingNextPage,
    loadMore,
  };
}
