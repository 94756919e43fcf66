/** What tools cost: their calls, errors and latency over time, and what their results take of a conversation's context. */
import { z } from 'zod';
import { ConversationToolTokensSchema, ToolUsageStatsSchema, ToolUsageSummariesSchema } from '../model/usage';
import { Key, ToolRef, type EventTable, type OperationTable } from './common';

/** An IANA time zone, for counting calls per local day. */
const TimeZoneName = z.string().min(1).max(64);

export const usageOperations = {
  /** Calls and errors over the last 30 days, per day, for many tools in one call (the Tools list). Days in `timeZone` (IANA), UTC if absent. */
  'tools.usageSummaries': { input: z.object({ toolIds: z.array(Key).max(500), timeZone: TimeZoneName.optional() }).strict(), output: ToolUsageSummariesSchema },
  /** One tool's figures over the last 30 days: calls, error rate, latency percentiles and histogram, result sizes, errors by code, per day. */
  'tools.usageStats': { input: z.object({ ...ToolRef, timeZone: TimeZoneName.optional() }).strict(), output: ToolUsageStatsSchema },
  /** What each tool's results take of the model's context in a conversation: calls and tokens per tool. */
  'conversations.toolTokens': { input: z.object({ id: Key }).strict(), output: ConversationToolTokensSchema },
} as const satisfies OperationTable;

export const usageEvents = {} as const satisfies EventTable;
