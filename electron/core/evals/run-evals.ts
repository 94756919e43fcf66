/**
 * A run: the cases of some bundles asked of one or more models, each `repeat` times, one
 * attempt after another (a rate-limited provider sees one request at a time), each as a chat
 * turn (./eval-session.ts), scored (./score.ts) and, when a rubric asks, judged (./judge.ts).
 *
 * Before anything is asked, each case is prepared: its tools resolved (`slug`, `bundle/slug`),
 * its scope made a tool selection, its canned answers keyed. A case that cannot run (an
 * expected tool that does not exist, is switched off or is outside the case's scope; a canned
 * result for a tool that does not exist, or two for one tool; a judge check without a judge
 * model) and a model whose provider is not saved give every attempt an error saying so, without
 * calling anything. A cancelled run reports what it did not reach as not run.
 *
 * Checks are scored on the whole arguments and answer; a check that cannot be evaluated makes
 * the attempt an error. Only then is the attempt cut for storing (./record-limits.ts).
 *
 * Progress: the plan, each attempt as it starts and as it ends, each case and model when done.
 */
import { createHash } from 'node:crypto';
import { AppError, toErrorInfo, type ErrorInfo } from '../../../shared/errors';
import type { Bundle } from '../../../shared/model/bundle';
import {
  EVAL_TIMEOUT_DEFAULT_MS,
  MAX_EVAL_ATTEMPTS,
  type EvalAttempt,
  type EvalCannedResult,
  type EvalCase,
  type EvalCaseResult,
  type EvalCheckResult,
  type EvalModelTarget,
  type EvalProgress,
  type EvalRun,
  type EvalRunCase,
  type EvalRunModel,
  type EvalStep,
  type EvalToolText,
  type EvalTotals,
} from '../../../shared/model/evals';
import type { ModelRef, Provider, ToolSelection } from '../../../shared/model/provider';
import { isToolUsable, type ToolView } from '../../../shared/model/tool';
import { quote } from '../../../shared/model/validation';
import type { ToolStore } from '../bundles/tool-store';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { ModelClientFactory } from '../llm/types';
import { askJudge } from './judge';
import { EvalSession, type AttemptPlan, type AttemptRecord, type EvalPlatform } from './eval-session';
import { RecordBudget } from './record-limits';
import { BundleIndex, resolveRef, versionsOf, type ResolvedRef } from './tool-refs';
import { toolSetKey } from './run-store';
import { choiceName, isChoice, scoreAnswer, scoreChoice, toolKeyOf, type ScoreContext, type ScoredCheck } from './score';

export interface EvalRunDeps {
  platform: EvalPlatform;
  store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById' | 'getTool' | 'toolsOf' | 'listBundles'>;
  providers: { get(id: string): Provider | undefined };
  /** The real clients: the judge is asked through them. */
  clients: ModelClientFactory;
  dispatcher: Pick<InvokeDispatcher, 'argIssues'>;
  now: () => Date;
}

export interface EvalRunOptions {
  runId: string;
  /** Each bundle with its cases, in order. */
  cases: readonly { bundle: Bundle; cases: readonly EvalCase[] }[];
  models: readonly EvalModelTarget[];
  repeat?: number;
  passRate?: number;
  judge?: ModelRef;
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: EvalProgress) => void;
}

/** The model's key in results: `providerId/model`. */
export const modelKey = (m: ModelRef) => `${m.providerId}/${m.model}`;

/** The most attempts a run may make, checked before it starts. */
export function checkRunSize(cases: number, models: number, repeat: number): void {
  const attempts = cases * models * repeat;
  if (attempts > MAX_EVAL_ATTEMPTS) {
    throw new AppError('VALIDATION_FAILED', `this run would make ${attempts} attempts (${cases} cases × ${models} models × ${repeat}); a run makes at most ${MAX_EVAL_ATTEMPTS}: choose fewer cases, models or repeats`, { attempts });
  }
}

interface Prepared {
  bundle: Bundle;
  c: EvalCase;
  plan?: AttemptPlan;
  score?: ScoreContext;
  /** Why the case cannot run. */
  problem?: ErrorInfo;
}

