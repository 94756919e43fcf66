/** Oversized tool outputs (docs/design/tool-outputs.md): the handles of a conversation, for Inspect → Stored outputs. */
import { z } from 'zod';
import { ExtractionInfoSchema, MessageSchema, OutputSizeShape } from '../model/conversation';
import { BufferReadSchema } from '../model/routing';
import { OversizedChoiceSchema } from '../model/settings';
import { Key, type EventTable, type OperationTable } from './common';

export const StoredOutputSchema = z
  .object({
    handle: z.string(),
    conversationId: z.string(),
    toolName: z.string(),
    toolId: z.string().optional(),
    argsJson: z.string(),
    ...OutputSizeShape,
    createdAt: z.string(),
  })
  .strict();
export type StoredOutputSummary = z.infer<typeof StoredOutputSchema>;

export const toolOutputsOperations = {
  'toolOutputs.list': { input: z.object({ conversationId: Key.optional() }).strict(), output: z.array(StoredOutputSchema) },
  'toolOutputs.read': {
    input: z.object({ handle: Key, startLine: z.number().int().min(1).optional(), endLine: z.number().int().min(1).optional() }).strict(),
    output: BufferReadSchema,
  },
  /** Runs an extraction by hand, with the conversation's model (none: auto truncates). */
  'toolOutputs.extract': {
    input: z.object({ handle: Key, extract: z.string().min(1).max(20_000), mode: z.enum(['auto', 'full-chunked', 'read-grep', 'truncate']).optional() }).strict(),
    output: z.object({ text: z.string(), isError: z.boolean(), extraction: ExtractionInfoSchema.optional() }).strict(),
  },
  'toolOutputs.delete': { input: z.object({ handle: Key }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  /** The gate's choice for an oversized result, changed on its card (a new row for the call); `remember` makes it the tool's default. */
  'toolOutputs.choose': {
    input: z.object({ conversationId: Key, invocationId: Key, choice: OversizedChoiceSchema, remember: z.boolean().optional() }).strict(),
    output: MessageSchema,
  },
} as const satisfies OperationTable;

export const toolOutputsEvents = {
  /** A conversation's stored outputs changed (one stored, deleted, or its session ended). */
  'toolOutputs.changed': z.object({ conversationId: z.string() }).strict(),
} as const satisfies EventTable;
