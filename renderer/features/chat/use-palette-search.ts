/**
 * The palette's search, chosen by the shape of the query (shared/model/tool-find.ts): one word
 * goes to the prefix index ('tools.search': prefix > word > fuzzy > recency), read a page at a
 * time, so this stays fast with any number of tools while a name is typed; two words or more
 * are a sentence and go to 'tools.find' (names that start with it, then the sentence ranking
 * the model's tool_search uses), one answer of the best PALETTE_FIND_LIMIT. `loadMore` reads
 * the prefix index's next page (the list asks for it when scrolled, or moved with the arrows,
 * near its end). Queries are debounced and the previous answer, of either search, stays on
 * screen while the next one comes (marked stale).
 */
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import type { OpOutput } from '../../../shared/contract';
import type { ToolView } from '../../../shared/model/tool';
import { TOOL_FIND_MAX_QUERY, isSentenceQuery } from '../../../shared/model/tool-find';
import { callOrThrow, type ContractError } from '../../api/client';
import { queryKey, useApi } from '../../api/hooks';
import { useDebounced } from '../../hooks/use-debounced';

export const PALETTE_PAGE_SIZE = 40;
/** Tools a sentence lists: the best ones; a sentence that does not find its tool among them wants other words. */
export const PALETTE_FIND_LIMIT = 20;
export const PALETTE_DEBOUNCE_MS = 50;

export interface PaletteSearch {
  tools: ToolView[];
  /** For tools a sentence found by its words: those words, by tool id. */
  words: ReadonlyMap<string, readonly string[]>;
  /** The tools shown answer a sentence: its best matches, not every match. */
  ranked: boolean;
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

type Page = OpOutput<'tools.search'> | OpOutput<'tools.find'>;

const EMPTY: ToolView[] = [];
const NO_WORDS: ReadonlyMap<string, readonly string[]> = new Map();

export function usePaletteSearch(query: string, enabled: boolean): PaletteSearch {
  const { client } = useApi();
  // tools.find takes at most TOOL_FIND_MAX_QUERY characters: a longer line searches by its start.
  const q = useDebounced(query.trim().slice(0, TOOL_FIND_MAX_QUERY), PALETTE_DEBOUNCE_MS);
  const sentence = isSentenceQuery(q);
  // Keyed like any other use of the operation, so a registry change (renderer/api/invalidation.ts) reads it again.
  const found = useInfiniteQuery<Page, ContractError>({
    queryKey: sentence ? queryKey('tools.find', { q, limit: PALETTE_FIND_LIMIT }) : queryKey('tools.search', { q, pageSize: PALETTE_PAGE_SIZE }),
    queryFn: ({ pageParam }) =>
      sentence
        ? callOrThrow(client, 'tools.find', { q, limit: PALETTE_FIND_LIMIT })
        : callOrThrow(client, 'tools.search', { q, pageSize: PALETTE_PAGE_SIZE, pageToken: pageParam as string | undefined }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => ('nextPageToken' in last ? last.nextPageToken : undefined),
    enabled,
    placeholderData: keepPreviousData,
  });
  const pages = found.data?.pages;
  const { tools, words, ranked } = useMemo(() => {
    if (!pages) return { tools: EMPTY, words: NO_WORDS, ranked: false };
    const seen = new Set<string>();
    const out: ToolView[] = [];
    const why = new Map<string, readonly string[]>();
    for (const page of pages) {
      for (const h of page.items) {
        const t = h.tool;
        if (!t.isEnabled || t.unavailableReason || seen.has(t.id)) continue;
        seen.add(t.id);
        out.push(t);
        if ('words' in h && h.words.length) why.set(t.id, h.words);
      }
    }
    // What is shown may be the other search's answer (kept while this one comes): its shape says which.
    return { tools: out, words: why, ranked: pages[0] !== undefined && !('recommendedPageSize' in pages[0]) };
  }, [pages]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = found;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return {
    tools,
    words,
    ranked,
    stale: q !== query.trim().slice(0, TOOL_FIND_MAX_QUERY) || found.isPlaceholderData || (found.isFetching && !isFetchingNextPage),
    loading: found.isPending && enabled,
    error: found.error,
    shownQuery: found.data ? (found.isPlaceholderData ? null : q) : null,
    more: hasNextPage && !found.isPlaceholderData,
    loadingMore: isFetchingNextPage,
    loadMore,
  };
}
