import { z } from 'zod';
import { ErrorInfoSchema } from '../errors';
import { ManifestSchema } from './routing';
import { ApprovalDecisionSchema, ModelRefSchema, ToolSelectionSchema, UsageSchema } from './provider';
import { ExtractionOverridesSchema, OversizedChoiceSchema } from './settings';
import { ConsentInfoSchema } from './memory';
import { ApprovalInfoSchema } from './tool-approval';
import { ModelParamsSchema, SystemPromptSchema } from './model-params';

export const ConversationSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    messageCount: z.number().int().min(0),
    /** The model this conversation talks to; absent: none chosen (the + palette and @model none still work). */
    model: ModelRefSchema.optional(),
    /** Which tools its model may use; absent: every enabled tool. */
    tools: ToolSelectionSchema.optional(),
    /** Extraction thresholds for oversized outputs over Settings' (docs/design/tool-outputs.md); absent: Settings'. */
    extraction: ExtractionOverridesSchema.optional(),
    /** Its own system prompt, given to its model after the app's system text and the context sections; absent: none. */
    systemPrompt: SystemPromptSchema.optional(),
    /** Temperature, max tokens, reasoning for its model (docs/chat.md, "Conversation settings"); absent: the model's defaults. */
    params: ModelParamsSchema.optional(),
  })
  .strict();
export type Conversation = z.infer<typeof ConversationSchema>;

export const TITLE_MAX = 200;
export const TitleSchema = z.string().trim().min(1, 'a title is required').max(TITLE_MAX);

/** A part of a conversation's system context; its text may carry directives (`@input`, `@tools`, `@model none`). */
export const ContextSectionSchema = z
  .object({ id: z.string().max(64), title: z.string().max(TITLE_MAX), text: z.string().max(256 * 1024), enabled: z.boolean() })
  .strict();
export type ContextSection = z.infer<typeof ContextSectionSchema>;

/**
 * The size of a tool's output, in the fields of a schema: on a card (StoredOutputInfoSchema)
 * and in Inspect → Stored outputs (StoredOutputSchema of shared/contract/tool-outputs.ts).
 */
export const OutputSizeShape = {
  bytes: z.number().int().min(0),
  lines: z.number().int().min(0),
  tokens: z.number().int().min(0),
  /** false: the token figure is an estimate. */
  tokensExact: z.boolean(),
};

/** An oversized result (docs/design/tool-outputs.md): its size, its share of the model's window, and what the gate did with it. */
export const StoredOutputInfoSchema = z
  .object({
    /** The handle of the stored output (choice handle or inline). */
    handle: z.string().optional(),
    /** The registry tool that produced it (its remembered choice is keyed by this id). */
    toolId: z.string().optional(),
    ...OutputSizeShape,
    /** Over the bytes cap, or it would overflow what is left of the model's window. */
    reason: z.enum(['bytes', 'tokens']),
    choice: OversizedChoiceSchema,
    /** tokens / contextTokens. */
    share: z.number().min(0).optional(),
    contextTokens: z.number().int().min(0).optional(),
  })
  .strict();
export type StoredOutputInfo = z.infer<typeof StoredOutputInfoSchema>;

/** What a `tool_output` call did: the strategy, its chunks and model calls, and a fallback with its reason. */
export const ExtractionInfoSchema = z
  .object({
    handle: z.string(),
    requested: z.string(),
    used: z.string(),
    why: z.string().optional(),
    chunks: z.number().int().min(0).optional(),
    modelCalls: z.number().int().min(0),
    tokensIn: z.number().int().min(0),
    tokensOut: z.number().int().min(0),
    durationMs: z.number().min(0),
    notFound: z.boolean(),
    fallback: z.object({ from: z.string(), reason: z.string() }).strict().optional(),
  })
  .strict();
export type ExtractionInfo = z.infer<typeof ExtractionInfoSchema>;

