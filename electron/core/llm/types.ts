/**
 * What a model client speaks: the messages a model is given, the tools it sees, one step's
 * request and result, and the client that runs a step (electron/core/agent/providers). Shared by
 * the agent loop and by anything else that calls a model (tool-output extraction), so neither
 * imports the other.
 */
import type { Usage } from '../../../shared/model/provider';
import type { Reasoning } from '../../../shared/model/model-params';

/** What a model is given: the conversation rendered from the timeline. */
export type ModelMessage =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string; images?: ModelImage[] }
  | { role: 'assistant'; text: string; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; callId: string; name: string; text: string; isError?: boolean; images?: ModelImage[] };

/**
 * An image a tool returned (./result-content.ts), beside the text that stands in for it
 * (`[image 1: image/png, 70 bytes]`). A client sends it as an image only to a model known to take
 * images (agent/providers/image-input.ts); otherwise the model gets the text alone.
 */
export interface ModelImage {
  /** As the text names it: `image 1`. */
  label: string;
  mimeType: string;
  /** Decoded size. */
  bytes: number;
  base64: string;
}

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
  /** 0..2 (absent: the model's default); a client leaves it out for a model that does not take it (shared/model/model-params.ts). */
  temperature?: number;
  /** A reasoning model's effort (OpenAI) or thinking budget (Anthropic); left out for a model without one. */
  reasoning?: Reasoning;
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

