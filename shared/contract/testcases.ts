/** Saved test cases of a tool (per bundle and slug), running them, and suites of whole bundles. */
import { z } from 'zod';
import { ErrorInfoSchema } from '../errors';
import { RunningSuiteSchema, SuiteProgressSchema, SuiteResultSchema, TestCaseSchema, TestRunSummarySchema } from '../model/testcase';
import { IdList, Key, type EventTable, type OperationTable } from './common';

export const testcasesOperations = {
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
} as const satisfies OperationTable;

export const testcasesEvents = {
  /** A step of a test suite started with 'testcases.runSuite' (its runId): the plan, a tool, a case started or done. */
  'testcases.suiteProgress': z.object({ runId: z.string(), seq: z.number().int().nonnegative(), progress: SuiteProgressSchema }).strict(),
  /** A suite ended (its result, or why it could not run): for windows that follow it but did not start it. */
  'testcases.suiteDone': z.object({ runId: z.string(), result: SuiteResultSchema.optional(), error: ErrorInfoSchema.optional() }).strict(),
} as const satisfies EventTable;