/** A tool call shown as a card: run from the `+` palette (source user) or by a model. */
export const ToolCardSchema = z
  .object({
    invocationId: z.string(),
    bundleId: z.string(),
    slug: z.string(),
    version: z.string(),
    displayName: z.string(),
    args: z.unknown(),
    /** awaiting-approval: a model's call of a tool that requires approval, waiting for the user; denied: the user said no. */
    /** awaiting-answer: an agent's question (ask_master) waiting for the user's answer. */
    status: z.enum(['running', 'awaiting-approval', 'awaiting-answer', 'ok', 'error', 'cancelled', 'denied']),
    durationMs: z.number().optional(),
    /** The value when it stayed inline (cut past INLINE_VALUE_MAX_CHARS, see valueTruncated). */
    value: z.unknown().optional(),
    valueTruncated: z.boolean().optional(),
    /** When the value was routed elsewhere. */
    manifest: ManifestSchema.optional(),
    error: ErrorInfoSchema.optional(),
    source: z.enum(['user', 'model', 'step']),
    /** The tool has an MCP App (a page of its own, shown in the card: docs/mcp.md, "Apps"). */
    hasApp: z.literal(true).optional(),
    /** For a model's call: the id the model gave it (its result goes back under that id). */
    callId: z.string().optional(),
    /** How the user answered an approval request (the args may have been edited first). */
    decision: ApprovalDecisionSchema.optional(),
    /** Denied with a reason: the user's words, given to the model with the denial. */
    denyReason: z.string().optional(),
    /** The result was oversized: what the gate did with it. */
    stored: StoredOutputInfoSchema.optional(),
    /** A `tool_output` call: how the extraction went. */
    extraction: ExtractionInfoSchema.optional(),
    /** A delegation (route_to_<agent>) or a question (ask_master): the task it made (docs/design/orchestration.md). */
    task: z.object({ id: z.string(), number: z.number().int().min(1), agent: z.string(), kind: z.enum(['agent', 'question']) }).strict().optional(),
    /** A handoff: the documents handed back with the result. */
    documents: z.array(z.string()).optional(),
    /** A memory call waiting for (or answered by) the user's consent: status awaiting-approval while it waits. */
    consent: ConsentInfoSchema.optional(),
    /** A call waiting for approval: why the tool asks, and an MCP server's hints for it. */
    approval: ApprovalInfoSchema.optional(),
  })
  .strict();
export type ToolCard = z.infer<typeof ToolCardSchema>;

/** What a directive produced when a message, a workflow step or a context section ran. */
export const DirectiveOutcomeSchema = z
  .object({
    /** The directive as written. */
    directive: z.string(),
    manifest: ManifestSchema.optional(),
    /** Content inlined into the prompt (output=inline or none), cut past INLINE_VALUE_MAX_CHARS. */
    inlineText: z.string().optional(),
    inlineTruncated: z.boolean().optional(),
    error: ErrorInfoSchema.optional(),
  })
  .strict();
export type DirectiveOutcome = z.infer<typeof DirectiveOutcomeSchema>;

/**
 * Files attached to a message typed in the composer (docs/chat.md, "Attachments"): images
 * (PNG, JPEG, GIF, WebP, checked by their bytes) go to a model that takes images, text files
 * (UTF-8) are given to the model as fenced blocks with their names.
 */
export const ATTACHMENTS_MAX = 20;
export const ATTACHMENT_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** An image's size at most, decoded (what a provider takes: 5 MiB of base64). */
export const ATTACHMENT_IMAGE_MAX_BYTES = (5 * 1024 * 1024 * 3) / 4;
/** A text file's size at most. */
export const ATTACHMENT_TEXT_MAX_BYTES = 1024 * 1024;
/** All of a message's attachments at most, decoded (a call carries 8 MiB at most, as base64). */
export const ATTACHMENTS_MAX_TOTAL_BYTES = 5 * 1024 * 1024;
export const ATTACHMENT_NAME_MAX = 255;

/**
 * An attachment as a message shows it: its name, type and size (an image's bytes are read when its
 * thumbnail is drawn, `conversations.attachment`). In a conversation file, every file's bytes too.
 */
export const AttachmentSchema = z
  .object({
    name: z.string().max(ATTACHMENT_NAME_MAX),
    mimeType: z.string().max(100),
    bytes: z.number().int().min(0),
    /** In a conversation file only: the file's bytes. */
    dataBase64: z.string().optional(),
  })
  .strict();
export type Attachment = z.infer<typeof AttachmentSchema>;

