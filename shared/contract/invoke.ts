/** Calling tools: a saved tool, the editor's draft, an argument check, and the invocation log. */
import { z } from 'zod';
import { HttpExchangeSchema, InvocationProgressSchema, InvocationRecordSchema } from '../model/invocation';
import { ScriptLogLineSchema } from '../model/script-tool';
import { Key, SchemaIssueSchema, ToolRef, type EventTable, type OperationTable } from './common';

/** A call's answer; a script tool's log lines in `logs` (on a failure they are in the error's details.logs). */
export const InvokeResultSchema = z
  .object({ invocationId: z.string(), value: z.unknown(), durationMs: z.number(), attempts: z.number().int(), http: HttpExchangeSchema.optional(), logs: z.array(ScriptLogLineSchema).optional() })
  .strict();
export type InvokeResult = z.infer<typeof InvokeResultSchema>;

export const invokeOperations = {
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
} as const satisfies OperationTable;

/** The most tool ids an 'invocations.logged' event lists. */
export const MAX_LOGGED_TOOL_IDS = 100;

export const invokeEvents = {
  /** Streamed output of a running invocation (SSE events, progress; a script tool's log lines as kind 'log'). */
  'invocation.event': z.object({ invocationId: z.string(), kind: z.string(), data: z.unknown() }).strict(),
  /**
   * A running call's progress (an MCP server's notifications/progress), whoever started it: at
   * most ten a second per call, the last one always sent, before the call's answer.
   */
  'invocation.progress': InvocationProgressSchema,
  /**
   * A batch of calls was written to the invocation log (one event a batch, some tens of
   * milliseconds after the calls end): the tools they called, each once, at most
   * MAX_LOGGED_TOOL_IDS; `toolIds` is absent when the batch called more, and then any tool's
   * history and usage figures may have changed.
   */
  'invocations.logged': z.object({ toolIds: z.array(z.string()).max(MAX_LOGGED_TOOL_IDS).optional() }).strict(),
} as const satisfies EventTable;
