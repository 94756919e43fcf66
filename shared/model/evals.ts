import { z } from 'zod';
import { ErrorInfoSchema } from '../errors';
import { ModelRefSchema } from './provider';
import { ComparedValuesSchema } from './testcase';

/**
 * Evals (docs/evals.md): does a model, given what a user says, choose the right tool among the
 * others (with tool search as in the chat), fill its arguments right, and answer well with its
 * result? Eval cases are saved per bundle, beside its test cases; a run asks one or more models,
 * each case N times, through the same turn the chat runs, and is saved so runs can be compared.
 */

/** Eval cases a bundle may have. */
export const MAX_EVAL_CASES = 500;
/** Models one run may ask. */
export const MAX_EVAL_MODELS = 8;
/** Times one run may ask a model the same case. */
export const MAX_EVAL_REPEAT = 20;
/** Attempts (cases × models × repeat) one run may make. */
export const MAX_EVAL_ATTEMPTS = 5000;
/** The longest an attempt may take (a case's timeoutMs, or the run's). */
export const EVAL_TIMEOUT_MAX_MS = 30 * 60_000;
/** An attempt's time limit when neither the case nor the run gives one. */
export const EVAL_TIMEOUT_DEFAULT_MS = 5 * 60_000;

const Text = (max: number) => z.string().min(1).max(max);

/**
 * A tool as a case names it: `slug` (a tool of the case's own bundle) or `bundle/slug` (another
 * bundle's, by the bundle's slug). Every version of the slug: the turn offers its newest usable one.
 */
export const EvalToolRefSchema = z
  .string()
  .max(200)
  .regex(/^([\p{L}\p{Nd}-]+\/)?[\p{L}\p{Nd}-]+$/u, 'a tool slug, or bundle/slug (e.g. get-weather or weather/get-weather)');
export type EvalToolRef = z.infer<typeof EvalToolRefSchema>;

/** A check of the arguments the model gave an expected tool. */
export const EvalArgCheckSchema = z.discriminatedUnion('kind', [
  /** The arguments match this JSON Schema; without one, the tool's own argSchema (as the version offered has it). */
  z.object({ kind: z.literal('schema'), schema: z.record(z.string(), z.unknown()).optional() }).strict(),
  /** The first value the JSONPath selects in the arguments deep-equals `value`. */
  z.object({ kind: z.literal('jsonPathEquals'), path: Text(1000), value: z.unknown() }).strict(),
  /** The arguments' JSON text contains this text (`ignoreCase`: in any case). */
  z.object({ kind: z.literal('contains'), text: Text(10_000), ignoreCase: z.boolean().optional() }).strict(),
]);
export type EvalArgCheck = z.infer<typeof EvalArgCheckSchema>;

/** A check of the model's final answer (the text it ended the turn with). */
export const EvalAnswerCheckSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('contains'), text: Text(10_000), ignoreCase: z.boolean().optional() }).strict(),
  /** The answer matches this regular expression (JavaScript syntax, searched anywhere in the text). */
  z.object({ kind: z.literal('regex'), pattern: Text(1000), ignoreCase: z.boolean().optional() }).strict(),
  /**
   * An LLM judge reads the user's message, the calls made and the answer, and says whether the
   * answer meets the rubric. `model`: the judge; absent, the run's judge model.
   */
  z.object({ kind: z.literal('judge'), rubric: Text(10_000), model: ModelRefSchema.optional() }).strict(),
]);
export type EvalAnswerCheck = z.infer<typeof EvalAnswerCheckSchema>;

/** A tool the model should call, with checks of the arguments it gives. */
export const EvalExpectedToolSchema = z.object({ tool: EvalToolRefSchema, args: z.array(EvalArgCheckSchema).max(50) }).strict();
export type EvalExpectedTool = z.infer<typeof EvalExpectedToolSchema>;

/**
 * What the model should do: call these tools (each at least once, in any order; a call of
 * another registry tool fails the case unless `allowOthers`), or call no tool at all.
 * `tool_search` and the model-only tools (stop_and_think, …) never count as a choice.
 */
