/**
 * The agent loop: at most one turn per conversation, run in the background (./turn.ts).
 * start() answers the turn's id at once; the turn reports itself with 'chat.turn' and
 * 'chat.delta' events and its rows on the timeline.
 */
import { AppError } from '../../../shared/errors';
import type { ApprovalDecision } from '../../../shared/model/provider';
import type { ConversationStore } from '../timeline/conversation-store';
import type { EventBus } from '../events';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { ToolStore } from '../store/tool-store';
import type { RoutingServices } from '../routing';
import type { SettingsStore } from '../settings/settings-store';
import type { ApprovalStore } from './approvals';
import type { Redact } from '../timeline/render';
import { runningTurn } from './strings';
import { Turn } from './turn';
import type { AgentLoop, ModelClientFactory, TurnRequest } from './types';

export interface AgentLoopDeps {
  conversations: ConversationStore;
  clients: ModelClientFactory;
  dispatcher: Pick<InvokeDispatcher, 'invoke' | 'cancel' | 'checkArgs'>;
  registry: { store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById'> };
  routing: RoutingServices;
  approvals: ApprovalStore;
  settings: Pick<SettingsStore, 'get'>;
  events: EventBus;
  now: () => Date;
  /** Applied to everything the model is given and every error shown (the secret store's redactor). */
  redact?: Redact;
  /** Oversized tool outputs (seed 001): the gate and `tool_output`. Absent: results pass whole. */
  toolOutputs?: import('../tool-output/service').ToolOutputService;
  /** Steps a turn may take (default 12). */
  maxSteps?: number;
}

/** A conversation's turn, held before it starts (while a message's directives run). */
export interface TurnReservation {
  /** Starts the turn held (once); answers its id. */
  start(req: Omit<TurnRequest, 'conversationId'>): string;
  /** Gives the conversation back without a turn (no-op once started or released). */
  release(): void;
}

export interface AgentLoopService extends AgentLoop {
  /**
   * Holds the conversation's next turn, at once: CONFLICT when a turn runs or is held. A
   * message for a model reserves before its directives run, so a second one is refused
   * before anything of it is written or stored.
   */
  reserve(conversationId: string): TurnReservation;
  /** A turn of this conversation is running. */
  isRunning(conversationId: string): boolean;
  /** The id of the conversation's running turn, if one runs. */
  runningTurnId(conversationId: string): string | undefined;
  /** Settles when the conversation's running turn has ended (at once when none runs). */
  settled(conversationId: string): Promise<void>;
  /** Settles when every running turn has ended, or after `timeoutMs`: true when they all ended. */
  settledAll(timeoutMs: number): Promise<boolean>;
}

export function createAgentLoop(deps: AgentLoopDeps): AgentLoopService {
  const turns = new Map<string, { turn: Turn; done: Promise<void> }>();
  /** Conversations whose next turn is held (see reserve()). */
  const reserved = new Set<string>();
  const refuseBusy = (cid: string) => {
    if (turns.has(cid) || reserved.has(cid)) throw new AppError('CONFLICT', runningTurn(cid), { conversationId: cid });
  };

  const begin = (req: TurnRequest): string => {
    const cid = req.conversationId;
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
  };

  return {
    start(req: TurnRequest): string {
      refuseBusy(req.conversationId);
      return begin(req);
    },
    reserve(conversationId: string): TurnReservation {
      refuseBusy(conversationId);
      reserved.add(conversationId);
      let held = true;
      return {
        start(req) {
          if (!held) throw new AppError('CONFLICT', runningTurn(conversationId), { conversationId });
          held = false;
          reserved.delete(conversationId);
          return begin({ ...req, conversationId });
        },
        release() {
          if (!held) return;
          held = false;
          reserved.delete(conversationId);
        },
      };
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
    isRunning: (conversationId) => turns.has(conversationId) || reserved.has(conversationId),
    runningTurnId: (conversationId) => turns.get(conversationId)?.turn.id,
    settled: async (conversationId) => {
      await turns.get(conversationId)?.done;
    },
    settledAll: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const all = Promise.all([...turns.values()].map((t) => t.done)).then(() => true);
      try {
        return await Promise.race([all, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