export async function runEvals(deps: EvalRunDeps, o: EvalRunOptions): Promise<EvalRun> {
  const startedAt = deps.now().toISOString();
  const t0 = performance.now();
  const repeat = o.repeat ?? 1;
  const passRate = o.passRate ?? 1;
  const models = uniqueModels(o.models, deps.providers);
  const all = o.cases.flatMap(({ bundle, cases }) => cases.map((c) => ({ bundle, c })));
  checkRunSize(all.length, models.length, repeat);
  const bundles = new BundleIndex(deps.store);
  const prepared = all.map(({ bundle, c }) => prepare(deps, bundles, bundle, c, o));
  o.onProgress?.({ kind: 'plan', cases: all.length, models: models.map((m) => m.key), repeat, attempts: all.length * models.length * repeat });

  const seen: Seen = { tools: {}, toolSets: {} };
  const budget = new RecordBudget();
  const results: EvalCaseResult[] = [];
  const signal = o.signal ?? new AbortController().signal;
  const session = new EvalSession(deps.platform);
  try {
    for (const p of prepared) {
      for (const m of models) {
        const ref = { caseId: p.c.id, bundleId: p.bundle.id, model: m.key };
        const attempts: EvalAttempt[] = [];
        for (let n = 1; n <= repeat; n++) {
          let attempt: EvalAttempt;
          if (signal.aborted) attempt = notRun(n);
          else if (p.problem || m.problem) attempt = errored(n, (p.problem ?? m.problem)!);
          else {
            o.onProgress?.({ kind: 'attempt-start', ...ref, name: p.c.name, n });
            const rec = await session.attempt(p.plan!, m, signal);
            attempt = budget.keep(await judged(deps, p, m, n, rec, seen, o.judge, signal));
          }
          attempts.push(attempt);
          o.onProgress?.({ kind: 'attempt', ...ref, name: p.c.name, attempt });
        }
        const result = summarise(p, m, attempts, passRate);
        results.push(result);
        o.onProgress?.({ kind: 'result', result });
      }
    }
  } finally {
    await session.close();
  }
  const runCases: EvalRunCase[] = prepared.map((p) => ({ bundleId: p.bundle.id, bundleSlug: p.bundle.slug, case: p.c }));
  return {
    id: o.runId,
    startedAt,
    durationMs: performance.now() - t0,
    status: signal.aborted ? 'cancelled' : 'done',
    models: models.map(({ problem: _problem, ...m }) => m),
    ...(o.judge ? { judge: o.judge } : {}),
    repeat,
    passRate,
    cases: runCases,
    results,
    tools: seen.tools,
    toolSets: seen.toolSets,
    totals: totals(results),
  };
}

/** What the models saw over the run: each tool text once, each list of them a request carried once. */
interface Seen {
  tools: Record<string, EvalToolText>;
  toolSets: Record<string, string[]>;
}

type RunModel = EvalRunModel & { problem?: ErrorInfo };

function uniqueModels(targets: readonly EvalModelTarget[], providers: EvalRunDeps['providers']): RunModel[] {
  const out: RunModel[] = [];
  for (const t of targets) {
    const key = modelKey(t);
    if (out.some((m) => m.key === key)) continue;
    const p = providers.get(t.providerId);
    const label = `${p?.name ?? t.providerId}/${t.model}`;
    const problem: ErrorInfo | undefined = p ? undefined : { code: 'NOT_FOUND', message: `no provider with id ${quote(t.providerId)}: add it in Settings → Models, or choose another` };
    out.push({ providerId: t.providerId, model: t.model, ...(t.price ? { price: t.price } : {}), key, label, ...(problem ? { problem } : {}) });
  }
  return out;
}

