/**
 * Usage at a glance: what the invocation log says of a tool over the last days (calls, errors,
 * latency, result sizes, calls per day), and what each tool's results cost in a conversation's
 * tokens. Days are calendar days in the time zone the caller names (UTC if it names none).
 */
import { z } from 'zod';

/** How many days a summary covers, today included. */
export const USAGE_DAYS = 30;

/**
 * The latency histogram's buckets, by upper bound in ms (a call of exactly a bound falls in
 * the next bucket); the last bucket has no upper bound.
 */
export const LATENCY_BOUNDS_MS = [10, 30, 100, 300, 1_000, 3_000, 10_000] as const;

/** At most this many error codes are named; the rest are counted together. */
export const TOP_ERROR_CODES = 5;

const Count = z.number().int().min(0);

export const UsageDaySchema = z.object({ date: z.string(), calls: Count, errors: Count }).strict();
export type UsageDay = z.infer<typeof UsageDaySchema>;

/** One tool in the Tools list: its calls and errors in the window, and per day (oldest first). */
export const ToolUsageSummarySchema = z.object({ toolId: z.string(), calls: Count, errors: Count, days: z.array(UsageDaySchema) }).strict();
export type ToolUsageSummary = z.infer<typeof ToolUsageSummarySchema>;

export const ToolUsageSummariesSchema = z.object({ timeZone: z.string(), items: z.array(ToolUsageSummarySchema) }).strict();

/**
 * A tool's page. Percentiles are nearest-rank: the p-th percentile of n values is the value at
 * rank ceil(p/100 * n) in ascending order. Latency counts every call, failed ones too; result
 * sizes count successful calls (the result's JSON in UTF-8 bytes; a result written to the
 * tool-output store counts the bytes stored).
 */
export const ToolUsageStatsSchema = z
  .object({
    toolId: z.string(),
    timeZone: z.string(),
    calls: Count,
    errors: Count,
    /** errors / calls, 0 with no calls. */
    errorRate: z.number().min(0).max(1),
    latencyMs: z.object({ p50: z.number(), p95: z.number(), max: z.number() }).strict().optional(),
    resultBytes: z.object({ median: Count, max: Count }).strict().optional(),
    /** One entry per bucket of LATENCY_BOUNDS_MS (and one past the last bound). */
    latencyHistogram: z.array(z.object({ fromMs: z.number(), toMs: z.number().optional(), count: Count }).strict()),
    /** The most frequent codes first (ties by code), at most TOP_ERROR_CODES; `otherErrors` counts the rest. */
    errorsByCode: z.array(z.object({ code: z.string(), count: Count }).strict()),
    otherErrors: Count,
    days: z.array(UsageDaySchema),
  })
  .strict();
export type ToolUsageStats = z.infer<typeof ToolUsageStatsSchema>;

/** One tool's results in a conversation: how many calls and what their results take of the model's context. */
export const ToolTokenUseSchema = z
  .object({ bundleId: z.string(), slug: z.string(), displayName: z.string(), calls: Count, errors: Count, tokens: Count })
  .strict();
export type ToolTokenUse = z.infer<typeof ToolTokenUseSchema>;

export const ConversationToolTokensSchema = z
  .object({
    /** Most tokens first. */
    tools: z.array(ToolTokenUseSchema),
    totalTokens: Count,
    /** How tokens were counted, e.g. "gpt-tokenizer (o200k_base)". */
    counter: z.string(),
    /** False when the count is an estimate for the conversation's model. */
    exact: z.boolean(),
  })
  .strict();
export type ConversationToolTokens = z.infer<typeof ConversationToolTokensSchema>;
