/**
 * The seams of the agent (models in the chat), so providers, the loop, approvals and the
 * chat can be built and tested apart.
 *
 * - ProviderStore (./providers/provider-store.ts): providers in `<data>/providers.json`,
 *   keys in the secret store as `provider-<id>` bound to the base URL's host.
 * - ModelClient (./providers/openai-client.ts, ./providers/anthropic-client.ts): one step
 *   of a model through its maintained client library (openai, @anthropic-ai/sdk):
 *   streaming text, tool calls, usage, cancellation.
 * - AgentLoop (./loop.ts): a turn: render the timeline for the model, stream a step, run
 *   its tool calls (approvals, routing, concurrency) per TOOL_BEHAVIOR, until the model
 *   answers or the step limit; everything appended to the timeline (the messages table).
 */
import type { ErrorInfo } from '../../../shared/errors';
import type { ModelRef } from '../../../shared/model/provider';

export type { ModelClient, ModelClientFactory, ModelImage, ModelMessage, ModelRequest, ModelStepResult, ModelToolCall, ModelToolSpec } from '../llm/types';

export interface TurnRequest {
  conversationId: string;
  model: ModelRef;
  /** What the user typed (directives already run; see DirectiveRunResult.prompt). */
  prompt: string;
  /** From the message's @tools lines: tools enabled (with routing) on top of the conversation's selection. */
  directiveTools?: { toolId: string; output?: import('../../../shared/model/routing').Destination; writeMode?: import('../../../shared/model/routing').WriteMode }[];
  /** Extraction thresholds over the conversation's (a workflow's front matter). */
  extraction?: import('../../../shared/model/settings').ExtractionOverrides;
  /** The task this turn runs (docs/design/orchestration.md); absent: the conversation itself, task 0. */
  task?: import('./task-calls').TaskTurn;
}

export interface AgentLoop {
  /** Starts a turn in the background; answers its id. CONFLICT when the conversation already has one running. */
  start(req: TurnRequest): string;
  /** Stops the conversation's running turn (model stream and tools); false when none runs. */
  stop(conversationId: string): boolean;
  /** Delivers the user's answer to a call awaiting approval; false when none waits under that id. */
  respond(conversationId: string, invocationId: string, decision: import('../../../shared/model/provider').ApprovalDecision, args?: unknown, reason?: string): boolean;
  /**
   * Checks edited arguments for a call awaiting approval as an allowing answer would,
   * answering nothing: the issues (empty when they pass), or null when no call waits under that id.
   */
  checkEdited(conversationId: string, invocationId: string, args: unknown): readonly { path: string; message: string }[] | null;
  /** Stops everything (the core is closing). */
  stopAll(): void;
}

export type TurnError = ErrorInfo;