export const MessageSchema = z
  .object({
    id: z.string(),
    conversationId: z.string(),
    /** user: typed; assistant: a model's reply; tool: a tool card; notice: what the app says (no model, a workflow step, ...). */
    role: z.enum(['user', 'assistant', 'tool', 'notice']),
    createdAt: z.string(),
    text: z.string(),
    tool: ToolCardSchema.optional(),
    outcomes: z.array(DirectiveOutcomeSchema).optional(),
    /** The agent turn (one user message and what the model did about it) this row belongs to. */
    turnId: z.string().optional(),
    /** On assistant rows: the model that wrote it, and what the step cost. */
    model: ModelRefSchema.optional(),
    usage: UsageSchema.optional(),
    /** On notice rows that report a failure (the provider was down, the step limit, ...). */
    error: ErrorInfoSchema.optional(),
    /** On user rows: the files attached to it. */
    attachments: z.array(AttachmentSchema).max(ATTACHMENTS_MAX).optional(),
  })
  .strict();
export type Message = z.infer<typeof MessageSchema>;

/**
 * A message that was edited and sent again: its versions are branches kept side by side.
 * `messageId` is the first row of the branch shown now; `index` (from 0) which of `count` it is.
 */
export const BranchPointSchema = z.object({ messageId: z.string(), index: z.number().int().min(0), count: z.number().int().min(2) }).strict();
export type BranchPoint = z.infer<typeof BranchPointSchema>;

/** A value larger than this (as JSON text) stays inline only cut, with valueTruncated. */
export const INLINE_VALUE_MAX_CHARS = 256 * 1024;

/** Where a search of `conversations.list` found its words in a conversation's messages (absent: in its title only). */
export const ConversationMatchSchema = z
  .object({
    messageId: z.string(),
    role: MessageSchema.shape.role,
    /** The matched words with a little text around them, on one line (`…` where the text was cut). */
    snippet: z.string(),
  })
  .strict();
export type ConversationMatch = z.infer<typeof ConversationMatchSchema>;

/** A conversation as the list shows it: with where a search found it. */
export const ConversationListItemSchema = ConversationSchema.extend({ match: ConversationMatchSchema.optional() }).strict();
export type ConversationListItem = z.infer<typeof ConversationListItemSchema>;

/**
 * A conversation as a file (`conversations.export` format json, read back by
 * `conversations.import`): versioned, its messages as the chat shows them (what only a model is
 * given, such as a message's prompt with its inlined inputs, is not in it).
 */
export const CONVERSATION_FILE_FORMAT = 'toolsmith-conversation';
/** 2: the conversation's system prompt and model settings, and each attached file's bytes. A file of version 1 is read too. */
export const CONVERSATION_FILE_VERSION = 2;
export const CONVERSATION_FILE_VERSIONS_READ: readonly number[] = [1, 2];
/** The largest conversation file read back, in characters. */
export const CONVERSATION_IMPORT_MAX_CHARS = 32 * 1024 * 1024;
/** The most messages a conversation file may hold. */
export const CONVERSATION_IMPORT_MAX_MESSAGES = 20_000;

export const ConversationFileMessageSchema = MessageSchema.omit({ conversationId: true }).extend({ conversationId: z.string().optional() }).strict();

export const ConversationFileSchema = z
  .object({
    format: z.literal(CONVERSATION_FILE_FORMAT),
    version: z.union([z.literal(1), z.literal(CONVERSATION_FILE_VERSION)]),
    exportedAt: z.string().optional(),
    conversation: z
      .object({
        id: z.string().optional(),
        title: TitleSchema,
        createdAt: z.string().optional(),
        updatedAt: z.string().optional(),
        model: ModelRefSchema.optional(),
        tools: ToolSelectionSchema.optional(),
        extraction: ExtractionOverridesSchema.optional(),
        contextSections: z.array(ContextSectionSchema).max(50).optional(),
        systemPrompt: SystemPromptSchema.optional(),
        params: ModelParamsSchema.optional(),
      })
      .strict(),
    messages: z.array(ConversationFileMessageSchema).max(CONVERSATION_IMPORT_MAX_MESSAGES),
  })
  .strict();
export type ConversationFile = z.infer<typeof ConversationFileSchema>;
