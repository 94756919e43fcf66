/**
 * Memory (docs/design/memory.md): blocks an agent keeps in its working context, and archival
 * recall entries. A block's content is a Loro document in the core; here are the shapes that
 * cross the contract and the names the tools use.
 */
import { z } from 'zod';
import { keyedRecord } from './keyed-record';

/** The built-in Memory bundle (resources/bundles/memory): its tools act on a conversation's or an agent's memory. */
export const MEMORY_BUNDLE_ID = '019ab5a0-3c00-7b1a-8c90-4d2e6f8a0b10';

export const BLOCK_SCHEMA_KINDS = ['Text', 'List', 'Map', 'Composite'] as const;
export const BLOCK_TYPES = ['Working', 'Archival'] as const;
/** From the least to the most an agent may do with a block. */
export const MEMORY_PERMISSIONS = ['ReadOnly', 'Partner', 'Human', 'Append', 'ReadWrite', 'Admin'] as const;
export type MemoryPermission = (typeof MEMORY_PERMISSIONS)[number];
export type BlockType = (typeof BLOCK_TYPES)[number];

export const BLOCK_OPS = ['load', 'pin', 'unpin', 'archive', 'info'] as const;
export const BLOCK_EDIT_OPS = ['append', 'replace', 'patch', 'set_field'] as const;
export const RECALL_OPS = ['insert', 'search'] as const;
/** The `source` tool (data sources) and the `file` tool (a FileSource's files). */
export const SOURCE_OPS = ['pause', 'resume', 'status', 'list'] as const;
export const FILE_OPS = ['load', 'save', 'create', 'delete', 'append', 'replace'] as const;
export type SourceOp = (typeof SOURCE_OPS)[number];
export type FileOp = (typeof FILE_OPS)[number];
export type BlockOp = (typeof BLOCK_OPS)[number];
export type BlockEditOp = (typeof BLOCK_EDIT_OPS)[number];
export type RecallOp = (typeof RECALL_OPS)[number];

/** Every operation an agent's AllowedOperations may name: `tool.op`. */
export const MEMORY_OPERATIONS = [
  ...BLOCK_OPS.map((o) => `block.${o}` as const), ...BLOCK_EDIT_OPS.map((o) => `block_edit.${o}` as const), ...RECALL_OPS.map((o) => `recall.${o}` as const),
  ...SOURCE_OPS.map((o) => `source.${o}` as const),
  ...FILE_OPS.map((o) => `file.${o}` as const),
] as const;
export type MemoryOperation = (typeof MEMORY_OPERATIONS)[number];
export const MemoryOperationSchema = z.enum(MEMORY_OPERATIONS as unknown as [MemoryOperation, ...MemoryOperation[]]);

/** Capabilities beyond the operations: `AdvancedEdit` lets an agent apply unified diffs (block_edit patch). */
export const MEMORY_CAPABILITIES = ['AdvancedEdit'] as const;
export const MemoryCapabilitySchema = z.enum(MEMORY_CAPABILITIES);

/** A label: what the tools name a block by. */
export const BlockLabelSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((v) => v.trim() === v && ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), 'a label has no control characters and no spaces at its ends');

export const CompositeFieldSchema = z
  .object({
    name: z.string().min(1).max(100),
    /** `set_field` refuses a read-only field. */
    read_only: z.boolean().default(false),
    description: z.string().max(500).optional(),
  })
  .strict();

export const BlockSchemaSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('Text') }).strict(),
  z.object({ kind: z.literal('List') }).strict(),
  z.object({ kind: z.literal('Map') }).strict(),
  z
    .object({ kind: z.literal('Composite'), fields: z.array(CompositeFieldSchema).min(1).max(100) })
    .strict()
    .superRefine((s, ctx) => {
      const seen = new Set<string>();
      s.fields.forEach((f, i) => {
        if (seen.has(f.name)) ctx.addIssue({ code: 'custom', path: ['fields', i, 'name'], message: `field '${f.name}' is listed twice` });
        seen.add(f.name);
      });
    }),
]);
export type BlockSchema = z.infer<typeof BlockSchemaSchema>;

/** The largest character limit a block may have. */
export const MAX_BLOCK_CHAR_LIMIT = 1_000_000;
export const DEFAULT_BLOCK_CHAR_LIMIT = 5_000;

/** Who a block belongs to: one conversation (or task), or an agent profile across its tasks. */
export const MemoryOwnerSchema = z.string().regex(/^(conversation|agent):.{1,200}$/, 'an owner is conversation:<id> or agent:<name>');

