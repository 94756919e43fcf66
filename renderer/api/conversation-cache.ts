/**
 * Conversations in the query cache, changed in place from what the core pushes or answers:
 * rows appended by id, the running turn, a list entry replaced. A query being read right
 * now is read again instead (its answer may predate the change); one not cached is left
 * alone (it is read when something shows it).
 */
import type { QueryClient } from '@tanstack/react-query';
import type { OpInput, OpOutput } from '../../shared/contract';
import type { Conversation, Message } from '../../shared/model/conversation';

export type ConversationDetail = OpOutput<'conversations.get'>;
type ConversationList = OpOutput<'conversations.list'>;

/** The new rows after the old ones; a row already there (same id) is replaced where it stands. */
export function withMessages(detail: ConversationDetail, messages: readonly Message[]): ConversationDetail {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const known = new Set(detail.messages.map((m) => m.id));
  const kept = detail.messages.map((m) => byId.get(m.id) ?? m);
  return { ...detail, messages: [...kept, ...messages.filter((m) => !known.has(m.id))] };
}

export function withRunningTurn(detail: ConversationDetail, turnId: string): ConversationDetail {
  return detail.runningTurnId === turnId ? detail : { ...detail, runningTurnId: turnId };
}

export function withoutRunningTurn(detail: ConversationDetail, turnId: string): ConversationDetail {
  if (detail.runningTurnId !== turnId) return detail;
  const rest = { ...detail };
  delete rest.runningTurnId;
  return rest;
}

/** Changes the cached detail of one conversation (see the file's note). */
export function patchConversation(qc: QueryClient, id: string, update: (old: ConversationDetail) => ConversationDetail): void {
  const key = ['conversations.get', { id } satisfies OpInput<'conversations.get'>];
  const query = qc.getQueryCache().find({ queryKey: key, exact: true });
  if (!query) return;
  if (query.state.fetchStatus === 'fetching') {
    void qc.invalidateQueries({ queryKey: key, exact: true });
    return;
  }
  if (query.state.data === undefined) return;
  qc.setQueryData<ConversationDetail>(key, (old) => (old ? update(old) : old));
}

/**
 * Puts the conversation as it is now into every cached list holding it (the list orders
 * itself by updatedAt). An unfiltered list without it had it past its limit: read again.
 */
export function patchConversationLists(qc: QueryClient, conversation: Conversation): void {
  for (const query of qc.getQueryCache().findAll({ queryKey: ['conversations.list'] })) {
    const input = (query.queryKey[1] ?? {}) as OpInput<'conversations.list'>;
    const list = query.state.data as ConversationList | undefined;
    if (query.state.fetchStatus === 'fetching') {
      void qc.invalidateQueries({ queryKey: query.queryKey, exact: true });
      continue;
    }
    if (!list) continue;
    const at = list.findIndex((c) => c.id === conversation.id);
    if (at === -1) {
      if (!input.q) void qc.invalidateQueries({ queryKey: query.queryKey, exact: true });
      continue;
    }
    qc.setQueryData<ConversationList>(query.queryKey, list.map((c, i) => (i === at ? conversation : c)));
  }
}
