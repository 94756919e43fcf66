/**
 * What the agent loop is built with (./loop.ts): the services a turn uses, and what features
 * add to it. Types only: the loop, the turn and its calls import them from here, not from
 * each other.
 */
import type { AgentProfile } from '../../../shared/model/agent-profile';
import type { EventBus } from '../events';
import type { InvokeDispatcher, InvokeOutcome } from '../invoke/dispatcher';
import type { ToolStore } from '../bundles/tool-store';
import type { TurnContribution } from '../platform/turn-contributions';
import type { RoutingServices } from '../routing';
import type { SettingsStore } from '../settings/settings-store';
import type { ConversationStore } from '../timeline/conversation-store';
import type { Redact } from '../timeline/render';
import type { ToolOutputService } from '../tool-output/service';
import type { SemanticSearch } from '../tool-search';
import type { ApprovalStore } from './approvals';
import type { ModelClientFactory, TurnRequest } from './types';

/** How the loop runs a task's turn: registered like any turn, so Stop and approvals reach it. */
export interface TaskRunner {
  run(req: TurnRequest): Promise<'done' | 'error' | 'stopped'>;
  stop(conversationId: string): void;
  /** Waits for the human's answer to a question task; rejects CANCELLED when the signal aborts. */
  waitForAnswer(questionId: string, signal: AbortSignal): Promise<string>;
}

/** What the loop's deps hold for orchestration (absent: the orchestration tools are not offered). */
export interface TaskDeps {
  /** The enabled profiles: by name, and all of them (the conversation may delegate to each). */
  agents: { enabled(name: string): AgentProfile | undefined; list(): AgentProfile[] };
  workspaceDir: () => string;
  /** The delegation depth limit now (Settings' maxDelegationDepth); default DEFAULT_MAX_DEPTH. */
  maxDepth?: () => number;
  runner: TaskRunner;
}

/** A call as answerWithoutRunning sees it: the tool, the arguments less routing parameters, whose call it is. */
export interface AnsweredCall {
  bundleId: string;
  slug: string;
  version: string;
  args: unknown;
  /** The conversation the call is made in (a task's own, for a delegated agent's call). */
  ownerId: string;
  invocationId: string;
}

export interface AgentLoopDeps {
  conversations: ConversationStore;
  clients: ModelClientFactory;
  dispatcher: Pick<InvokeDispatcher, 'invoke' | 'cancel' | 'checkArgs'>;
  /** `trustAllowedScript` absent: allowing a call trusts no script (an unattended run's answers are not a person's). */
  registry: { store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById' | 'approvals'> & Partial<Pick<ToolStore, 'trustAllowedScript'>> };
  routing: RoutingServices;
  approvals: ApprovalStore;
  settings: Pick<SettingsStore, 'get'>;
  events: EventBus;
  now: () => Date;
  /** Applied to everything the model is given and every error shown (the secret store's redactor). */
  redact?: Redact;
  /**
   * Oversized tool outputs (docs/design/tool-outputs.md): the gate every result passes and
   * `tool_output`, offered while the conversation has stored outputs. Part of every turn.
   */
  toolOutputs: ToolOutputService;
  /** Semantic search for tool_search (docs/tool-search.md): off unless Settings turn it on; off or failing, words only. */
  semantic: Pick<SemanticSearch, 'enabled' | 'nearest'>;
  /** Steps a turn may take (default 12; a task's: its profile's). */
  maxSteps?: number;
  /**
   * What features add to every step (read at each step, so one added later applies): text
   * after the system text (memory's pinned blocks), and what a later batch (turn) is told
   * instead of a card an earlier one loaded.
   */
  contributions?: readonly TurnContribution[];
  /**
   * A registry tool's call answered without running anything (an eval case's canned result, or
   * its refusal of tools without one): its outcome goes on the card as it is, before any
   * approval is asked, and is neither routed (the routing parameters the model gave are set
   * aside) nor gated. Absent, or answering undefined: the call runs.
   */
  answerWithoutRunning?: (call: AnsweredCall) => InvokeOutcome | undefined;
  /** Orchestration (docs/design/orchestration.md): the agent profiles a turn may delegate to (none enabled: no orchestration tools). The loop adds the runner. */
  tasks: Omit<TaskDeps, 'runner'> & { runner?: TaskRunner };
}
