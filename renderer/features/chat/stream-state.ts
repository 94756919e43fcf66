/**
 * What the chat knows of running agent turns from pushed events: which turn runs in each
 * conversation ('chat.turn'), and the text a model has streamed so far into assistant rows
 * not yet stored ('chat.delta'). A stored row replaces its pending text once the
 * conversation is read again.
 */
import type { EventPayload } from '../../../shared/contract';

export interface PendingText {
  conversationId: string;
  turnId: string;
  messageId: string;
  text: string;
  /** When its turn ended (ms): the conversation read after that has the stored row. */
  endedAt?: number;
}

export interface StreamState {
  /** The running turn of each conversation. */
  running: Record<string, string>;
  /** Streamed text by messageId, in the order the rows began. */
  pending: PendingText[];
}

export const EMPTY_STREAM: StreamState = { running: {}, pending: [] };

export function applyDelta(state: StreamState, d: EventPayload<'chat.delta'>): StreamState {
  if (d.text === '') return state;
  const i = state.pending.findIndex((p) => p.messageId === d.messageId);
  const pending = [...state.pending];
  if (i === -1) pending.push({ conversationId: d.conversationId, turnId: d.turnId, messageId: d.messageId, text: d.text });
  else pending[i] = { ...pending[i]!, text: pending[i]!.text + d.text };
  // Text streaming means the turn runs, even if its start was missed.
  const running = state.running[d.conversationId] === d.turnId ? state.running : { ...state.running, [d.conversationId]: d.turnId };
  return { running, pending };
}

export function applyTurn(state: StreamState, t: EventPayload<'chat.turn'>, now: number): StreamState {
  if (t.state === 'running') {
    if (state.running[t.conversationId] === t.turnId) return state;
    return { ...state, running: { ...state.running, [t.conversationId]: t.turnId } };
  }
  const pending = state.pending.map((p) => (p.turnId === t.turnId && p.endedAt === undefined ? { ...p, endedAt: now } : p));
  if (state.running[t.conversationId] !== t.turnId) return { ...state, pending };
  const running = { ...state.running };
  delete running[t.conversationId];
  return { running, pending };
}

/**
 * Drops a conversation's pending text that is now stored (same id), and that of ended turns
 * once the conversation was read after the end (`readAt`, ms): the stored rows show it.
 */
export function settle(state: StreamState, conversationId: string, storedIds: ReadonlySet<string>, readAt: number): StreamState {
  const pending = state.pending.filter(
    (p) => p.conversationId !== conversationId || (!storedIds.has(p.messageId) && !(p.endedAt !== undefined && readAt > p.endedAt)),
  );
  return pending.length === state.pending.length ? state : { ...state, pending };
}

export function pendingOf(state: StreamState, conversationId: string, storedIds: ReadonlySet<string>): PendingText[] {
  return state.pending.filter((p) => p.conversationId === conversationId && !storedIds.has(p.messageId));
}