export const EvalExpectSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tools'), tools: z.array(EvalExpectedToolSchema).min(1).max(10), allowOthers: z.boolean().optional() }).strict(),
  z.object({ kind: z.literal('none') }).strict(),
]);
export type EvalExpect = z.infer<typeof EvalExpectSchema>;

/** What a call of `tool` answers in an eval, instead of running: a value, or an error. */
export const EvalCannedResultSchema = z.union([
  z.object({ tool: EvalToolRefSchema, value: z.unknown() }).strict(),
  z.object({ tool: EvalToolRefSchema, error: z.object({ code: z.string().max(64), message: Text(10_000) }).strict() }).strict(),
]);
export type EvalCannedResult = z.infer<typeof EvalCannedResultSchema>;

/**
 * The tools the model is offered: its own bundle's, every tool switched on (what a chat without a
 * tool selection offers), or a named set (`bundle/slug`, or `bundle/*` for a whole bundle).
 * `toolSearch`: as Settings → Tool search says, or forced on ('always') or off.
 */
export const EvalScopeSchema = z
  .object({
    tools: z.enum(['bundle', 'enabled', 'named']),
    named: z
      .array(z.string().max(200).regex(/^[\p{L}\p{Nd}-]+\/([\p{L}\p{Nd}-]+|\*)$/u, 'bundle/slug or bundle/*'))
      .max(1000)
      .optional(),
    toolSearch: z.enum(['settings', 'on', 'off']),
  })
  .strict();
export type EvalScope = z.infer<typeof EvalScopeSchema>;

/** An earlier message of the conversation, given to the model before the user's message. */
export const EvalContextMessageSchema = z.object({ role: z.enum(['user', 'assistant']), text: Text(100_000) }).strict();
export type EvalContextMessage = z.infer<typeof EvalContextMessageSchema>;

/** The fields of a case a person chooses (what a ZIP carries: no id, no times). */
export const EvalCaseBodySchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    /** What the user says. */
    prompt: Text(100_000),
    context: z.array(EvalContextMessageSchema).max(50).default([]),
    expect: EvalExpectSchema,
    answer: z.array(EvalAnswerCheckSchema).max(20).default([]),
    scope: EvalScopeSchema,
    /** Answers given instead of running the tool (no side effects). */
    results: z.array(EvalCannedResultSchema).max(20).default([]),
    /** A call of a tool without a canned result: run for real (through the dispatcher), or refused without running. */
    otherCalls: z.enum(['run', 'refuse']).default('run'),
    /**
     * A call of a tool that asks for approval, in a run nobody watches: denied (the model is told
     * the call was not run), or allowed once. A call answered by a canned result runs nothing and is allowed.
     */
    approvals: z.enum(['deny', 'allow']).default('deny'),
    /** An attempt's time limit (absent: the run's, else EVAL_TIMEOUT_DEFAULT_MS). */
    timeoutMs: z.number().int().min(1000).max(EVAL_TIMEOUT_MAX_MS).optional(),
  })
  .strict();
export type EvalCaseBody = z.infer<typeof EvalCaseBodySchema>;
/** A body as a client sends it (the defaulted fields may be left out). */
export type EvalCaseBodyInput = z.input<typeof EvalCaseBodySchema>;

export const EvalCaseSchema = EvalCaseBodySchema.extend({ id: z.string().min(1).max(64), createdAt: z.string(), updatedAt: z.string() }).strict();
export type EvalCase = z.infer<typeof EvalCaseSchema>;

// ---- runs ------------------------------------------------------------------------------------

/** Prices per million tokens (in the currency you think in): a run's cost where they are given. */
export const EvalPriceSchema = z.object({ inputPerMillion: z.number().min(0).max(1e6), outputPerMillion: z.number().min(0).max(1e6) }).strict();
export type EvalPrice = z.infer<typeof EvalPriceSchema>;

/** A model a run asks: a saved provider and a model name, with its prices when known. */
export const EvalModelTargetSchema = ModelRefSchema.extend({ price: EvalPriceSchema.optional() }).strict();
export type EvalModelTarget = z.infer<typeof EvalModelTargetSchema>;

