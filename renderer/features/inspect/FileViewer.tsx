/**
 * A workspace file's text, read in chunks of bytes ('workspace.read' with an offset): the
 * first chunk at once, the next ones on "Load more". Binary files are named, not shown.
 * "Open in system" asks the host ('workspace.open'); a host that cannot says why.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { callOrThrow, type ContractError } from '../../api/client';
import { useApi, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { utf8Length } from './file-tree';

/** Bytes read per chunk. */
const CHUNK_BYTES = 512 * 1024;

export function FileViewer({ path }: { path: string }) {
  const { client } = useApi();
  const titleId = useId();
  const open = useOpMutation('workspace.open');
  const read = useInfiniteQuery({
    // Under 'workspace.read', so refreshing that key refreshes this view.
    queryKey: ['workspace.read', { path, chunked: CHUNK_BYTES }],
    queryFn: ({ pageParam }) => callOrThrow(client, 'workspace.read', { path, offset: pageParam, length: CHUNK_BYTES }),
    initialPageParam: 0,
    getNextPageParam: (last) => {
      const bytes = utf8Length(last.text);
      return last.more && !last.binary && bytes > 0 ? last.offset + bytes : undefined;
    },
    retry: false,
  });
  const chunks = read.data?.pages ?? [];
  const first = chunks[0];
  const lastChunk = chunks[chunks.length - 1];
  const shownBytes = lastChunk ? lastChunk.offset + utf8Length(lastChunk.text) : 0;

  return (
    <section className="file-view" aria-labelledby={titleId} data-testid="file-viewer">
      <header className="buffer-head">
        <div>
          <h2 id={titleId} className="file-path">
            {path}
          </h2>
          {first && <p className="muted small">{s.size.bytes(first.totalBytes)}</p>}
        </div>
        <button type="button" data-testid="file-open-system" aria-label={s.files.openSystemLabel(path)} disabled={open.isPending} onClick={() => open.mutate({ path })}>
          {s.files.openSystem}
        </button>
      </header>
      <div aria-live="polite">
        {open.error && (
          <FieldError role="alert" data-testid="file-open-error">
            {open.error.message}
          </FieldError>
        )}
        {open.isSuccess && <p className="status-ok">{s.files.opened}</p>}
      </div>
      {read.error && <QueryError error={read.error as ContractError} onRetry={() => void read.refetch()} />}
      {read.isPending && <p className="muted">{s.files.loading}</p>}
      {first?.binary && (
        <p className="muted" data-testid="file-binary">
          {s.files.binary(s.size.bytes(first.totalBytes))}
        </p>
      )}
      {first && !first.binary && (
        <>
          <div className="file-text" data-testid="file-text" role="region" aria-label={s.files.viewerLabel(path)} tabIndex={0}>
            {first.totalBytes === 0 ? <p className="muted">{s.files.emptyFile}</p> : <pre>{chunks.map((c) => c.text).join('')}</pre>}
          </div>
          {read.hasNextPage && (
            <p className="file-more">
              <span className="muted">{s.files.shown(s.size.bytes(shownBytes), s.size.bytes(first.totalBytes))}</span>{' '}
              <button type="button" data-testid="file-load-more" disabled={read.isFetchingNextPage} onClick={() => void read.fetchNextPage()}>
                {read.isFetchingNextPage ? s.files.loadingMore : s.files.loadMore}
              </button>
            </p>
          )}
        </>
      )}
    </section>
  );
}
