import { z } from 'zod';
import { ErrorInfoSchema } from './errors';
import { AppInfoSchema, ProblemSchema } from './model/app-info';
import { BundlePutBodySchema, BundleSchema } from './model/bundle';
import { HttpExchangeSchema, InvocationRecordSchema } from './model/invocation';
import { PageSize, PageToken, QueryBool } from './model/query';
import { RunningSuiteSchema, SuiteProgressSchema, SuiteResultSchema, TestCaseSchema, TestRunSummarySchema } from './model/testcase';
import { ImportReportSchema, MAX_IMPORT_ZIP_BYTES, OpenApiImportSchema } from './model/transfer';
import { SettingsPatchSchema, SettingsSchema } from './model/settings';
import { McpApprovalAskSchema, McpApprovalDecisionSchema, McpApprovalOutcomeSchema, McpApprovalRequestSchema, McpServerInfoSchema, McpTokenSchema } from './model/mcp-serve';
import { ContextSectionSchema, ConversationSchema, DirectiveOutcomeSchema, ExtractionInfoSchema, MessageSchema, TitleSchema } from './model/conversation';
import { ExtractionOverridesSchema, OversizedChoiceSchema } from './model/settings';
import {
  BufferInfoSchema,
  BufferNameSchema,
  BufferReadSchema,
  BufferSearchResultSchema,
  WorkspaceEntrySchema,
  WorkspaceReadSchema,
  WriteModeSchema,
} from './model/routing';
import { WorkflowRunSchema, WorkflowSummarySchema } from './model/workflow';
import { AgentProfileViewSchema } from './model/agent-profile';
import { McpImportReportSchema, McpLogLineSchema, McpServerInputSchema, McpServerViewSchema } from './model/mcp-client';
import { DocumentInfoSchema, DocumentQuerySchema } from './model/document';
import { SourceConfigSchema, SourceIdSchema, SourceStatusSchema } from './model/memory-sources';
import { BlockInfoSchema, BlockLabelSchema, BlockVersionSchema, BlockViewSchema, ConsentChoiceSchema, MemoryOwnerSchema, NewBlockSchema, RecallHitSchema, RecallQuerySchema } from './model/memory';
import { TaskApprovalSchema, TaskGraphSchema } from './model/task';
import {
  ApprovalDecisionSchema,
  ApprovalRuleSchema,
  ConnectionVerdictSchema,
  DetectedProviderSchema,
  ModelRefSchema,
  ProviderInputSchema,
  ProviderSchema,
  ToolSelectionSchema,
} from './model/provider';
import { RegistryChangeSchema, ToolPutBodySchema, ToolUsageSchema, ToolViewSchema } from './model/tool';
import { ApprovalInfoSchema } from './model/tool-approval';
import { ConversationToolTokensSchema, ToolUsageStatsSchema, ToolUsageSummariesSchema } from './model/usage';

/**
 * The one contract between the renderer (and scripts) and the core.
 * Adding an operation: an entry here, a handler in the core's table (it will not
 * compile without one), and a call from the client.
 */
const Empty = z.object({}).strict();

/** Ids, slugs and versions as they arrive from a path: the store checks the rules and answers NOT_FOUND. */
const Key = z.string().min(1).max(512);
const TimeZoneName = z.string().min(1).max(64);
const BundleRef = { bundleId: Key };
/** One block: its memory (conversation:<id> or agent:<name>) and label. */
const MemoryBlockRef = z.object({ owner: MemoryOwnerSchema, label: BlockLabelSchema }).strict();
const ToolRef = { bundleId: Key, slug: Key, version: Key };
const IdList = z.array(Key).max(1000);

const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextPageToken: z.string().optional() }).strict();

/** One place where arguments do not match a schema: a JSON pointer ('(root)' for the whole value) and ajv's message. */
export const SchemaIssueSchema = z.object({ path: z.string(), message: z.string() }).strict();
export type SchemaIssueInfo = z.infer<typeof SchemaIssueSchema>;

export const InvokeResultSchema = z
  .object({ invocationId: z.string(), value: z.unknown(), durationMs: z.number(), attempts: z.number().int(), http: HttpExchangeSchema.optional() })
  .strict();
export type InvokeResult = z.infer<typeof InvokeResultSchema>;

export const SecretInfoSchema = z.object({ name: z.string(), hosts: z.array(z.string()), createdAt: z.string(), updatedAt: z.string() }).strict();
export type SecretInfo = z.infer<typeof SecretInfoSchema>;

