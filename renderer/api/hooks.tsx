import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { eventNames, type OpInput, type OpName, type OpOutput } from '../../shared/contract';
import { callOrThrow, ContractError, type Api } from './client';
import { applyEvent } from './invalidation';
import type { ConnectionState } from './ws-client';

const ApiContext = createContext<Api | null>(null);

export function ApiProvider({ api, children }: { api: Api; children: ReactNode }) {
  const qc = useQueryClient();
  useEffect(() => {
    const offs = eventNames.map((name) =>
      api.client.on(name, (payload) => applyEvent(qc, name, payload)),
    );
    // After a reconnect, anything may have changed while we were away.
    const offState = api.onState((s) => {
      if (s === 'open') void qc.invalidateQueries();
    });
    return () => {
      offs.forEach((off) => off());
      offState();
    };
  }, [api, qc]);
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiProvider');
  return api;
}

export function queryKey<N extends OpName>(name: N, input: OpInput<N>): readonly unknown[] {
  return [name, input];
}

/**
 * For queries of files the user may change outside the app (workflows, the workspace tree):
 * read again whenever the view mounts or the window regains focus, since no event says so.
 */
export const FROM_DISK = { staleTime: 0, refetchOnMount: 'always', refetchOnWindowFocus: true } as const;

export function useOp<N extends OpName>(
  name: N,
  input: OpInput<N>,
  options: Omit<UseQueryOptions<OpOutput<N>, ContractError>, 'queryKey' | 'queryFn'> = {},
) {
  const { client } = useApi();
  return useQuery<OpOutput<N>, ContractError>({
    queryKey: queryKey(name, input),
    queryFn: () => callOrThrow(client, name, input),
    ...options,
  });
}

export function useOpMutation<N extends OpName>(name: N) {
  const { client } = useApi();
  return useMutation<OpOutput<N>, ContractError, OpInput<N>>({
    mutationFn: (input) => callOrThrow(client, name, input),
  });
}

export function useConnectionState(): ConnectionState {
  const api = useApi();
  // Read again once subscribed (useSyncExternalStore does): the socket may have opened between the first render and the subscription.
  const subscribe = useCallback((changed: () => void) => api.onState(changed), [api]);
  return useSyncExternalStore(subscribe, () => api.state());
}

type PagedOp = 'bundles.list' | 'tools.list' | 'tools.search';

/**
 * A list operation read page by page with its opaque pageToken. `keepPrevious`: while the
 * input changes, the previous input's pages stay on screen (marked isPlaceholderData).
 */
export function usePagedOp<N extends PagedOp>(name: N, input: Omit<OpInput<N>, 'pageToken'>, enabled = true, keepPrevious = false) {
  const { client } = useApi();
  return useInfiniteQuery<OpOutput<N>, ContractError>({
    queryKey: queryKey(name, input as OpInput<N>),
    queryFn: ({ pageParam }) => callOrThrow(client, name, { ...input, pageToken: pageParam as string | undefined } as OpInput<N>),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last as { nextPageToken?: string }).nextPageToken,
    enabled,
    ...(keepPrevious ? { placeholderData: keepPreviousData } : {}),
  });
}
