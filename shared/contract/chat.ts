/** Conversations and the chat (docs/design/routing.md): messages, the `+` palette's runs, directives. */
import { z } from 'zod';
import { ATTACHMENTS_MAX, ATTACHMENT_NAME_MAX, BranchPointSchema, CONVERSATION_IMPORT_MAX_CHARS, ContextSectionSchema, ConversationListItemSchema, ConversationSchema, DirectiveOutcomeSchema, MessageSchema, TitleSchema } from '../model/conversation';
import { WriteModeSchema } from '../model/routing';
import { Key, ToolRef, type EventTable, type OperationTable } from './common';

/** A file attached to a message: its name, its type as the picker said, its bytes as base64 (the core checks them). */
export const AttachmentInputSchema = z
  .object({ name: z.string().min(1).max(ATTACHMENT_NAME_MAX), mimeType: z.string().max(100), dataBase64: z.string().max(8 * 1024 * 1024) })
  .strict();
export type AttachmentInput = z.infer<typeof AttachmentInputSchema>;

export const chatOperations = {
  /** Newest first; `q` finds words in titles and in messages' text (each match says in which message). */
  'conversations.list': { input: z.object({ q: z.string().max(200).optional(), limit: z.number().int().min(1).max(1000).optional() }).strict(), output: z.array(ConversationListItemSchema) },
  'conversations.create': { input: z.object({ title: TitleSchema.optional() }).strict(), output: ConversationSchema },
  'conversations.rename': { input: z.object({ id: Key, title: TitleSchema }).strict(), output: ConversationSchema },
  'conversations.delete': { input: z.object({ id: Key }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  'conversations.get': {
    input: z.object({ id: Key }).strict(),
    output: z
      .object({
        conversation: ConversationSchema,
        messages: z.array(MessageSchema),
        contextSections: z.array(ContextSectionSchema),
        /** The agent turn running in it now (after a reload, the UI shows Stop from this). */
        runningTurnId: z.string().optional(),
        /** The text its model has streamed so far into a row not yet stored (a reload shows it from its beginning). */
        streaming: z.object({ turnId: z.string(), messageId: z.string(), text: z.string() }).strict().optional(),
        /** Its edited messages among those shown: which version of each is shown, of how many (absent: none). */
        branches: z.array(BranchPointSchema).optional(),
      })
      .strict(),
  },
  /** A conversation as a file: Markdown to read, or JSON that `conversations.import` reads back. */
  'conversations.export': {
    input: z.object({ id: Key, format: z.enum(['markdown', 'json']) }).strict(),
    output: z.object({ fileName: z.string(), mimeType: z.string(), text: z.string() }).strict(),
  },
  /**
   * A conversation file (format json of `conversations.export`) as a new conversation with new ids;
   * nothing in it runs. VALIDATION_FAILED names the first problem's place; nothing is created then.
   */
  'conversations.import': {
    input: z.object({ text: z.string().min(1).max(CONVERSATION_IMPORT_MAX_CHARS) }).strict(),
    /** `attachmentsLeftOut`: attached files the file named without their bytes (written by an older Toolsmith), not brought back. */
    output: z.object({ conversation: ConversationSchema, messages: z.number().int().min(0), attachmentsLeftOut: z.number().int().min(1).optional() }).strict(),
  },
  /** One file attached to a message (`index` from 0, in the order the message lists them), with its bytes: an image's thumbnail is drawn from it. */
  'conversations.attachment': {
    input: z.object({ id: Key, messageId: Key, index: z.number().int().min(0).max(ATTACHMENTS_MAX - 1) }).strict(),
    output: z.object({ name: z.string(), mimeType: z.string(), bytes: z.number().int().min(0), dataBase64: z.string() }).strict(),
  },
  'conversations.setContext': {
    input: z.object({ id: Key, sections: z.array(ContextSectionSchema).max(50) }).strict(),
    output: z.array(ContextSectionSchema),
  },
  /** Runs the enabled context sections' directives now; what a model would be given. */
  'conversations.evaluateContext': {
    input: z.object({ id: Key }).strict(),
    output: z.array(z.object({ sectionId: z.string(), title: z.string(), text: z.string(), modelNone: z.boolean(), outcomes: z.array(DirectiveOutcomeSchema) }).strict()),
  },
  /**
   * A message typed in the composer: its directives run (a directive error refuses it, nothing written); answers the messages added.
   * `attachments`: images (PNG, JPEG, GIF, WebP) and UTF-8 text files, checked in the core (a bad one refuses the message, nothing written).
   */
  'chat.send': {
    input: z
      .object({
        conversationId: Key,
        text: z.string().min(1).max(1024 * 1024),
        attachments: z.array(AttachmentInputSchema).max(ATTACHMENTS_MAX).optional(),
      })
      .strict(),
    output: z.array(MessageSchema),
  },
  /**
   * Edit and resend: the user message and every row after it are kept as a version of it (a branch), and
   * `text` is sent as chat.send would, as the version shown. Answers the conversation's messages shown then.
   * CONFLICT while a turn runs; nothing changes when refused.
   */
  'chat.edit': { input: z.object({ conversationId: Key, messageId: Key, text: z.string().min(1).max(1024 * 1024) }).strict(), output: z.array(MessageSchema) },
  /**
   * Asks the model again: every row after the user message `messageId` names (or the last user message before
   * it) is removed and a turn starts from that message as stored. CONFLICT while a turn runs.
   */
  'chat.regenerate': { input: z.object({ conversationId: Key, messageId: Key }).strict(), output: z.object({ removed: z.number().int().min(0), turnId: z.string() }).strict() },
  /**
   * Shows another version of an edited message: `messageId` is the first row of the version shown now (a
   * branch point of conversations.get), `branch` the one to show, from 0. The model is given the version
   * shown only. Answers the conversation's messages shown then. CONFLICT while a turn runs.
   */
  'conversations.switchBranch': {
    input: z.object({ id: Key, messageId: Key, branch: z.number().int().min(0).max(100_000) }).strict(),
    output: z.array(MessageSchema),
  },
  /** The `+` palette: runs a tool with no model involved; the result (or its manifest) becomes a tool card. */
  'chat.runTool': {
    input: z
      .object({
        conversationId: Key,
        ...ToolRef,
        args: z.unknown(),
        /** A destination as a directive writes it: `variable:results`, `file:out/{today}.md`, `discard`, `inline`. */
        output: z.string().max(4200).optional(),
        writeMode: WriteModeSchema.optional(),
        invocationId: z.string().uuid().optional(),
      })
      .strict(),
    output: MessageSchema,
  },
} as const satisfies OperationTable;

export const chatEvents = {
  /**
   * Conversations were added, renamed, deleted, or got messages. With kind 'messages': the rows
   * added and the conversation as it is now (its count and updatedAt), so a window appends them
   * instead of reading the conversation again.
   */
  'conversations.changed': z
    .object({
      conversationId: z.string(),
      kind: z.enum(['created', 'renamed', 'deleted', 'messages', 'context']),
      messages: z.array(MessageSchema).optional(),
      conversation: ConversationSchema.optional(),
    })
    .strict(),
} as const satisfies EventTable;
