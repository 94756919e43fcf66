import { z } from 'zod';

/** What a saved test checks about a run. */
export const AssertionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ok') }).strict(),
  z.object({ kind: z.literal('error'), code: z.string().max(64).optional() }).strict(),
  z.object({ kind: z.literal('matchesOutputSchema') }).strict(),
  /** The result's JSON text contains this text. */
  z.object({ kind: z.literal('contains'), text: z.string().min(1).max(10_000) }).strict(),
  /** The first value the JSONPath selects in the result deep-equals `value`. */
  z.object({ kind: z.literal('jsonPathEquals'), path: z.string().min(1).max(1000), value: z.unknown() }).strict(),
  z.object({ kind: z.literal('latencyUnder'), ms: z.number().int().min(1).max(10 * 60_000) }).strict(),
]);
export type Assertion = z.infer<typeof AssertionSchema>;

/** Args plus assertions, saved per tool slug in a bundle (they apply to every version). */
export const TestCaseSchema = z
  .object({
    id: z.string().min(1).max(64),
    name: z.string().min(1).max(200),
    args: z.unknown(),
    assertions: z.array(AssertionSchema).max(50),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict();
export type TestCase = z.infer<typeof TestCaseSchema>;

export const AssertionResultSchema = z.object({ assertion: AssertionSchema, passed: z.boolean(), message: z.string() }).strict();

export const TestCaseResultSchema = z
  .object({
    testCaseId: z.string(),
    name: z.string(),
    passed: z.boolean(),
    durationMs: z.number(),
    invocationId: z.string().optional(),
    assertions: z.array(AssertionResultSchema),
    /** The run was cancelled before this case ran: it counts as failed, and was never called. */
    cancelled: z.literal(true).optional(),
  })
  .strict();
export type TestCaseResult = z.infer<typeof TestCaseResultSchema>;

export const TestRunSummarySchema = z
  .object({ passed: z.number().int(), failed: z.number().int(), results: z.array(TestCaseResultSchema) })
  .strict();
export type TestRunSummary = z.infer<typeof TestRunSummarySchema>;