function prepare(deps: EvalRunDeps, bundles: BundleIndex, bundle: Bundle, c: EvalCase, o: EvalRunOptions): Prepared {
  const fail = (message: string, code: ErrorInfo['code'] = 'VALIDATION_FAILED'): Prepared => ({ bundle, c, problem: { code, message: `the case cannot run: ${message}` } });
  const refs = new Map<string, ResolvedRef>();
  const resolve = (ref: string): ResolvedRef | string => {
    const hit = refs.get(ref);
    if (hit) return hit;
    const r = resolveRef(bundles, bundle, ref);
    if (typeof r !== 'string') refs.set(ref, r);
    return r;
  };

  // The scope as the conversation's tool selection (absent: every tool switched on).
  let selection: ToolSelection | undefined;
  const namedTools = new Set<string>();
  const namedBundles = new Set<string>();
  if (c.scope.tools === 'bundle') selection = { bundleIds: [bundle.id], toolIds: [] };
  if (c.scope.tools === 'named') {
    selection = { bundleIds: [], toolIds: [] };
    for (const n of c.scope.named ?? []) {
      const [b, s] = n.split('/') as [string, string];
      const found = bundles.find(b);
      if (typeof found === 'string') return fail(`the named tool ${quote(n)}: ${found}`);
      if (s === '*') {
        selection.bundleIds.push(found.id);
        namedBundles.add(found.id);
        continue;
      }
      const versions = versionsOf(deps.store, found.id, s.normalize('NFC'));
      if (!versions.length) return fail(`the named tool ${quote(n)} does not exist`, 'NOT_FOUND');
      selection.toolIds.push(...versions.map((t) => t.id));
      namedTools.add(toolKeyOf(found.id, s));
    }
  }

  if (c.expect.kind === 'tools') {
    for (const want of c.expect.tools) {
      const r = resolve(want.tool);
      if (typeof r === 'string') return fail(r, 'NOT_FOUND');
      const versions = versionsOf(deps.store, r.bundle.id, r.slug);
      if (!versions.length) return fail(`the expected tool ${r.label} does not exist`, 'NOT_FOUND');
      if (!versions.some((t) => isToolUsable(t, r.bundle) && deps.store.isUsable(t.id))) return fail(`the expected tool ${r.label} is switched off (or its bundle is): switch it on to evaluate it`);
      const inScope = c.scope.tools === 'enabled' || (c.scope.tools === 'bundle' ? r.bundle.id === bundle.id : namedBundles.has(r.bundle.id) || namedTools.has(r.key));
      if (!inScope) return fail(`the expected tool ${r.label} is not among the tools the case offers the model (scope: ${c.scope.tools}); add it to the scope`);
    }
  }
  const canned = new Map<string, EvalCannedResult>();
  for (const res of c.results) {
    const r = resolve(res.tool);
    if (typeof r === 'string') return fail(`a canned result's tool ${r}`, 'NOT_FOUND');
    if (!versionsOf(deps.store, r.bundle.id, r.slug).length) return fail(`the canned result's tool ${r.label} does not exist: remove the result or correct its tool`, 'NOT_FOUND');
    const twice = canned.get(r.key);
    if (twice) return fail(`${r.label} has two canned results (${quote(twice.tool)} and ${quote(res.tool)}): keep one`);
    canned.set(r.key, res);
  }
  for (const a of c.answer) {
    if (a.kind !== 'judge') continue;
    const judge = a.model ?? o.judge;
    if (!judge) return fail('it has a judge check without a judge model: give the run one (toolsmith eval --judge provider/model) or the check its own');
    if (!deps.providers.get(judge.providerId)) return fail(`its judge's provider ${quote(judge.providerId)} is not saved: add it in Settings → Models`, 'NOT_FOUND');
  }

  const plan: AttemptPlan = {
    prompt: c.prompt,
    context: c.context,
    ...(selection ? { selection } : {}),
    ...(c.scope.toolSearch === 'on' ? { toolSearchMode: 'always' as const } : c.scope.toolSearch === 'off' ? { toolSearchMode: 'off' as const } : {}),
    canned,
    refuseOthers: c.otherCalls === 'refuse',
    allowApprovals: c.approvals === 'allow',
    timeoutMs: c.timeoutMs ?? o.timeoutMs ?? EVAL_TIMEOUT_DEFAULT_MS,
  };
  const score: ScoreContext = {
    keyOf: (ref) => {
      const r = resolve(ref);
      return typeof r === 'string' ? `\u0000${ref}` : r.key;
    },
    labelOf: (ref) => {
      const r = resolve(ref);
      return typeof r === 'string' ? ref : r.label;
    },
    argIssues: (call, schema) => {
      if (schema) return deps.dispatcher.argIssues(schema, call.args);
      let tool: ToolView | undefined;
      try {
        if (call.tool && call.bundleId && call.slug) tool = deps.store.getTool(call.bundleId, call.slug, call.tool.slice(call.tool.lastIndexOf('@') + 1));
      } catch {
        tool = undefined;
      }
      if (!tool) throw new AppError('NOT_FOUND', `${call.tool ?? call.name} is gone from the registry: its argSchema cannot be read`);
      return deps.dispatcher.argIssues(tool.argSchema, call.args);
    },
  };
  return { bundle, c, plan, score };
}

