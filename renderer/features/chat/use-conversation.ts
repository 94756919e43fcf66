/**
 * The chat's server state helpers: the open conversation's detail, creating one on demand
 * (the first message or tool run starts it), and putting returned messages into the cache
 * at once (the 'conversations.changed' event refetches too).
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { OpOutput } from '../../../shared/contract';
import type { Message } from '../../../shared/model/conversation';
import { callOrThrow } from '../../api/client';
import { queryKey, useApi, useOp } from '../../api/hooks';
import { useUi } from '../../stores/ui';

export type ConversationDetail = OpOutput<'conversations.get'>;

export function useConversationDetail(id: string | null) {
  return useOp('conversations.get', { id: id ?? '' }, { enabled: id !== null });
}

/** The open conversation's id, creating (and selecting) a conversation when none is open. */
export function useEnsureConversation(): () => Promise<string> {
  const { client } = useApi();
  const qc = useQueryClient();
  return useCallback(async () => {
    const open = useUi.getState().conversationId;
    if (open) return open;
    const created = await callOrThrow(client, 'conversations.create', {});
    useUi.getState().selectConversation(created.id);
    void qc.invalidateQueries({ queryKey: ['conversations.list'] });
    return created.id;
  }, [client, qc]);
}

/** Adds messages to the cached conversation (by id; a message already there is replaced). */
export function addMessages(qc: QueryClient, conversationId: string, messages: readonly Message[]): void {
  qc.setQueryData<ConversationDetail>(queryKey('conversations.get', { id: conversationId }), (old) => {
    if (!old) return old;
    const byId = new Map(messages.map((m) => [m.id, m]));
    const kept = old.messages.map((m) => byId.get(m.id) ?? m);
    const known = new Set(old.messages.map((m) => m.id));
    return { ...old, messages: [...kept, ...messages.filter((m) => !known.has(m.id))] };
  });
  void qc.invalidateQueries({ queryKey: ['conversations.get', { id: conversationId }] });
  void qc.invalidateQueries({ queryKey: ['conversations.list'] });
}
