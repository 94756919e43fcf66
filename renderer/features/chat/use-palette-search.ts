/**
 * The palette's search: the server ranks ('tools.search': prefix > word > fuzzy > recency),
 * so this stays fast with any number of tools. Queries are debounced and the previous
 * answer stays on screen while the next one comes (marked stale).
 */
import { keepPreviousData } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ToolView } from '../../../shared/model/tool';
import { useOp } from '../../api/hooks';
import { useDebounced } from '../../hooks/use-debounced';

export const PALETTE_PAGE_SIZE = 20;
export const PALETTE_DEBOUNCE_MS = 50;

export interface PaletteSearch {
  tools: ToolView[];
  /** The tools shown were found for an earlier query: a newer answer is on its way. */
  stale: boolean;
  loading: boolean;
  error: Error | null;
  /** The query the shown tools answer. */
  shownQuery: string | null;
}

const EMPTY: ToolView[] = [];

export function usePaletteSearch(query: string, enabled: boolean): PaletteSearch {
  const q = useDebounced(query.trim(), PALETTE_DEBOUNCE_MS);
  const found = useOp('tools.search', { q, pageSize: PALETTE_PAGE_SIZE }, { enabled, placeholderData: keepPreviousData });
  const items = found.data?.items;
  const tools = useMemo(() => (items ? items.map((h) => h.tool).filter((t) => t.isEnabled && !t.unavailableReason) : EMPTY), [items]);
  return {
    tools,
    stale: q !== query.trim() || found.isPlaceholderData || found.isFetching,
    loading: found.isPending && enabled,
    error: found.error,
    shownQuery: found.data ? (found.isPlaceholderData ? null : q) : null,
  };
}
