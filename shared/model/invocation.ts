import { z } from 'zod';
import { ErrorInfoSchema } from '../errors';
import { ScriptLogLineSchema } from './script-tool';

export const InvocationSourceSchema = z.enum(['user', 'tester', 'model', 'api', 'step', 'app']);
export type InvocationSource = z.infer<typeof InvocationSourceSchema>;

/** What an HTTP tool sent and got, with secrets redacted: shown in the tester. */
export const HttpExchangeSchema = z
  .object({
    method: z.string(),
    url: z.string(),
    status: z.number().int().optional(),
    requestHeaders: z.record(z.string(), z.string()),
    responseHeaders: z.record(z.string(), z.string()),
    sizeBytes: z.number().int().optional(),
    durationMs: z.number().optional(),
    bodyText: z.string().optional(),
  })
  .passthrough();
export type HttpExchange = z.infer<typeof HttpExchangeSchema>;

/** One call of a tool, as kept in the invocation log (secrets redacted, large values cut). */
export const InvocationRecordSchema = z
  .object({
    id: z.string(),
    toolId: z.string(),
    bundleId: z.string(),
    slug: z.string(),
    version: z.string(),
    source: InvocationSourceSchema,
    args: z.unknown(),
    ok: z.boolean(),
    value: z.unknown().optional(),
    /** True when `value` was cut to keep the log small. */
    valueTruncated: z.boolean().optional(),
    error: ErrorInfoSchema.optional(),
    startedAt: z.string(),
    durationMs: z.number(),
    attempts: z.number().int(),
    http: HttpExchangeSchema.optional(),
    /** What a script tool wrote with ctx.log and console.* (shared/model/script-tool.ts). */
    logs: z.array(ScriptLogLineSchema).optional(),
  })
  .strict();
export type InvocationRecord = z.infer<typeof InvocationRecordSchema>;

/** How long a progress message may be; a longer one is cut. */
export const PROGRESS_MESSAGE_MAX_CHARS = 500;

/**
 * A running call's progress, as its back-end reports it (an MCP server's notifications/progress):
 * how far it is, of how much when that is known, and what it is doing.
 */
export const InvocationProgressSchema = z
  .object({
    invocationId: z.string(),
    progress: z.number().min(0),
    total: z.number().positive().optional(),
    message: z.string().max(PROGRESS_MESSAGE_MAX_CHARS).optional(),
  })
  .strict();
export type InvocationProgress = z.infer<typeof InvocationProgressSchema>;
