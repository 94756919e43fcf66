/**
 * The pages of a buffer (or a stored output) the viewer needs, read with React Query
 * ('buffers.read' or 'toolOutputs.read' by line range, so a 'buffers.changed' or
 * 'toolOutputs.changed' event refreshes them). Only the pages on screen and a few
 * recent ones are kept (retainPages); a page that leaves that set is dropped from the cache.
 */
import { useQueries } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { callOrThrow, ContractError } from '../../api/client';
import { queryKey, useApi } from '../../api/hooks';
import { loadPage, type LoadedPage, type ReadRange } from './page-loader';
import { MAX_DRAWN_CHARS, pageRange, pagesFor, retainPages } from './viewport';

/** Pages asked for while scrolling fast are only fetched once the scroll rests this long. */
const SETTLE_MS = 60;

/** Characters per read when a page is read by offsets (the store returns at most 1 Mi). */
const CHUNK_CHARS = 256 * 1024;

/** The store refuses a line range holding more characters than one read returns (field endLine). */
const tooLarge = (e: unknown) => e instanceof ContractError && e.info.code === 'VALIDATION_FAILED' && (e.info.details as { field?: unknown } | undefined)?.field === 'endLine';

/** `stale`: the page as it was before the buffer grew, shown while it is read again. */
export type PageState = { status: 'ok'; page: LoadedPage; stale: boolean } | { status: 'loading' } | { status: 'error'; error: ContractError };

/** What the viewer reads: a buffer of an owner, or a stored output (read by line ranges only). */
export type PageSource = { kind: 'buffer'; ownerId: string; name: string } | { kind: 'output'; handle: string };

function readerOf(client: ReturnType<typeof useApi>['client'], source: PageSource, range: { startLine: number; endLine: number }) {
  if (source.kind === 'buffer') {
    const input = { ownerId: source.ownerId, name: source.name, startLine: range.startLine, endLine: range.endLine };
    return {
      key: queryKey('buffers.read', input),
      read: (r: ReadRange) => callOrThrow(client, 'buffers.read', { ownerId: source.ownerId, name: source.name, ...r }),
      tooLarge,
    };
  }
  const input = { handle: source.handle, startLine: range.startLine, endLine: range.endLine };
  return {
    key: queryKey('toolOutputs.read', input),
    read: (r: ReadRange) => {
      if (!('startLine' in r)) throw new Error('a stored output is read by lines');
      return callOrThrow(client, 'toolOutputs.read', { handle: source.handle, ...r });
    },
    tooLarge: () => false,
  };
}

export function useBufferPages(source: PageSource, totalLines: number, pageLines: number, first: number, last: number): Map<number, PageState> {
  const { client } = useApi();
  const [kept, setKept] = useState<{ pageLines: number; pages: number[] }>({ pageLines, pages: [] });
  const needed = totalLines > 0 ? pagesFor(first, last, pageLines) : [];
  const neededKey = needed.join(',');
  const lastPageLines = useRef<number | null>(null);

  useEffect(() => {
    const pages = neededKey ? neededKey.split(',').map(Number) : [];
    const update = () => setKept((prev) => ({ pageLines, pages: retainPages(prev.pageLines === pageLines ? prev.pages : [], pages) }));
    // Nothing read yet at this page size: read at once; otherwise wait for the scroll to settle.
    if (lastPageLines.current !== pageLines) {
      lastPageLines.current = pageLines;
      update();
      return;
    }
    const timer = setTimeout(update, SETTLE_MS);
    return () => clearTimeout(timer);
  }, [neededKey, pageLines]);

  const pages = kept.pageLines === pageLines ? kept.pages : [];
  const results = useQueries({
    queries: pages.map((p) => {
      const range = pageRange(p, pageLines, totalLines);
      const reader = readerOf(client, source, range);
      return {
        queryKey: reader.key,
        queryFn: ({ signal }: { signal: AbortSignal }) =>
          loadPage(reader.read, range.startLine, range.endLine, {
            tooLarge: reader.tooLarge,
            headChars: MAX_DRAWN_CHARS,
            chunkChars: CHUNK_CHARS,
            signal,
          }),
        // While a grown last page is read again, its previous lines stay on screen.
        placeholderData: (previous: LoadedPage | undefined) => previous,
        staleTime: Infinity,
        gcTime: 0,
        retry: false,
      };
    }),
  });

  const byPage = new Map<number, PageState>();
  pages.forEach((p, i) => {
    const r = results[i]!;
    // A placeholder is another page's data when the observer served another page before.
    if (r.data && r.data.startLine === pageRange(p, pageLines, totalLines).startLine) byPage.set(p, { status: 'ok', page: r.data, stale: r.isPlaceholderData });
    else if (r.error) byPage.set(p, { status: 'error', error: r.error as ContractError });
    else byPage.set(p, { status: 'loading' });
  });
  return byPage;
}
