/**
 * A workflow step for a model: its prompt goes into the run's conversation as a user
 * message and a model turn answers it there, with the step's `@tools` (and their output=)
 * on top of the conversation's tools, exactly as a chat message would. The runner is given
 * this as a function (built by workflows/module.ts from the agent loop), so the runner never
 * imports the agent, and the agent knows nothing of workflows.
 */
import { AppError, type ErrorInfo } from '../../../shared/errors';
import type { DirectiveOutcome } from '../../../shared/model/conversation';
import type { ModelRef } from '../../../shared/model/provider';
import type { AgentLoopService } from '../agent/loop';
import type { TurnRequest } from '../agent/types';
import type { ConversationStore } from '../timeline/conversation-store';
import type { EventBus } from '../events';
import { turnEndedWithout } from './strings';

export interface StepTurnRequest {
  conversationId: string;
  model: ModelRef;
  /** The step's text as written (its user message). */
  text: string;
  /** What its directives made of it: the prompt with inlined inputs and manifests. */
  prompt: string;
  outcomes: DirectiveOutcome[];
  directiveTools: NonNullable<TurnRequest['directiveTools']>;
  /** The workflow's front matter thresholds for oversized outputs. */
  extraction?: TurnRequest['extraction'];
  /** Aborted when the run is cancelled: the turn is stopped. */
  signal: AbortSignal;
}

export type StepTurnResult = { state: 'done' } | { state: 'error' | 'stopped'; error: ErrorInfo };

/** Runs one model turn for a step and settles when it has ended. CONFLICT when the conversation has a turn running. */
export type RunStepTurn = (req: StepTurnRequest) => Promise<StepTurnResult>;

export interface AgentStepTurnDeps {
  agent: Pick<AgentLoopService, 'reserve' | 'stop' | 'settled'>;
  conversations: Pick<ConversationStore, 'addMessages' | 'timeline'>;
  events: EventBus;
}

/** The RunStepTurn of the agent loop. */
export function agentStepTurns(deps: AgentStepTurnDeps): RunStepTurn {
  return async (req) => {
    const { conversationId: cid, signal } = req;
    if (signal.aborted) throw new AppError('CANCELLED', 'cancelled');
    // Held before the message is stored: a turn already running refuses the step with nothing written.
    const reservation = deps.agent.reserve(cid);
    const states = new Map<string, 'done' | 'error' | 'stopped'>();
    const off = deps.events.on('chat.turn', (t) => {
      if (t.conversationId === cid && t.state !== 'running') states.set(t.turnId, t.state);
    });
    const stop = () => deps.agent.stop(cid);
    try {
      deps.conversations.addMessages(cid, [{ role: 'user', text: req.text, prompt: req.prompt, ...(req.outcomes.length ? { outcomes: req.outcomes } : {}) }]);
      const turnId = reservation.start({ model: req.model, prompt: req.prompt, directiveTools: req.directiveTools, ...(req.extraction ? { extraction: req.extraction } : {}) });
      signal.addEventListener('abort', stop, { once: true });
      await deps.agent.settled(cid);
      const state = states.get(turnId) ?? 'error';
      if (state === 'done') return { state };
      // The turn's last notice says why it ended (the model failed, the provider is missing, stopped).
      const notice = deps.conversations
        .timeline(cid)
        .filter((m) => m.turnId === turnId && m.role === 'notice')
        .at(-1);
      return { state, error: notice?.error ?? { code: state === 'stopped' ? 'CANCELLED' : 'INTERNAL', message: notice?.text ?? turnEndedWithout(state) } };
    } finally {
      off();
      signal.removeEventListener('abort', stop);
      reservation.release();
    }
  };
}