/** A model in a saved run: `key` is `providerId/model` (what results name it by), `label` the provider's name and the model. */
export const EvalRunModelSchema = EvalModelTargetSchema.extend({ key: z.string(), label: z.string() }).strict();
export type EvalRunModel = z.infer<typeof EvalRunModelSchema>;

/** A tool as the model saw it in a request: its name in the request, description and parameters. */
export const EvalToolTextSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    parameters: z.unknown(),
    /** The registry tool behind the name (absent for tool_search and the model-only tools). */
    tool: z.object({ bundleId: z.string(), bundleSlug: z.string(), slug: z.string(), version: z.string() }).strict().optional(),
  })
  .strict();
export type EvalToolText = z.infer<typeof EvalToolTextSchema>;

/**
 * One step of the model in an attempt: the tools its request carried (`toolSet`: a key into the
 * run's `toolSets`, whose list names keys of the run's `tools`), tokens and time.
 */
export const EvalStepSchema = z
  .object({
    toolSet: z.string(),
    inputTokens: z.number().int().min(0).optional(),
    outputTokens: z.number().int().min(0).optional(),
    durationMs: z.number().min(0),
  })
  .strict();
export type EvalStep = z.infer<typeof EvalStepSchema>;

/** A call the model made in an attempt. */
export const EvalCallSchema = z
  .object({
    /** The name the model called. */
    name: z.string(),
    /** tool: a registry tool; search: tool_search; model-only: stop_and_think and the like; unknown: a name no tool has. */
    kind: z.enum(['tool', 'search', 'model-only', 'unknown']),
    /** `bundle/slug@version` of the registry tool behind it; absent for tool_search, a model-only tool, or a name no tool has. */
    tool: z.string().optional(),
    bundleId: z.string().optional(),
    slug: z.string().optional(),
    /**
     * The arguments as parsed (the text as sent when it is not JSON). Scored whole; stored whole
     * up to 64 KiB of JSON, past it (or past the run's record budget) the start of their text ending in '…'.
     */
    args: z.unknown(),
    /** How the call ended (the card's status), and its error. */
    status: z.string(),
    error: ErrorInfoSchema.optional(),
    /** Answered from the case's canned results (nothing ran). */
    canned: z.literal(true).optional(),
    /** A tool_search call: its query and what it loaded. */
    search: z.object({ query: z.string(), loaded: z.array(z.string()) }).strict().optional(),
  })
  .strict();
export type EvalCall = z.infer<typeof EvalCallSchema>;

/** One check of an attempt: which part, the check (absent for the tool choice), whether it passed, and why. */
export const EvalCheckResultSchema = z
  .object({
    part: z.enum(['tool', 'args', 'answer']),
    /** The expected tool (args checks, and the choice of that tool). */
    tool: z.string().optional(),
    check: z.union([EvalArgCheckSchema, EvalAnswerCheckSchema]).optional(),
    passed: z.boolean(),
    message: z.string(),
    /** The two values a failed comparison looked at, for a diff. */
    compared: ComparedValuesSchema.optional(),
  })
  .strict();
export type EvalCheckResult = z.infer<typeof EvalCheckResultSchema>;

/**
 * One time a model was asked a case. `pass`/`fail`: what the checks say of what the model did;
 * `error`: the attempt could not be judged (the provider failed, the time ran out, the judge
 * failed, the case cannot run); `not-run`: the run was cancelled first.
 */
export const EvalAttemptSchema = z
  .object({
    n: z.number().int().min(1),
    outcome: z.enum(['pass', 'fail', 'error', 'not-run']),
    error: ErrorInfoSchema.optional(),
    checks: z.array(EvalCheckResultSchema),
    /** The calls the model made, in order, a delegated agent's after the call that delegated it (the first 100 stored). */
    calls: z.array(EvalCallSchema),
    /** The model's final text: scored whole, stored up to 16 KiB (less past the run's record budget), then '…'. */
    answer: z.string(),
    steps: z.array(EvalStepSchema),
    /** Why the model searched for tools instead of getting every definition (absent: it got them all). */
    toolSearch: z.string().optional(),
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    /** What the judge's calls took (not in inputTokens/outputTokens). */
    judgeInputTokens: z.number().int().min(0).optional(),
    judgeOutputTokens: z.number().int().min(0).optional(),
    durationMs: z.number().min(0),
    /** From the model's prices (the judge's are not counted). */
    cost: z.number().min(0).optional(),
  })
  .strict();
