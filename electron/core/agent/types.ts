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
import type { ModelRef, Usage } from '../../../shared/model/provider';

/** What a model is given: the conversation rendered from the timeline. */
export type ModelMessage =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; callId: string; name: string; text: string; isError?: boolean };

export interface ModelToolCall {
  /** The id the model gave the call. */
  callId: string;
  /** The tool's name as the model saw it (see ModelToolSpec.name). */
  name: string;
  /** The arguments as the model sent them: JSON text (it may be malformed). */
  argsText: string;
}

/** A tool as the model sees it: the whole JSON Schema (enum, items, nested objects). */
export interface ModelToolSpec {
  /** Unique in the request; letters, digits, _ and - (providers' rules): the slug, or bundle__slug when two share one. */
  name: string;
  description: string;
  parameters: unknown;
}

export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  maxOutputTokens?: number;
}

export interface ModelStepResult {
  text: string;
  toolCalls: ModelToolCall[];
  usage?: Usage;
  /** end: the model answered; tools: it wants tool results; length: cut at the token limit. */
  stopReason: 'end' | 'tools' | 'length' | 'other';
}

export interface ModelClient {
  /** Lists the provider's models (the connection test). */
  listModels(signal?: AbortSignal): Promise<string[]>;
  /**
   * One step, streamed: `onText` gets text chunks as they arrive. Failures are AppErrors with
   * a message a user can act on: UNAUTHORIZED (401/403), RATE_LIMITED (429), UNAVAILABLE
   * (down, 5xx, a stream cut midway), VALIDATION_FAILED (a reply that is not what the API
   * promises), CANCELLED (the signal).
   */
  step(req: ModelRequest, onText: (chunk: string) => void, signal: AbortSignal): Promise<ModelStepResult>;
}

export interface ModelClientFactory {
  /** NOT_FOUND for an unknown provider. */
  forProvider(providerId: string): ModelClient;
}

export interface TurnRequest {
  conversationId: string;
  model: ModelRef;
  /** What the user typed (directives already run; see DirectiveRunResult.prompt). */
  prompt: string;
  /** From the message's @tools lines: tools enabled (with routing) on top of the conversation's selection. */
  directiveTools?: { toolId: string; output?: import('../../../shared/model/routing').Destination; writeMode?: import('../../../shared/model/routing').WriteMode }[];
}

export interface AgentLoop {
  /** Starts a turn in the background; answers its id. CONFLICT when the conversation already has one running. */
  start(req: TurnRequest): string;
  /** Stops the conversation's running turn (model stream and tools); false when none runs. */
  stop(conversationId: string): boolean;
  /** Delivers the user's answer to a call awaiting approval; false when none waits under that id. */
  respond(conversationId: string, invocationId: string, decision: import('../../../shared/model/provider').ApprovalDecision, args?: unknown): boolean;
  /** Stops everything (the core is closing). */
  stopAll(): void;
}

export type TurnError = ErrorInfo;
