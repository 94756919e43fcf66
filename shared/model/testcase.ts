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

/**
 * The two values a failed comparison looked at (a JSONPath check: the value expected and the
 * value found), for a diff. Left out when either is too large to carry (the message says enough).
 */
export const ComparedValuesSchema = z.object({ expected: z.unknown(), actual: z.unknown() }).strict();
export type ComparedValues = z.infer<typeof ComparedValuesSchema>;

export const AssertionResultSchema = z
  .object({ assertion: AssertionSchema, passed: z.boolean(), message: z.string(), compared: ComparedValuesSchema.optional() })
  .strict();
export type AssertionResult = z.infer<typeof AssertionResultSchema>;

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
    /**
     * The tool could not be reached (no answer at all: connection refused, a name that does not
     * resolve, a server that never answered) and the case did not expect an error: it failed, but
     * as an infrastructure error, not as a failed check (JUnit's <error>, not <failure>).
     */
    unreachable: z.object({ code: z.string(), message: z.string() }).strict().optional(),
  })
  .strict();
export type TestCaseResult = z.infer<typeof TestCaseResultSchema>;

export const TestRunSummarySchema = z
  .object({ passed: z.number().int(), failed: z.number().int(), results: z.array(TestCaseResultSchema) })
  .strict();
export type TestRunSummary = z.infer<typeof TestRunSummarySchema>;

/** One tool's cases in a suite (electron/core/testcases/run-suite.ts). */
export const SuiteToolResultSchema = z
  .object({
    bundleId: z.string(),
    bundleSlug: z.string(),
    slug: z.string(),
    /** The version the cases ran against; absent when they were skipped. */
    version: z.string().optional(),
    /** Why the cases were not run; they count as skipped. */
    skipped: z.string().optional(),
    /** One result per case, in the saved order (skipped cases: not run, no assertions checked). */
    results: z.array(TestCaseResultSchema),
    passed: z.number().int(),
    failed: z.number().int(),
    durationMs: z.number(),
  })
  .strict();
export type SuiteToolResult = z.infer<typeof SuiteToolResultSchema>;

/** Saved test cases of whole bundles, run as one suite. */
export const SuiteResultSchema = z
  .object({
    startedAt: z.string(),
    durationMs: z.number(),
    passed: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    tools: z.array(SuiteToolResultSchema),
  })
  .strict();
export type SuiteResult = z.infer<typeof SuiteResultSchema>;

const SuiteToolRef = { bundleId: z.string(), bundleSlug: z.string(), slug: z.string() };

/**
 * What a suite tells while it runs: what it is going to run (first), a tool starts (or is
 * skipped), a case starts, a case is done.
 */
export const SuiteProgressSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('plan'), tools: z.number().int(), cases: z.number().int() }).strict(),
  z.object({ kind: z.literal('tool'), ...SuiteToolRef, version: z.string().optional(), cases: z.number().int(), skipped: z.string().optional() }).strict(),
  z.object({ kind: z.literal('case-start'), ...SuiteToolRef, name: z.string() }).strict(),
  z.object({ kind: z.literal('case'), ...SuiteToolRef, result: TestCaseResultSchema }).strict(),
]);
export type SuiteProgress = z.infer<typeof SuiteProgressSchema>;

/**
 * A suite still running (started from any window), as a window that opens later sees it: what
 * it runs (the bundles named, or null for every bundle switched on) and every step told so far,
 * in order (the progress events under its run id carry their place in this list as `seq`).
 */
export const RunningSuiteSchema = z
  .object({
    runId: z.string(),
    bundleIds: z.array(z.string()).nullable(),
    startedAt: z.string(),
    progress: z.array(SuiteProgressSchema),
  })
  .strict();
export type RunningSuite = z.infer<typeof RunningSuiteSchema>;
