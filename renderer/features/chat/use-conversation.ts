/**
 * The chat's server state helpers: the open conversation's detail, creating one on demand
 * (the first message or tool run starts it), and putting returned messages into the cache.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { Message } from '../../../shared/model/conversation';
import { callOrThrow } from '../../api/client';
import { patchConversation, withMessages } from '../../api/conversation-cache';
import { useApi, useOp } from '../../api/hooks';
import { useUi } from '../../stores/ui';

export type { ConversationDetail } from '../../api/conversation-cache';

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
    // The 'created' event reads the list again already: never a second read.
    void qc.invalidateQueries({ queryKey: ['conversations.list'] }, { cancelRefetch: false });
    return created.id;
  }, [client, qc]);
}

/**
 * Adds messages a call answered to the cached conversation (by id; a message already there is
 * replaced). The 'conversations.changed' event carries the same rows and the conversation's
 * new count, so nothing is read again.
 */
export function addMessages(qc: QueryClient, conversationId: string, messages: readonly Message[]): void {
  patchConversation(qc, conversationId, (old) => withMessages(old, messages));
}
