import { z } from 'zod';

/**
 * Model providers: any OpenAI-compatible endpoint (Ollama, LM Studio, llama.cpp server,
 * vLLM, OpenRouter, OpenAI) or Anthropic. A provider's API key lives in the secret store
 * (as `provider-<id>`), bound to the host of its base URL; it never comes back out.
 */
export const ProviderKindSchema = z.enum(['openai-compatible', 'anthropic']);
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

export const ProviderSchema = z
  .object({
    id: z.string(),
    name: z.string().min(1).max(100),
    kind: ProviderKindSchema,
    /** e.g. http://127.0.0.1:11434/v1 (Ollama), https://api.openai.com/v1, https://api.anthropic.com */
    baseUrl: z.string().url().max(2048),
    /** A key is stored for it (its value is never sent back). */
    hasKey: z.boolean(),
    /** The models it listed when last asked. */
    models: z.array(z.string().max(300)).max(5000),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict();
export type Provider = z.infer<typeof ProviderSchema>;

export const ProviderInputSchema = z
  .object({
    name: z.string().trim().min(1, 'a name is required').max(100),
    kind: ProviderKindSchema,
    baseUrl: z.string().url('a URL such as http://127.0.0.1:11434/v1').max(2048),
    /** A new key; null removes the stored one; absent or blank keeps it (but a change of host without a new key removes it). */
    apiKey: z.string().max(16 * 1024).nullable().optional(),
  })
  .strict();
export type ProviderInput = z.infer<typeof ProviderInputSchema>;

/** The verdict of "Test connection". */
export const ConnectionVerdictSchema = z
  .object({
    ok: z.boolean(),
    /** One sentence a user can act on: "Connected: 3 models", "The key was refused (401)", ... */
    message: z.string(),
    models: z.array(z.string()).optional(),
    latencyMs: z.number().optional(),
  })
  .strict();
export type ConnectionVerdict = z.infer<typeof ConnectionVerdictSchema>;

/** A local server found on 127.0.0.1 at its usual port (not saved until the user adds it). */
export const DetectedProviderSchema = z
  .object({ name: z.string(), kind: ProviderKindSchema, baseUrl: z.string(), models: z.array(z.string()) })
  .strict();
export type DetectedProvider = z.infer<typeof DetectedProviderSchema>;

/** Which model a conversation talks to. */
export const ModelRefSchema = z.object({ providerId: z.string().min(1).max(100), model: z.string().min(1).max(300) }).strict();
export type ModelRef = z.infer<typeof ModelRefSchema>;

export const UsageSchema = z
  .object({ inputTokens: z.number().int().min(0).optional(), outputTokens: z.number().int().min(0).optional() })
  .strict();
export type Usage = z.infer<typeof UsageSchema>;

/** Remembered approvals: a tool always allowed, or allowed in one conversation. */
export const ApprovalRuleSchema = z
  .object({
    toolId: z.string(),
    /** For display: bundle/slug. */
    toolName: z.string(),
    scope: z.enum(['always', 'conversation']),
    conversationId: z.string().optional(),
    createdAt: z.string(),
  })
  .strict();
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

export const ApprovalDecisionSchema = z.enum(['allow-once', 'allow-conversation', 'allow-always', 'deny']);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** Which tools the model may use in a conversation: null = every enabled tool. */
export const ToolSelectionSchema = z
  .object({ bundleIds: z.array(z.string()).max(1000), toolIds: z.array(z.string()).max(10_000) })
  .strict();
export type ToolSelection = z.infer<typeof ToolSelectionSchema>;
