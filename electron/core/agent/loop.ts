/**
 * The agent loop: at most one turn per conversation, run in the background (./turn.ts).
 * start() answers the turn's id at once; the turn reports itself with 'chat.turn' and
 * 'chat.delta' events and its rows on the timeline.
 */
import { AppError } from '../../../shared/errors';
import type { ApprovalDecision } from '../../../shared/model/provider';
import type { ConversationStore } from '../chat/conversation-store';
import type { EventBus } from '../events';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { ToolStore } from '../store/tool-store';
import type { RoutingServices } from '../routing';
import type { SettingsStore } from '../settings/settings-store';
import type { ApprovalStore } from './approvals';
import type { Redact } from './render';
import { runningTurn } from './strings';
import { Turn } from './turn';
import type { AgentLoop, ModelClientFactory, TurnRequest } from './types';

export interface AgentLoopDeps {
  conversations: ConversationStore;
  clients: ModelClientFactory;
  dispatcher: Pick<InvokeDispatcher, 'invoke' | 'cancel'>;
  registry: { store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById'> };
  routing: RoutingServices;
  approvals: ApprovalStore;
  settings: Pick<SettingsStore, 'get'>;
  events: EventBus;
  now: () => Date;
  /** Applied to everything the model is given and every error shown (the secret store's redactor). */
  redact?: Redact;
  /** Steps a turn may take (default 12). */
  maxSteps?: number;
}

export interface AgentLoopService extends AgentLoop {
  /** A turn of this conversation is running. */
  isRunning(conversationId: string): boolean;
  /** The id of the conversation's running turn, if one runs. */
  runningTurnId(conversationId: string): string | undefined;
  /** Settles when the conversation's running turn has ended (at once when none runs). */
  settled(conversationId: string): Promise<void>;
}

export function createAgentLoop(deps: AgentLoopDeps): AgentLoopService {
  const turns = new Map<string, { turn: Turn; done: Promise<void> }>();

  return {
    start(req: TurnRequest): string {
      const cid = req.conversationId;
      if (turns.has(cid)) throw new AppError('CONFLICT', runningTurn(cid), { conversationId: cid });
      deps.conversations.get(cid);
      const turn = new Turn(deps, req);
      const done = turn
        .run()
        .catch((e: unknown) => console.error('agent turn failed:', e))
        .then(() => {
          if (turns.get(cid)?.turn === turn) turns.delete(cid);
        });
      turns.set(cid, { turn, done });
      return turn.id;
    },
    stop(conversationId: string): boolean {
      const t = turns.get(conversationId);
      if (!t) return false;
      t.turn.stop();
      return true;
    },
    respond(conversationId: string, invocationId: string, decision: ApprovalDecision, args?: unknown): boolean {
      const t = turns.get(conversationId);
      if (!t) return false;
      return t.turn.respond(invocationId, args === undefined ? { decision } : { decision, args });
    },
    stopAll(): void {
      for (const t of turns.values()) t.turn.stop();
    },
    isRunning: (conversationId) => turns.has(conversationId),
    runningTurnId: (conversationId) => turns.get(conversationId)?.turn.id,
    settled: async (conversationId) => {
      await turns.get(conversationId)?.done;
    },
  };
}
