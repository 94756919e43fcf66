/**
 * The agent loop: at most one turn per conversation, run in the background (./turn.ts).
 * start() answers the turn's id at once; the turn reports itself with 'chat.turn' and
 * 'chat.delta' events and its rows on the timeline.
 */
import { AppError } from '../../../shared/errors';
import type { ApprovalDecision } from '../../../shared/model/provider';
import { runningTurn } from './strings';
import { Turn } from './turn';
import type { AgentLoop, TurnRequest } from './types';
import type { AgentLoopDeps, TaskRunner } from './deps';

export type { AgentLoopDeps } from './deps';

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
  /** The text the running turn's model has streamed so far into a row not stored yet. */
  streaming(conversationId: string): { turnId: string; messageId: string; text: string } | undefined;
  /** Settles when the conversation's running turn has ended (at once when none runs). */
  settled(conversationId: string): Promise<void>;
  /** Settles when every running turn has ended, or after `timeoutMs`: true when they all ended. */
  settledAll(timeoutMs: number): Promise<boolean>;
  /** Gives the user's answer to an agent's question (a question task waiting); false when none waits under that id. */
  answer(questionId: string, text: string): boolean;
  /**
   * Ends an agent's question to the user without an answer (nobody can give one: an unattended
   * eval run): the asking agent's call fails with `reason` (UNAVAILABLE). False when none waits under that id.
   */
  decline(questionId: string, reason: string): boolean;
}

export function createAgentLoop(outer: AgentLoopDeps): AgentLoopService {
  const turns = new Map<string, { turn: Turn; done: Promise<void> }>();
  /** Agents' questions waiting for the user's answer, by question task id. */
  const questions = new Map<string, { give: (text: string) => void; decline: (reason: string) => void }>();
  // A task's turn is a turn like any other (Stop, approvals and settled() reach it).
  const runner: TaskRunner = {
    run: (req) => {
      refuseBusy(req.conversationId);
      return begin(req).state;
    },
    stop: (conversationId) => {
      turns.get(conversationId)?.turn.stop();
    },
    waitForAnswer: (questionId, signal) =>
      new Promise<string>((resolve, reject) => {
        const cancel = () => {
          questions.delete(questionId);
          reject(new AppError('CANCELLED', 'stopped before the question was answered'));
        };
        if (signal.aborted) return cancel();
        signal.addEventListener('abort', cancel, { once: true });
        const settle = () => {
          signal.removeEventListener('abort', cancel);
          questions.delete(questionId);
        };
        questions.set(questionId, {
          give: (text) => {
            settle();
            resolve(text);
          },
          decline: (reason) => {
            settle();
            reject(new AppError('UNAVAILABLE', reason));
          },
        });
      }),
  };
  const deps: AgentLoopDeps = { ...outer, tasks: { ...outer.tasks, runner } };
  /** Conversations whose next turn is held (see reserve()). */
  const reserved = new Set<string>();
  const refuseBusy = (cid: string) => {
    if (turns.has(cid) || reserved.has(cid)) throw new AppError('CONFLICT', runningTurn(cid), { conversationId: cid });
  };

  const begin = (req: TurnRequest): { id: string; state: Promise<'done' | 'error' | 'stopped'> } => {
    const cid = req.conversationId;
    deps.conversations.get(cid);
    const turn = new Turn(deps, req);
    const state = turn.run().catch((e: unknown): 'error' => {
      console.error('agent turn failed:', e);
      return 'error';
    });
    const done = state.then(() => {
      if (turns.get(cid)?.turn === turn) turns.delete(cid);
    });
    turns.set(cid, { turn, done });
    return { id: turn.id, state: state.then(async (s) => (await done, s)) };
  };

  return {
    start(req: TurnRequest): string {
      refuseBusy(req.conversationId);
      return begin(req).id;
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
          return begin({ ...req, conversationId }).id;
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
    respond(conversationId: string, invocationId: string, decision: ApprovalDecision, args?: unknown, reason?: string): boolean {
      const t = turns.get(conversationId);
      if (!t) return false;
      return t.turn.respond(invocationId, { decision, ...(args === undefined ? {} : { args }), ...(reason ? { reason } : {}) });
    },
    checkEdited(conversationId: string, invocationId: string, args: unknown) {
      return turns.get(conversationId)?.turn.checkEdited(invocationId, args) ?? null;
    },
    stopAll(): void {
      for (const t of turns.values()) t.turn.stop();
    },
    answer(questionId: string, text: string): boolean {
      const q = questions.get(questionId);
      if (!q) return false;
      q.give(text);
      return true;
    },
    decline(questionId: string, reason: string): boolean {
      const q = questions.get(questionId);
      if (!q) return false;
      q.decline(reason);
      return true;
    },
    isRunning: (conversationId) => turns.has(conversationId) || reserved.has(conversationId),
    runningTurnId: (conversationId) => turns.get(conversationId)?.turn.id,
    streaming: (conversationId) => turns.get(conversationId)?.turn.streaming(),
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