export const NewBlockSchema = z
  .object({
    owner: MemoryOwnerSchema,
    label: BlockLabelSchema,
    schema: BlockSchemaSchema.default({ kind: 'Text' }),
    type: z.enum(BLOCK_TYPES).default('Working'),
    pinned: z.boolean().default(false),
    permission: z.enum(MEMORY_PERMISSIONS).default('ReadWrite'),
    description: z.string().max(2000).default(''),
    charLimit: z.number().int().min(1).max(MAX_BLOCK_CHAR_LIMIT).default(DEFAULT_BLOCK_CHAR_LIMIT),
    /** Text: a string; List: strings; Map and Composite: an object. */
    content: z.unknown().optional(),
  })
  .strict();
export type NewBlock = z.input<typeof NewBlockSchema>;

export const BlockInfoSchema = z
  .object({
    id: z.string(),
    owner: z.string(),
    label: z.string(),
    schema: BlockSchemaSchema,
    type: z.enum(BLOCK_TYPES),
    pinned: z.boolean(),
    permission: z.enum(MEMORY_PERMISSIONS),
    description: z.string(),
    charLimit: z.number().int(),
    /** Characters of the content as the model reads it. */
    size: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict();
export type BlockInfo = z.infer<typeof BlockInfoSchema>;

export const BlockViewSchema = BlockInfoSchema.extend({ content: z.unknown(), text: z.string() }).strict();
export type BlockView = z.infer<typeof BlockViewSchema>;

/** One version of a block: what changed it, by whom, when; `current` marks the one shown now. */
export const BlockVersionSchema = z
  .object({
    seq: z.number().int().min(1),
    op: z.string(),
    by: z.string(),
    at: z.string(),
    text: z.string(),
    current: z.boolean(),
    /** Undone: redo brings it back (until a new edit drops it). */
    undone: z.boolean(),
  })
  .strict();
export type BlockVersion = z.infer<typeof BlockVersionSchema>;

export const RecallEntrySchema = z
  .object({
    id: z.string(),
    owner: z.string(),
    content: z.string(),
    metadata: keyedRecord(z.string(), z.unknown()),
    tags: z.array(z.string()),
    createdAt: z.string(),
  })
  .strict();
export type RecallEntry = z.infer<typeof RecallEntrySchema>;

export const RecallHitSchema = RecallEntrySchema.extend({ score: z.number() }).strict();
export type RecallHit = z.infer<typeof RecallHitSchema>;

export const RecallQuerySchema = z
  .object({
    owner: MemoryOwnerSchema,
    query: z.string().min(1).max(2000),
    limit: z.number().int().min(1).max(200).default(10),
    tags: z.array(z.string().min(1).max(100)).max(20).optional(),
    since: z.string().datetime({ offset: true }).optional(),
    until: z.string().datetime({ offset: true }).optional(),
  })
  .strict();
export type RecallQuery = z.input<typeof RecallQuerySchema>;

/**
 * An agent profile's memory: whose blocks its tasks use (each task's own conversation, or the
 * profile's, shared by all its tasks), its AllowedOperations (default: all) and capabilities
 * (AdvancedEdit lets it apply unified diffs; default: none).
 */
export const AgentMemorySchema = z
  .object({
    scope: z.enum(['conversation', 'profile']).default('conversation'),
    allowedOperations: z.array(MemoryOperationSchema).max(MEMORY_OPERATIONS.length).optional(),
    capabilities: z.array(MemoryCapabilitySchema).max(MEMORY_CAPABILITIES.length).default([]),
  })
  .strict();
export type AgentMemory = z.infer<typeof AgentMemorySchema>;

/** How the human answered a consent card; `timeout` and `closed` (the app closed) count as deny. */
export const CONSENT_ANSWERS = ['allow-once', 'allow-conversation', 'deny', 'timeout', 'closed'] as const;
export const ConsentAnswerSchema = z.enum(CONSENT_ANSWERS);
export type ConsentAnswer = z.infer<typeof ConsentAnswerSchema>;
/** What the human can pick on the card. */
export const ConsentChoiceSchema = z.enum(['allow-once', 'allow-conversation', 'deny']);
export type ConsentChoice = z.infer<typeof ConsentChoiceSchema>;

/**
 * A memory operation waiting for the human's consent (Partner and Human blocks), shown on
 * the call's card in the chat: the operation, the block, and for edits the content before and
 * after with a unified diff. `answer` is absent while it waits.
 */
export const ConsentInfoSchema = z
  .object({
    /** Answers go to this id (memory.consent.respond). */
    id: z.string(),
    operation: MemoryOperationSchema,
    owner: z.string(),
    label: z.string(),
    permission: z.enum(MEMORY_PERMISSIONS),
    summary: z.string(),
    before: z.string().optional(),
    after: z.string().optional(),
    diff: z.string().optional(),
    /** The task's conversation, when an agent's task asks. */
    conversationId: z.string().optional(),
    answer: ConsentAnswerSchema.optional(),
  })
  .strict();
export type ConsentInfo = z.infer<typeof ConsentInfoSchema>;