export type EvalAttempt = z.infer<typeof EvalAttemptSchema>;

/**
 * A case asked of one model, N times. `passRate`: passed / judged (pass + fail), null when none
 * was judged. `verdict`: pass when the rate reaches the run's passRate and no attempt errored;
 * error when no attempt could be judged; `flaky` when some attempts passed and others failed.
 */
export const EvalCaseResultSchema = z
  .object({
    caseId: z.string(),
    bundleId: z.string(),
    name: z.string(),
    model: z.string(),
    attempts: z.array(EvalAttemptSchema),
    passed: z.number().int(),
    failed: z.number().int(),
    errors: z.number().int(),
    notRun: z.number().int(),
    passRate: z.number().min(0).max(1).nullable(),
    verdict: z.enum(['pass', 'fail', 'error', 'not-run']),
    flaky: z.boolean(),
    /** Registry tools called where the case expected others (or none), and how many attempts called each. */
    chosenInstead: z.array(z.object({ tool: z.string(), attempts: z.number().int() }).strict()),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    /** Mean over the attempts that ran. */
    meanDurationMs: z.number(),
    cost: z.number().optional(),
  })
  .strict();
export type EvalCaseResult = z.infer<typeof EvalCaseResultSchema>;

export const EvalTotalsSchema = z
  .object({
    results: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    errors: z.number().int(),
    notRun: z.number().int(),
    flaky: z.number().int(),
    attempts: z.number().int(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    cost: z.number().optional(),
  })
  .strict();
export type EvalTotals = z.infer<typeof EvalTotalsSchema>;

/** A case as the run asked it (a copy: the saved case may change later), with its bundle. */
export const EvalRunCaseSchema = z.object({ bundleId: z.string(), bundleSlug: z.string(), case: EvalCaseSchema }).strict();
export type EvalRunCase = z.infer<typeof EvalRunCaseSchema>;

/** A run, as saved (`<data>/eval-runs/<id>.json`). */
export const EvalRunSchema = z
  .object({
    id: z.string(),
    startedAt: z.string(),
    durationMs: z.number(),
    /** cancelled: stopped before every attempt ran (those are not-run). */
    status: z.enum(['done', 'cancelled']),
    models: z.array(EvalRunModelSchema),
    judge: ModelRefSchema.optional(),
    repeat: z.number().int(),
    passRate: z.number().min(0).max(1),
    cases: z.array(EvalRunCaseSchema),
    /** One per case and model, case by case. */
    results: z.array(EvalCaseResultSchema),
    /** Every tool text a request carried, by key: what the model saw. */
    tools: z.record(z.string(), EvalToolTextSchema),
    /** Each distinct list of tools a request carried (keys of `tools`, in the request's order), by key (the steps name them). */
    toolSets: z.record(z.string(), z.array(z.string())),
    totals: EvalTotalsSchema,
  })
  .strict();
export type EvalRun = z.infer<typeof EvalRunSchema>;

/** A saved run in the list: what it asked, and how it went. */
export const EvalRunSummarySchema = z
  .object({
    id: z.string(),
    startedAt: z.string(),
    durationMs: z.number(),
    status: EvalRunSchema.shape.status,
    models: z.array(EvalRunModelSchema),
    repeat: z.number().int(),
    bundles: z.array(z.object({ bundleId: z.string(), bundleSlug: z.string() }).strict()),
    cases: z.number().int(),
    totals: EvalTotalsSchema,
  })
  .strict();
export type EvalRunSummary = z.infer<typeof EvalRunSummarySchema>;

const ResultRef = { caseId: z.string(), bundleId: z.string(), model: z.string() };

/** What a run tells while it runs: the plan, an attempt starting, an attempt done, a case and model done. */
export const EvalProgressSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('plan'), cases: z.number().int(), models: z.array(z.string()), repeat: z.number().int(), attempts: z.number().int() }).strict(),
  z.object({ kind: z.literal('attempt-start'), ...ResultRef, name: z.string(), n: z.number().int() }).strict(),
  z.object({ kind: z.literal('attempt'), ...ResultRef, name: z.string(), attempt: EvalAttemptSchema }).strict(),
  z.object({ kind: z.literal('result'), result: EvalCaseResultSchema }).strict(),
]);
export type EvalProgress = z.infer<typeof EvalProgressSchema>;