function notRun(n: number): EvalAttempt {
  return { n, outcome: 'not-run', error: { code: 'CANCELLED', message: 'not run: the run was cancelled' }, checks: [], calls: [], answer: '', steps: [], inputTokens: 0, outputTokens: 0, durationMs: 0 };
}

function errored(n: number, error: ErrorInfo): EvalAttempt {
  return { n, outcome: 'error', error, checks: [], calls: [], answer: '', steps: [], inputTokens: 0, outputTokens: 0, durationMs: 0 };
}

/** The key of a tool text: what the model saw, byte for byte (name, description, parameters). */
function textKey(spec: { name: string; description: string; parameters: unknown }): string {
  return createHash('sha256').update(JSON.stringify([spec.name, spec.description, spec.parameters])).digest('hex').slice(0, 16);
}

async function judged(deps: EvalRunDeps, p: Prepared, m: RunModel, n: number, rec: AttemptRecord, seen: Seen, runJudge: ModelRef | undefined, signal: AbortSignal): Promise<EvalAttempt> {
  const { tools, toolSets } = seen;
  const steps: EvalStep[] = rec.steps.map((s) => {
    const keys = s.tools.map((spec) => {
      const key = textKey(spec);
      if (!tools[key]) {
        const mt = rec.names.byName(spec.name);
        const t = mt?.tool;
        tools[key] = { name: spec.name, description: spec.description, parameters: spec.parameters, ...(t ? { tool: { bundleId: t.bundleId, bundleSlug: mt!.bundleSlug ?? '', slug: t.slug, version: t.version } } : {}) };
      }
      return key;
    });
    const toolSet = toolSetKey(keys);
    toolSets[toolSet] ??= keys;
    return { toolSet, ...(s.usage?.inputTokens !== undefined ? { inputTokens: s.usage.inputTokens } : {}), ...(s.usage?.outputTokens !== undefined ? { outputTokens: s.usage.outputTokens } : {}), durationMs: s.durationMs };
  });
  const inputTokens = steps.reduce((t, s) => t + (s.inputTokens ?? 0), 0);
  const outputTokens = steps.reduce((t, s) => t + (s.outputTokens ?? 0), 0);
  const base = {
    n,
    calls: rec.calls,
    answer: rec.answer,
    steps,
    ...(rec.toolSearch ? { toolSearch: rec.toolSearch } : {}),
    inputTokens,
    outputTokens,
    durationMs: rec.durationMs,
    ...(m.price ? { cost: (inputTokens * m.price.inputPerMillion + outputTokens * m.price.outputPerMillion) / 1e6 } : {}),
  };
  if (rec.cancelled) return { ...base, outcome: 'not-run', error: rec.error ?? { code: 'CANCELLED', message: 'not finished: the run was cancelled' }, checks: [] };
  const c = p.c;
  // Scored on whole values; what the attempt stores is cut afterwards (./record-limits.ts).
  const scored: ScoredCheck[] = [...scoreChoice(c, rec.calls, p.score!), ...scoreAnswer(c.answer, rec.answer)];
  const checks: EvalCheckResult[] = scored.map(({ unevaluable: _u, ...x }) => x);
  if (rec.error) return { ...base, outcome: 'error', error: rec.error, checks };
  // A check that could not be evaluated: the attempt cannot be judged (not the model's fail).
  const broken = scored.find((x) => x.unevaluable)?.unevaluable;
  if (broken) return { ...base, outcome: 'error', error: broken, checks };
  const judges = c.answer.filter((a) => a.kind === 'judge');
  let judgeIn = 0;
  let judgeOut = 0;
  const settled = checks.every((x) => x.passed);
  for (const a of judges) {
    if (!settled) {
      checks.push({ part: 'answer', check: a, passed: false, message: 'not judged: the attempt already failed a check' });
      continue;
    }
    const model = a.model ?? runJudge!;
    try {
      const v = await askJudge(deps.clients, { model, rubric: a.rubric, prompt: c.prompt, calls: rec.calls, answer: rec.answer, signal, timeoutMs: p.plan!.timeoutMs });
      judgeIn += v.usage?.inputTokens ?? 0;
      judgeOut += v.usage?.outputTokens ?? 0;
      checks.push({ part: 'answer', check: a, passed: v.pass, message: `${v.pass ? 'the judge passed it' : 'the judge failed it'}: ${v.reason}` });
    } catch (e) {
      const info = toErrorInfo(e, 'evals.run');
      const judgeTokens = judgeIn || judgeOut ? { judgeInputTokens: judgeIn, judgeOutputTokens: judgeOut } : {};
      if (signal.aborted) return { ...base, ...judgeTokens, outcome: 'not-run', error: { code: 'CANCELLED', message: 'not finished: the run was cancelled while the judge answered' }, checks };
      return { ...base, ...judgeTokens, outcome: 'error', error: { ...info, message: `the judge (${modelKey(model)}) could not answer: ${info.message}` }, checks };
    }
  }
  return {
    ...base,
    ...(judges.length && settled ? { judgeInputTokens: judgeIn, judgeOutputTokens: judgeOut } : {}),
    outcome: checks.every((x) => x.passed) ? 'pass' : 'fail',
    checks,
  };
}

