/**
 * A model in a conversation: its model, tools and extraction thresholds, the agent turn (its
 * streamed text, its start and end, stopping it) and the approvals of its calls.
 */
import { z } from 'zod';
import { ConversationSchema } from '../model/conversation';
import { ApprovalDecisionSchema, ApprovalRuleSchema, ModelRefSchema, ToolSelectionSchema } from '../model/provider';
import { ExtractionOverridesSchema } from '../model/settings';
import { ModelParamsSchema, SystemPromptSchema } from '../model/model-params';
import { Empty, Key, SchemaIssueSchema, type EventTable, type OperationTable } from './common';

export const agentOperations = {
  'conversations.setModel': { input: z.object({ id: Key, model: ModelRefSchema.nullable() }).strict(), output: ConversationSchema },
  'conversations.setTools': { input: z.object({ id: Key, tools: ToolSelectionSchema.nullable() }).strict(), output: ConversationSchema },
  /** The extraction thresholds of its oversized outputs over Settings' (null or {}: Settings' again). */
  'conversations.setExtraction': { input: z.object({ id: Key, extraction: ExtractionOverridesSchema.nullable() }).strict(), output: ConversationSchema },
  /**
   * Its own system prompt and model parameters. A field given replaces the stored one (null, '' or {}:
   * none again); one left out stays as it is. Values out of bounds are VALIDATION_FAILED, nothing saved.
   */
  'conversations.setOptions': {
    input: z.object({ id: Key, systemPrompt: SystemPromptSchema.nullable().optional(), params: ModelParamsSchema.nullable().optional() }).strict(),
    output: ConversationSchema,
  },
  /** Stops the conversation's running turn: the model's stream and its running tools. */
  'chat.stop': { input: z.object({ conversationId: Key }).strict(), output: z.object({ stopped: z.boolean() }).strict() },
  /**
   * Answers a model's call that waits for approval; `args` replaces the model's arguments (edited by the user).
   * Edited arguments that do not match the tool's argSchema are VALIDATION_FAILED and the call keeps waiting.
   */
  'approvals.respond': {
    input: z
      .object({
        conversationId: Key,
        invocationId: Key,
        decision: ApprovalDecisionSchema,
        args: z.unknown().optional(),
        /** With deny: why, given to the model in the call's result. */
        reason: z.string().trim().max(2000).optional(),
      })
      .strict(),
    output: z.object({ accepted: z.boolean() }).strict(),
  },
  /** Checks edited arguments as Allow would, answering nothing: the card shows the issues (waiting false when the call no longer waits). */
  'approvals.check': {
    input: z.object({ conversationId: Key, invocationId: Key, args: z.unknown() }).strict(),
    output: z.object({ waiting: z.boolean(), issues: z.array(SchemaIssueSchema) }).strict(),
  },
  'approvals.list': { input: Empty, output: z.array(ApprovalRuleSchema) },
  'approvals.revoke': {
    input: z.object({ toolId: Key, scope: z.enum(['always', 'conversation']), conversationId: Key.optional() }).strict(),
    output: z.object({ revoked: z.boolean() }).strict(),
  },
} as const satisfies OperationTable;

export const agentEvents = {
  /**
   * Text a model is streaming into an assistant row (appended chunks; the row is stored when the step ends).
   * `at`: where the chunk begins in the row's text, so a view that read the text so far (conversations.get's
   * `streaming`) joins the chunks to it without a gap or a repeat.
   */
  'chat.delta': z.object({ conversationId: z.string(), turnId: z.string(), messageId: z.string(), text: z.string(), at: z.number().int().min(0) }).strict(),
  /** An agent turn started or ended. */
  'chat.turn': z.object({ conversationId: z.string(), turnId: z.string(), state: z.enum(['running', 'done', 'error', 'stopped']) }).strict(),
  'approvals.changed': z.object({}).strict(),
} as const satisfies EventTable;
