/** Evals (docs/evals.md): eval cases per bundle, runs against models, saved runs and their comparison. */
import { z } from 'zod';
import { ErrorInfoSchema } from '../errors';
import {
  EvalCaseBodySchema,
  EvalCaseSchema,
  EvalComparisonSchema,
  EvalDraftSchema,
  EvalModelTargetSchema,
  EvalProgressSchema,
  EvalRunRefSchema,
  EvalRunSchema,
  EvalRunSummarySchema,
  EVAL_TIMEOUT_MAX_MS,
  MAX_EVAL_MODELS,
  MAX_EVAL_REPEAT,
  RunningEvalSchema,
} from '../model/evals';
import { ModelRefSchema } from '../model/provider';
import { IdList, Key, type EventTable, type OperationTable } from './common';

const RunId = z.string().uuid();

export const evalsOperations = {
  /** A bundle's eval cases, oldest first; with `tool`, those that expect that tool (a slug of the bundle, or bundle/slug). */
  'evals.list': { input: z.object({ bundleId: Key, tool: z.string().min(1).max(200).optional() }).strict(), output: z.array(EvalCaseSchema) },
  /** Creates a case (no id) or replaces the one with `id` (keeping its createdAt). */
  'evals.save': {
    input: z.object({ bundleId: Key, evalCase: EvalCaseBodySchema.extend({ id: z.string().max(64).optional() }).strict() }).strict(),
    output: EvalCaseSchema,
  },
  'evals.delete': { input: z.object({ bundleId: Key, id: Key }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  /**
   * A case drafted from a chat turn: `messageId` is any row of it (the user's message, the
   * model's reply, a tool card, or the notice of a failed model call). The draft holds the
   * user's message, the earlier messages, the registry tool the model called with checks of its
   * arguments (and its result as a canned answer), or no tool. `bundleId`: where it goes (default:
   * the called tool's bundle; required when no tool was called). `save`: save it at once.
   */
  'evals.fromChat': {
    input: z.object({ conversationId: Key, messageId: Key, bundleId: Key.optional(), save: z.boolean().optional() }).strict(),
    output: EvalDraftSchema,
  },
  /**
   * Runs eval cases against models, each case `repeat` times (default 1): the cases of these
   * bundles (default: every bundle switched on), or only `caseIds` of them. Progress comes as
   * 'evals.progress' events under `runId`; 'evals.cancel' stops it. The run is saved and answered.
   * `passRate`: the share of judged attempts a case must pass (default 1). `judge`: the model of
   * judge checks that name none. `timeoutMs`: an attempt's time limit for cases that give none.
   */
  'evals.run': {
    input: z
      .object({
        runId: RunId,
        bundleIds: IdList.optional(),
        caseIds: z.array(Key).max(5000).optional(),
        models: z.array(EvalModelTargetSchema).min(1).max(MAX_EVAL_MODELS),
        repeat: z.number().int().min(1).max(MAX_EVAL_REPEAT).optional(),
        passRate: z.number().min(0).max(1).optional(),
        judge: ModelRefSchema.optional(),
        timeoutMs: z.number().int().min(1000).max(EVAL_TIMEOUT_MAX_MS).optional(),
      })
      .strict(),
    output: EvalRunSchema,
  },
  /** Stops a run: the attempt running is stopped, the rest reported not run. False when none runs under that id. */
  'evals.cancel': { input: z.object({ runId: RunId }).strict(), output: z.object({ cancelled: z.boolean() }).strict() },
  /** The runs going on now, each with the steps told so far. */
  'evals.running': { input: z.object({}).strict(), output: z.object({ runs: z.array(RunningEvalSchema) }).strict() },
  /** Saved runs, newest first. */
  'evals.listRuns': { input: z.object({ limit: z.number().int().min(1).max(500).optional() }).strict(), output: z.array(EvalRunSummarySchema) },
  'evals.getRun': { input: z.object({ runId: Key }).strict(), output: EvalRunSchema },
  'evals.deleteRun': { input: z.object({ runId: Key }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  /**
   * Two saved runs compared case by case (this run against the last: `base` left out is the newest
   * run before `head` that shares a case and model with it), or two models of one run (name a
   * `model` on each side), with the tools whose text the model saw differently on the two sides.
   */
  'evals.compare': { input: z.object({ head: EvalRunRefSchema, base: EvalRunRefSchema.optional() }).strict(), output: EvalComparisonSchema },
} as const satisfies OperationTable;

export const evalsEvents = {
  /** A step of a run started with 'evals.run' (its runId): the plan, an attempt started or done, a case and model done. */
  'evals.progress': z.object({ runId: z.string(), seq: z.number().int().nonnegative(), progress: EvalProgressSchema }).strict(),
  /** A run ended (the saved run, or why it could not run). */
  'evals.done': z.object({ runId: z.string(), run: EvalRunSchema.optional(), error: ErrorInfoSchema.optional() }).strict(),
} as const satisfies EventTable;