function summarise(p: Prepared, m: RunModel, attempts: EvalAttempt[], threshold: number): EvalCaseResult {
  const count = (o: EvalAttempt['outcome']) => attempts.filter((a) => a.outcome === o).length;
  const passed = count('pass');
  const failed = count('fail');
  const errors = count('error');
  const notRunCount = count('not-run');
  const judged = passed + failed;
  const passRate = judged ? passed / judged : null;
  let verdict: EvalCaseResult['verdict'];
  if (passRate !== null && passRate < threshold) verdict = 'fail';
  else if (errors > 0) verdict = 'error';
  else if (notRunCount > 0) verdict = 'not-run';
  else verdict = 'pass';
  // Which tools were chosen where the case expected others (or none), by attempts.
  const expected = new Set(p.c.expect.kind === 'tools' ? p.c.expect.tools.map((t) => p.score?.keyOf(t.tool)) : []);
  const instead = new Map<string, number>();
  // Only attempts that ran and did not pass count (a pass with allowOthers chose nothing instead).
  for (const a of attempts.filter((x) => x.outcome === 'fail' || x.outcome === 'error')) {
    const names = new Set(a.calls.filter((x) => isChoice(x) && !(x.bundleId && x.slug && expected.has(toolKeyOf(x.bundleId, x.slug)))).map(choiceName));
    for (const name of names) instead.set(name, (instead.get(name) ?? 0) + 1);
  }
  const ran = attempts.filter((a) => a.outcome !== 'not-run' && a.durationMs > 0);
  const costs = attempts.filter((a) => a.cost !== undefined);
  return {
    caseId: p.c.id,
    bundleId: p.bundle.id,
    name: p.c.name,
    model: m.key,
    attempts,
    passed,
    failed,
    errors,
    notRun: notRunCount,
    passRate,
    verdict,
    flaky: passed > 0 && failed > 0,
    chosenInstead: [...instead].map(([tool, n]) => ({ tool, attempts: n })).sort((a, b) => b.attempts - a.attempts || a.tool.localeCompare(b.tool)),
    inputTokens: attempts.reduce((t, a) => t + a.inputTokens, 0),
    outputTokens: attempts.reduce((t, a) => t + a.outputTokens, 0),
    meanDurationMs: ran.length ? ran.reduce((t, a) => t + a.durationMs, 0) / ran.length : 0,
    ...(m.price ? { cost: costs.reduce((t, a) => t + (a.cost ?? 0), 0) } : {}),
  };
}

export function totals(results: readonly EvalCaseResult[]): EvalTotals {
  const n = (v: EvalCaseResult['verdict']) => results.filter((r) => r.verdict === v).length;
  const costs = results.filter((r) => r.cost !== undefined);
  return {
    results: results.length,
    passed: n('pass'),
    failed: n('fail'),
    errors: n('error'),
    notRun: n('not-run'),
    flaky: results.filter((r) => r.flaky).length,
    attempts: results.reduce((t, r) => t + r.attempts.length, 0),
    inputTokens: results.reduce((t, r) => t + r.inputTokens, 0),
    outputTokens: results.reduce((t, r) => t + r.outputTokens, 0),
    ...(costs.length ? { cost: costs.reduce((t, r) => t + r.cost!, 0) } : {}),
  };
}
