/**
 * What the chat knows of running agent turns from pushed events: which turn runs in each
 * conversation ('chat.turn'), and the text a model has streamed so far into assistant rows
 * not yet stored ('chat.delta'). A stored row replaces its pending text once the
 * conversation is read again. A view opened while a row streams (a reload) missed its
 * beginning: the conversation's read gives the text so far (`seed`), and each chunk says
 * where it begins, so the two join without a gap or a repeat.
 */
import type { EventPayload } from '../../../shared/contract';

export interface PendingText {
  conversationId: string;
  turnId: string;
  messageId: string;
  /** The row's text from `from` on: all of it once seeded, else from the first chunk received. */
  text: string;
  from: number;
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
  if (i === -1) pending.push({ conversationId: d.conversationId, turnId: d.turnId, messageId: d.messageId, text: d.text, from: d.at });
  else {
    const p = pending[i]!;
    const end = p.from + p.text.length;
    // A chunk the seeded text holds already adds only what goes past it.
    pending[i] = { ...p, text: p.text + (d.at < end ? d.text.slice(end - d.at) : d.text) };
  }
  // Text streaming means the turn runs, even if its start was missed.
  const running = state.running[d.conversationId] === d.turnId ? state.running : { ...state.running, [d.conversationId]: d.turnId };
  return { running, pending };
}

/**
 * The text a row has streamed so far, as the conversation's read gave it: it becomes the
 * row's pending text from its beginning, joined to the chunks received since.
 */
export function seed(state: StreamState, conversationId: string, s: { turnId: string; messageId: string; text: string }): StreamState {
  if (s.text === '') return state;
  const i = state.pending.findIndex((p) => p.messageId === s.messageId);
  if (i === -1) return { ...state, pending: [...state.pending, { conversationId, turnId: s.turnId, messageId: s.messageId, text: s.text, from: 0 }] };
  const p = state.pending[i]!;
  // Chunks received begin past the text read: a part is missing between them, the chunks stay.
  if (p.from > s.text.length) return state;
  const end = p.from + p.text.length;
  const text = end > s.text.length ? s.text + p.text.slice(s.text.length - p.from) : s.text;
  if (p.from === 0 && text === p.text) return state;
  const pending = [...state.pending];
  pending[i] = { ...p, text, from: 0 };
  return { ...state, pending };
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
