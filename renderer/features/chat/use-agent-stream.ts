/**
 * Follows the agent turns of every conversation while the Chat screen is open: which turn
 * runs where ('chat.turn'), the text being streamed ('chat.delta'), and Stop.
 */
import { useCallback, useEffect, useState } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import { useApi } from '../../api/hooks';
import { applyDelta, applyTurn, EMPTY_STREAM, seed, settle, type StreamState } from './stream-state';

export interface AgentStream {
  state: StreamState;
  /** After the conversation was read (at `readAt`): drops the pending text its stored rows now show. */
  settle(conversationId: string, storedIds: ReadonlySet<string>, readAt: number): void;
  stop(conversationId: string): Promise<ErrorInfo | null>;
  /** A turn the core reports running (read with the conversation) that no event announced here. */
  resume(conversationId: string, turnId: string): void;
  /** The text a row streamed before this view heard of it, as the conversation was read. */
  seed(conversationId: string, streaming: { turnId: string; messageId: string; text: string }): void;
}

export function useAgentStream(): AgentStream {
  const { client } = useApi();
  const [state, setState] = useState<StreamState>(EMPTY_STREAM);
  useEffect(() => {
    const offDelta = client.on('chat.delta', (d) => setState((s) => applyDelta(s, d)));
    const offTurn = client.on('chat.turn', (t) => setState((s) => applyTurn(s, t, Date.now())));
    return () => {
      offDelta();
      offTurn();
    };
  }, [client]);
  const settleFor = useCallback((conversationId: string, storedIds: ReadonlySet<string>, readAt: number) => {
    setState((s) => settle(s, conversationId, storedIds, readAt));
  }, []);
  const stop = useCallback(
    async (conversationId: string) => {
      try {
        const r = await client.call('chat.stop', { conversationId });
        if (!r.ok) return r.error;
        // Nothing was running there after all: forget the turn we thought ran.
        if (!r.value.stopped) setState((s) => { const running = { ...s.running }; delete running[conversationId]; return { ...s, running }; });
        return null;
      } catch (e) {
        return { code: 'UNAVAILABLE', message: (e as Error).message } as ErrorInfo;
      }
    },
    [client],
  );
  const resume = useCallback((conversationId: string, turnId: string) => {
    setState((s) => (s.running[conversationId] ? s : applyTurn(s, { conversationId, turnId, state: 'running' }, Date.now())));
  }, []);
  const seedFor = useCallback((conversationId: string, streaming: { turnId: string; messageId: string; text: string }) => {
    setState((s) => seed(s, conversationId, streaming));
  }, []);
  return { state, settle: settleFor, stop, resume, seed: seedFor };
}