/** A run going on now, as a window that opens later sees it: what it asks, and every step told so far. */
export const RunningEvalSchema = z
  .object({ runId: z.string(), startedAt: z.string(), bundleIds: z.array(z.string()).nullable(), models: z.array(z.string()), progress: z.array(EvalProgressSchema) })
  .strict();
export type RunningEval = z.infer<typeof RunningEvalSchema>;

// ---- comparing runs ------------------------------------------------------------------------------

/** One side of a comparison: a saved run, or one model's results in it. */
export const EvalRunRefSchema = z.object({ runId: z.string().min(1).max(64), model: z.string().min(1).max(500).optional() }).strict();
export type EvalRunRef = z.infer<typeof EvalRunRefSchema>;

const SideSchema = z
  .object({ passRate: z.number().nullable(), verdict: EvalCaseResultSchema.shape.verdict, flaky: z.boolean(), meanDurationMs: z.number(), inputTokens: z.number().int(), outputTokens: z.number().int(), cost: z.number().optional() })
  .strict();

/** A case (and model, unless the sides name one each) on both sides: how it changed. */
export const EvalComparedCaseSchema = z
  .object({
    caseId: z.string(),
    bundleId: z.string(),
    name: z.string(),
    /** The model's key on each side (the same unless the sides name models). */
    baseModel: z.string().optional(),
    headModel: z.string().optional(),
    base: SideSchema.optional(),
    head: SideSchema.optional(),
    /** fixed: failed before, passes now; broke: the other way; new/gone: on one side only. */
    change: z.enum(['fixed', 'broke', 'same', 'better', 'worse', 'new', 'gone']),
  })
  .strict();
export type EvalComparedCase = z.infer<typeof EvalComparedCaseSchema>;

/** A tool whose text the model saw differently on the two sides (a description v1 and v2). */
export const EvalToolChangeSchema = z
  .object({
    /** `bundle/slug`. */
    tool: z.string(),
    base: z.object({ version: z.string(), description: z.string(), parameters: z.unknown() }).strict(),
    head: z.object({ version: z.string(), description: z.string(), parameters: z.unknown() }).strict(),
    descriptionChanged: z.boolean(),
    parametersChanged: z.boolean(),
  })
  .strict();
export type EvalToolChange = z.infer<typeof EvalToolChangeSchema>;

export const EvalComparisonSchema = z
  .object({
    base: EvalRunRefSchema.extend({ startedAt: z.string() }).strict(),
    head: EvalRunRefSchema.extend({ startedAt: z.string() }).strict(),
    cases: z.array(EvalComparedCaseSchema),
    /** Pass rates over the cases both sides have (passed / judged, all attempts together). */
    passRate: z.object({ base: z.number().nullable(), head: z.number().nullable() }).strict(),
    counts: z.object({ fixed: z.number().int(), broke: z.number().int(), same: z.number().int(), better: z.number().int(), worse: z.number().int(), new: z.number().int(), gone: z.number().int() }).strict(),
    tools: z.array(EvalToolChangeSchema),
  })
  .strict();
export type EvalComparison = z.infer<typeof EvalComparisonSchema>;

/** A case drafted from a chat turn ('evals.fromChat'): the bundle it would go to, the case, and what to check before saving it. */
export const EvalDraftSchema = z
  .object({ bundleId: z.string(), draft: EvalCaseBodySchema, notes: z.array(z.string()), saved: EvalCaseSchema.optional() })
  .strict();
export type EvalDraft = z.infer<typeof EvalDraftSchema>;