export const SearchHitSchema = z.object({ tier: z.enum(['prefix', 'word', 'fuzzy', 'recent']), tool: ToolViewSchema }).strict();
export type SearchHit = z.infer<typeof SearchHitSchema>;

export const StoredOutputSchema = z
  .object({
    handle: z.string(),
    conversationId: z.string(),
    toolName: z.string(),
    toolId: z.string().optional(),
    argsJson: z.string(),
    bytes: z.number().int().min(0),
    lines: z.number().int().min(0),
    tokens: z.number().int().min(0),
    tokensExact: z.boolean(),
    createdAt: z.string(),
  })
  .strict();
export type StoredOutputSummary = z.infer<typeof StoredOutputSchema>;

export const operations = {
  'app.info': { input: Empty, output: AppInfoSchema },
  'app.ping': {
    input: z.object({ echo: z.string().max(10_000).optional() }).strict(),
    output: z.object({ echo: z.string(), at: z.string() }).strict(),
  },
  'app.problems': { input: Empty, output: z.array(ProblemSchema) },
  'settings.get': { input: Empty, output: SettingsSchema },
  'settings.set': { input: SettingsPatchSchema, output: SettingsSchema },

  // The tool registry (seed 004). The REST routes under /tools map onto these one to one.
  'bundles.list': {
    input: z
      .object({ bundleIds: IdList.optional(), includeDisabled: QueryBool.optional(), includeDeleted: QueryBool.optional(), pageSize: PageSize.optional(), pageToken: PageToken.optional() })
      .strict(),
    output: pageOf(BundleSchema),
  },
  'bundles.get': { input: z.object(BundleRef).strict(), output: BundleSchema },
  'bundles.put': { input: z.object({ ...BundleRef, body: BundlePutBodySchema }).strict(), output: BundleSchema },
  'bundles.patch': { input: z.object({ ...BundleRef, isEnabled: z.boolean() }).strict(), output: BundleSchema },
  'bundles.delete': { input: z.object(BundleRef).strict(), output: BundleSchema },
  'tools.list': {
    input: z
      .object({
        tags: z.array(z.string().max(64)).max(50).optional(),
        bundleIds: IdList.optional(),
        includeDisabled: QueryBool.optional(),
        includeDeleted: QueryBool.optional(),
        pageSize: PageSize.optional(),
        pageToken: PageToken.optional(),
      })
      .strict(),
    output: pageOf(ToolViewSchema),
  },
  'tools.search': {
    // Long queries are cut by the index, not refused.
    input: z.object({ q: z.string().max(4096), includeDisabled: QueryBool.optional(), pageSize: PageSize.optional(), pageToken: PageToken.optional() }).strict(),
    output: z.object({ items: z.array(SearchHitSchema), nextPageToken: z.string().optional(), recommendedPageSize: z.number().int() }).strict(),
  },
  'tools.get': { input: z.object(ToolRef).strict(), output: ToolViewSchema },
  'tools.put': { input: z.object({ ...ToolRef, body: ToolPutBodySchema }).strict(), output: ToolViewSchema },
  'tools.patch': { input: z.object({ ...ToolRef, isEnabled: z.boolean() }).strict(), output: ToolViewSchema },
  'tools.delete': { input: z.object(ToolRef).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  'tools.usage': { input: z.object(ToolRef).strict(), output: ToolUsageSchema },
  /** Why a model's (or a served) call of the tool waits for approval, or null when it runs at once (shared/model/tool-approval.ts). */
  'tools.approval': { input: z.object(ToolRef).strict(), output: ApprovalInfoSchema.nullable() },
  /** Calls and errors over the last 30 days, per day, for many tools in one call (the Tools list). Days in `timeZone` (IANA), UTC if absent. */
  'tools.usageSummaries': { input: z.object({ toolIds: z.array(Key).max(500), timeZone: TimeZoneName.optional() }).strict(), output: ToolUsageSummariesSchema },
  /** One tool's figures over the last 30 days: calls, error rate, latency percentiles and histogram, result sizes, errors by code, per day. */
  'tools.usageStats': { input: z.object({ ...ToolRef, timeZone: TimeZoneName.optional() }).strict(), output: ToolUsageStatsSchema },
  'tools.invoke': {
    input: z
      .object({
        ...ToolRef,
        args: z.unknown(),
        /** Chosen by the caller so it can cancel the call before it answers. */
        invocationId: z.string().uuid().optional(),
        timeoutMs: z.number().int().min(1).max(30 * 60_000).optional(),
        source: z.enum(['user', 'tester', 'api']).optional(),
      })
      .strict(),
    output: InvokeResultSchema,
  },
  /**
   * Checks arguments against an argSchema as a call would (defaults filled), running nothing:
   * the forms show each issue on its field. A schema that does not compile is one issue at (root).
   */
  'tools.checkArgs': {
    input: z.object({ argSchema: z.unknown(), args: z.unknown() }).strict(),
    output: z.object({ issues: z.array(SchemaIssueSchema) }).strict(),
  },
  'invocations.list': {
    input: z.object({ toolId: Key.optional(), limit: z.number().int().min(1).max(500).optional() }).strict(),
    output: z.array(InvocationRecordSchema),
  },
  'invocations.get': { input: z.object({ invocationId: Key }).strict(), output: InvocationRecordSchema },
  'invocations.cancel': { input: z.object({ invocationId: Key }).strict(), output: z.object({ cancelled: z.boolean() }).strict() },

  /** Runs a tool that is not saved (the editor's draft): validated like a save, not logged as the tool. */
  'tools.tryDraft': {
    input: z
      .object({
        bundleId: Key,
        slug: Key,
        version: Key,
        body: z.unknown(),
        args: z.unknown(),
        invocationId: z.string().uuid().optional(),
        timeoutMs: z.number().int().min(1).max(30 * 60_000).optional(),
      })
      .strict(),
    output: InvokeResultSchema,
  },

  // Saved test cases of a tool (per bundle and slug), and running them.
  'testcases.list': { input: z.object({ bundleId: Key, slug: Key }).strict(), output: z.array(TestCaseSchema) },
  'testcases.save': {
    input: z.object({ bundleId: Key, slug: Key, testCase: TestCaseSchema.omit({ createdAt: true, updatedAt: true }).extend({ id: z.string().max(64).optional() }) }).strict(),
    output: TestCaseSchema,
  },
  'testcases.delete': { input: z.object({ bundleId: Key, slug: Key, id: Key }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  'testcases.runAll': {
    input: z.object({ bundleId: Key, slug: Key, version: Key, draft: z.unknown().optional(), ids: z.array(Key).max(500).optional() }).strict(),
    output: TestRunSummarySchema,
  },
  /**
   * The saved cases of whole bundles as one suite (as `toolsmith test`): of these bundles, or of
   * every bundle switched on. Each tool's cases run against its newest version switched on;
   * 'testcases.suiteProgress' events under `runId` tell each step; 'testcases.cancelSuite' stops it.
   */
  'testcases.runSuite': {
    input: z.object({ runId: z.string().uuid(), bundleIds: IdList.optional() }).strict(),
    output: SuiteResultSchema,
  },
  /** Stops a suite: the cases not started yet are reported as not run. False when none runs under that id. */
  'testcases.cancelSuite': { input: z.object({ runId: z.string().uuid() }).strict(), output: z.object({ cancelled: z.boolean() }).strict() },
  /** The suites running now, each with the steps told so far: a window opened (or reloaded) while one runs follows it from there. */
  'testcases.runningSuites': { input: z.object({}).strict(), output: z.object({ suites: z.array(RunningSuiteSchema) }).strict() },

  // Import and export.
  'transfer.exportBundle': { input: z.object({ bundleId: Key }).strict(), output: z.object({ fileName: z.string(), base64: z.string() }).strict() },
  'transfer.importBundle': { input: z.object({ base64: z.string().max(Math.ceil((MAX_IMPORT_ZIP_BYTES * 4) / 3) + 4) }).strict(), output: ImportReportSchema },
  'transfer.parseOpenApi': { input: z.object({ text: z.string().max(4 * 1024 * 1024) }).strict(), output: OpenApiImportSchema },

  // Conversations and the chat (seed 000): messages, the `+` palette's runs, directives.
  'conversations.list': { input: z.object({ q: z.string().max(200).optional(), limit: z.number().int().min(1).max(1000).optional() }).strict(), output: z.array(ConversationSchema) },
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
      })
      .strict(),
  },
  'conversations.setContext': {
    input: z.object({ id: Key, sections: z.array(ContextSectionSchema).max(50) }).strict(),
    output: z.array(ContextSectionSchema),
  },
  /** Runs the enabled context sections' directives now; what a model would be given. */
  /** What each tool's results take of the model's context in a conversation: calls and tokens per tool. */
  'conversations.toolTokens': { input: z.object({ id: Key }).strict(), output: ConversationToolTokensSchema },
  'conversations.evaluateContext': {
    input: z.object({ id: Key }).strict(),
    output: z.array(z.object({ sectionId: z.string(), title: z.string(), text: z.string(), modelNone: z.boolean(), outcomes: z.array(DirectiveOutcomeSchema) }).strict()),
  },
  /** A message typed in the composer: its directives run (a directive error refuses it, nothing written); answers the messages added. */
  'chat.send': { input: z.object({ conversationId: Key, text: z.string().min(1).max(1024 * 1024) }).strict(), output: z.array(MessageSchema) },
  /**
   * Edit and resend: the user message and every row after it are removed (the history is cut, not forked),
   * then `text` is sent as chat.send would. CONFLICT while a turn runs; nothing is removed when refused.
   */
  'chat.edit': { input: z.object({ conversationId: Key, messageId: Key, text: z.string().min(1).max(1024 * 1024) }).strict(), output: z.array(MessageSchema) },
  /**
   * Asks the model again: every row after the user message `messageId` names (or the last user message before
   * it) is removed and a turn starts from that message as stored. CONFLICT while a turn runs.
   */
  'chat.regenerate': { input: z.object({ conversationId: Key, messageId: Key }).strict(), output: z.object({ removed: z.number().int().min(0), turnId: z.string() }).strict() },
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

  // Models in the chat: providers, the model and tools of a conversation, the agent turn, approvals.
  'providers.list': { input: Empty, output: z.array(ProviderSchema) },
  /** Adds (no id) or changes a provider; the key goes to the secret store, bound to the base URL's host. */
  'providers.save': { input: z.object({ id: Key.optional(), provider: ProviderInputSchema }).strict(), output: ProviderSchema },
  'providers.delete': { input: z.object({ id: Key }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  /** Talks to the provider (lists its models) and answers a verdict a user can act on; the model list is kept. */
  'providers.test': { input: z.object({ id: Key }).strict(), output: ConnectionVerdictSchema },
  /** Ollama (11434) and LM Studio (1234) answering on 127.0.0.1, not yet added. */
  'providers.detect': { input: Empty, output: z.array(DetectedProviderSchema) },
  'conversations.setModel': { input: z.object({ id: Key, model: ModelRefSchema.nullable() }).strict(), output: ConversationSchema },
  'conversations.setTools': { input: z.object({ id: Key, tools: ToolSelectionSchema.nullable() }).strict(), output: ConversationSchema },
  /** The extraction thresholds of its oversized outputs over Settings' (null or {}: Settings' again). */
  'conversations.setExtraction': { input: z.object({ id: Key, extraction: ExtractionOverridesSchema.nullable() }).strict(), output: ConversationSchema },
  /** Stops the conversation's running turn: the model's stream and its running tools. */
  'chat.stop': { input: z.object({ conversationId: Key }).strict(), output: z.object({ stopped: z.boolean() }).strict() },
  /** The tasks below a conversation (seed 003): delegations and questions, for the graph. A task's own id leads to its root's. */
  'tasks.graph': { input: z.object({ conversationId: Key }).strict(), output: TaskGraphSchema },
  /**
   * The calls waiting for the user's approval in a conversation and every task below it, at any
   * depth (a task's own id: that task and the tasks below it), each with its task path.
   */
  'tasks.approvals': { input: z.object({ conversationId: Key }).strict(), output: z.object({ approvals: z.array(TaskApprovalSchema) }).strict() },
  /** The user's answer to an agent's question (a question card); accepted false when it no longer waits. */
  'tasks.answer': { input: z.object({ questionId: Key, answer: z.string().trim().min(1, 'an answer is required').max(64 * 1024) }).strict(), output: z.object({ accepted: z.boolean() }).strict() },
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

  // The registry served over MCP (Settings → MCP server): where clients reach it, and the approvals it asks.
  'mcpServer.info': { input: Empty, output: McpServerInfoSchema },
  /** Served tools' calls waiting for an answer in the app. */
  'mcpServer.approvals': { input: Empty, output: z.array(McpApprovalRequestSchema) },
  'mcpServer.respond': { input: z.object({ id: Key, decision: McpApprovalDecisionSchema }).strict(), output: z.object({ accepted: z.boolean() }).strict() },
  /** The token for `/mcp` (the served tools only, never the rest of the API), created on first read. */
  'mcpServer.token': { input: Empty, output: McpTokenSchema },
  /** A new token for `/mcp`: the old one stops working at once (configs that hold it must be updated). */
  'mcpServer.rotateToken': { input: Empty, output: McpTokenSchema },
  /** Shows an approval of `toolsmith mcp` (another process on this data folder) in this app's window; waits for the answer. */
  'mcpServer.askApproval': { input: McpApprovalAskSchema, output: McpApprovalOutcomeSchema },

  // Buffers (routed outputs) of a conversation or a workflow run.
  'buffers.list': { input: z.object({ ownerId: Key }).strict(), output: z.array(BufferInfoSchema) },
  'buffers.read': {
    input: z
      .object({
        ownerId: Key,
        name: BufferNameSchema,
        /** Either a line range (1-based, inclusive) or a character offset and length. */
        startLine: z.number().int().min(1).optional(),
        endLine: z.number().int().min(1).optional(),
        offset: z.number().int().min(0).optional(),
        length: z.number().int().min(1).optional(),
      })
      .strict(),
    output: BufferReadSchema,
  },
  'buffers.search': {
    input: z
      .object({
        ownerId: Key,
        name: BufferNameSchema,
        query: z.string().min(1).max(1000),
        regex: z.boolean().optional(),
        caseSensitive: z.boolean().optional(),
        contextLines: z.number().int().min(0).max(20).optional(),
        maxMatches: z.number().int().min(1).max(10_000).optional(),
      })
      .strict(),
    output: BufferSearchResultSchema,
  },
  'buffers.export': {
    input: z.object({ ownerId: Key, name: BufferNameSchema, path: z.string().min(1).max(4096), writeMode: WriteModeSchema.optional() }).strict(),
    output: z.object({ path: z.string(), chars: z.number().int() }).strict(),
  },
  'buffers.delete': { input: z.object({ ownerId: Key, name: BufferNameSchema }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },

  // Oversized tool outputs (seed 001): the handles of a conversation, for Inspect → Stored outputs.
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

  // The workspace folder, for the Files inspector.
  'workspace.list': { input: z.object({ path: z.string().max(4096).optional() }).strict(), output: z.array(WorkspaceEntrySchema) },
  'workspace.read': {
    input: z.object({ path: z.string().min(1).max(4096), offset: z.number().int().min(0).optional(), length: z.number().int().min(1).max(4 * 1024 * 1024).optional() }).strict(),
    output: WorkspaceReadSchema,
  },
  /** Opens a workspace file with the system's application; UNAVAILABLE where the host cannot. */
  'workspace.open': { input: z.object({ path: z.string().min(1).max(4096) }).strict(), output: z.object({ opened: z.literal(true) }).strict() },

  // Workflows: Markdown files of steps in `<workspace>/workflows`.
  'workflows.list': { input: Empty, output: z.array(WorkflowSummarySchema) },
  'workflows.run': { input: z.object({ path: z.string().min(1).max(4096), conversationId: Key.optional() }).strict(), output: WorkflowRunSchema },
  'workflows.get': { input: z.object({ runId: Key }).strict(), output: WorkflowRunSchema },
  'workflows.cancel': { input: z.object({ runId: Key }).strict(), output: z.object({ cancelled: z.boolean() }).strict() },

  // Agent profiles (seed 003): the agents a model may delegate to. Built-ins are read-only.
  'agents.list': { input: Empty, output: z.array(AgentProfileViewSchema) },
  'agents.get': { input: z.object({ name: z.string().max(40) }).strict(), output: AgentProfileViewSchema },
  /** Creates or replaces a user profile (checked by the core; the answer says every field that is wrong). */
  'agents.put': { input: z.object({ profile: z.unknown() }).strict(), output: AgentProfileViewSchema },
  'agents.delete': { input: z.object({ name: z.string().max(40) }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  // Documents (seed 003): workspace files tools wrote, with their metadata and versions.
  'documents.list': { input: DocumentQuerySchema, output: z.array(DocumentInfoSchema) },
  /** One document with its versions. */
  'documents.get': { input: z.object({ path: z.string().min(1).max(4096) }).strict(), output: DocumentInfoSchema },
  /** Sets its description and tags (each given field replaces the old). */
  'documents.describe': {
    input: z.object({ path: z.string().min(1).max(4096), description: z.string().max(2000).optional(), tags: z.array(z.string().max(100)).max(50).optional() }).strict(),
    output: DocumentInfoSchema,
  },
  'agents.setEnabled': { input: z.object({ name: z.string().max(40), enabled: z.boolean() }).strict(), output: AgentProfileViewSchema },

  // Memory (seed 002): blocks and recall entries, for Inspect → Memory; the user needs no consent here.
  /** The blocks of one memory (conversation:<id> or agent:<name>), or of all. */
  'memory.blocks.list': { input: z.object({ owner: MemoryOwnerSchema.optional() }).strict(), output: z.array(BlockInfoSchema) },
  'memory.blocks.get': { input: MemoryBlockRef, output: BlockViewSchema },
  /** Makes a block (the tools have no create: blocks come from here or from a source). */
  'memory.blocks.create': { input: NewBlockSchema, output: BlockViewSchema },
  /** Every version, oldest first; `current` is the one shown, `undone` ones can be redone. */
  'memory.blocks.history': { input: MemoryBlockRef, output: z.array(BlockVersionSchema) },
  'memory.blocks.undo': { input: MemoryBlockRef, output: BlockViewSchema },
  'memory.blocks.redo': { input: MemoryBlockRef, output: BlockViewSchema },
  /** The user's answer to a consent card (a memory call on a Partner or Human block); accepted false when it no longer waits. */
  'memory.consent.respond': { input: z.object({ id: Key, answer: ConsentChoiceSchema }).strict(), output: z.object({ accepted: z.boolean() }).strict() },
  /** Recall entries matching every word of the query (FTS5, punctuation is plain text), best first. */
  'memory.recall.search': { input: RecallQuerySchema, output: z.array(RecallHitSchema) },
  /** Data sources (FileSources and folder watchers): each with its state; Settings → Memory sources edits them. */
  'memory.sources.list': { input: Empty, output: z.array(SourceStatusSchema) },
  /** Pauses a stream (a folder watcher): no notifications until resumed. A block source is left as it is. */
  'memory.sources.pause': { input: z.object({ id: SourceIdSchema }).strict(), output: SourceStatusSchema },
  'memory.sources.resume': { input: z.object({ id: SourceIdSchema }).strict(), output: SourceStatusSchema },
  /** The sources' settings, as Settings → Memory sources edits them. */
  'memory.sources.configs': { input: Empty, output: z.array(SourceConfigSchema) },
  /** Adds a source, or replaces the one with its id; the folder must exist. */
  'memory.sources.save': { input: SourceConfigSchema, output: SourceStatusSchema },
  'memory.sources.remove': { input: z.object({ id: SourceIdSchema }).strict(), output: z.object({ removed: z.boolean() }).strict() },

  // Secrets: values go in, never come out.
  'secrets.list': { input: Empty, output: z.array(SecretInfoSchema) },
  'secrets.set': { input: z.object({ name: z.string().max(64), value: z.string().max(64 * 1024), hosts: z.array(z.string().max(253)).max(100) }).strict(), output: SecretInfoSchema },
  'secrets.setHosts': { input: z.object({ name: z.string().max(64), hosts: z.array(z.string().max(253)).max(100) }).strict(), output: SecretInfoSchema },
  'secrets.delete': { input: z.object({ name: z.string().max(64) }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },

  // MCP servers brought in as bundles: each server's tools are the tools of its bundle.
  'mcpServers.list': { input: Empty, output: z.array(McpServerViewSchema) },
  /** Adds a server (stdio or Streamable HTTP) as a new bundle, starts it and stores its tools. */
  'mcpServers.add': { input: z.object({ server: McpServerInputSchema, enabled: z.boolean().optional() }).strict(), output: McpServerViewSchema },
  /** Adds every server of an `mcpServers` JSON (Claude Desktop, Cursor) or VS Code `servers` JSON. */
  'mcpServers.import': { input: z.object({ text: z.string().min(1).max(1024 * 1024) }).strict(), output: McpImportReportSchema },
  /** The server's stderr and what happened to it (the last lines). */
  'mcpServers.log': { input: z.object(BundleRef).strict(), output: z.array(McpLogLineSchema) },
  /** Stops and starts it again (its restart count forgotten) and lists its tools again. */
  'mcpServers.restart': { input: z.object(BundleRef).strict(), output: McpServerViewSchema },
  /** Whether the server's tools that give no hints run without asking (off: they ask, as MCP says they may be destructive). */
  'mcpServers.setTrust': { input: z.object({ ...BundleRef, trustUnannotatedTools: z.boolean() }).strict(), output: McpServerViewSchema },
  /** Stops it and removes its config, its bundle and its tools. */
  'mcpServers.remove': { input: z.object(BundleRef).strict(), output: z.object({ removed: z.literal(true) }).strict() },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

/** Events the core pushes to every connected window. */
export const events = {
  'settings.changed': SettingsSchema,
  'app.problem': ProblemSchema,
  'store.changed': RegistryChangeSchema,
  /** Streamed output of a running invocation (SSE events, progress). */
  'invocation.event': z.object({ invocationId: z.string(), kind: z.string(), data: z.unknown() }).strict(),
  'secrets.changed': z.object({ names: z.array(z.string()) }).strict(),
  /** A step of a test suite started with 'testcases.runSuite' (its runId): the plan, a tool, a case started or done. */
  'testcases.suiteProgress': z.object({ runId: z.string(), seq: z.number().int().nonnegative(), progress: SuiteProgressSchema }).strict(),
  /** A suite ended (its result, or why it could not run): for windows that follow it but did not start it. */
  'testcases.suiteDone': z.object({ runId: z.string(), result: SuiteResultSchema.optional(), error: ErrorInfoSchema.optional() }).strict(),
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
  'buffers.changed': z.object({ ownerId: z.string(), names: z.array(z.string()) }).strict(),
  /** A conversation's stored outputs changed (one stored, deleted, or its session ended). */
  'toolOutputs.changed': z.object({ conversationId: z.string() }).strict(),
  /** Agent profiles were added, changed, deleted, enabled or disabled. */
  'agents.changed': z.object({}).strict(),
  /** Documents were recorded or described (workspace-relative paths). */
  'documents.changed': z.object({ paths: z.array(z.string()) }).strict(),
  /** A memory's blocks or recall entries changed (label: the block; absent: a recall entry). */
  'memory.changed': z.object({ owner: z.string(), label: z.string().optional() }).strict(),
  /** A memory source was added, changed, removed, paused or resumed (the file tool comes and goes with FileSources). */
  'memory.sources.changed': z.object({}).strict(),
  /** A task below the conversation was made or changed. */
  'tasks.changed': z.object({ rootId: z.string() }).strict(),
  /** Text a model is streaming into an assistant row (appended chunks; the row is stored when the step ends). */
  'chat.delta': z.object({ conversationId: z.string(), turnId: z.string(), messageId: z.string(), text: z.string() }).strict(),
  /** An agent turn started or ended. */
  'chat.turn': z.object({ conversationId: z.string(), turnId: z.string(), state: z.enum(['running', 'done', 'error', 'stopped']) }).strict(),
  'providers.changed': z.object({ ids: z.array(z.string()) }).strict(),
  'approvals.changed': z.object({}).strict(),
  /** A served tool's call started or stopped waiting for approval in the app. */
  'mcpServer.approvalsChanged': z.object({}).strict(),
  /** A workflow run moved on (a step started or finished, the run ended). */
  'workflow.progress': WorkflowRunSchema,
  /** An MCP server's status or tools changed, or it was added or removed. */
  'mcpServers.changed': z.object({ bundleId: z.string() }).strict(),
} as const satisfies Record<string, z.ZodType>;

export type Operations = typeof operations;
export type OpName = keyof Operations;
export type OpInput<N extends OpName> = z.input<Operations[N]['input']>;
export type OpParsedInput<N extends OpName> = z.output<Operations[N]['input']>;
export type OpOutput<N extends OpName> = z.output<Operations[N]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<N extends EventName> = z.output<Events[N]>;

export const operationNames = Object.keys(operations) as OpName[];
export const eventNames = Object.keys(events) as EventName[];

export function isOpName(name: unknown): name is OpName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(operations, name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}

/** What both transports expose to the renderer: `window.toolsmith` has exactly this shape. */
export interface ContractClient {
  call<N extends OpName>(name: N, input: OpInput<N>): Promise<import('./errors').Result<OpOutput<N>>>;
  on<N extends EventName>(name: N, handler: (payload: EventPayload<N>) => void): () => void;
}
