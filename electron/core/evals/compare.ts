/**
 * Two saved runs side by side, case by case: this run against the last, model A against model
 * B (one model's results on each side, matched by case), or a tool's description v1 against v2
 * (a run before the edit and one after; `tools` shows the texts the model saw on each side).
 */
import { AppError } from '../../../shared/errors';
import type { EvalCaseResult, EvalComparedCase, EvalComparison, EvalRun, EvalRunRef, EvalToolChange } from '../../../shared/model/evals';
import { quote } from '../../../shared/model/validation';
import { jsonEqual } from '../testcases/run-tests';

type Side = { run: EvalRun; model?: string };

function resultsOf(s: Side): EvalCaseResult[] {
  if (!s.model) return s.run.results;
  if (!s.run.models.some((m) => m.key === s.model)) {
    throw new AppError('NOT_FOUND', `the run of ${s.run.startedAt} did not ask ${quote(s.model)}; it asked ${s.run.models.map((m) => m.key).join(', ')}`, { runId: s.run.id, model: s.model });
  }
  return s.run.results.filter((r) => r.model === s.model);
}

/** How results are matched: by case and model, or by case alone when the sides name models. */
function keyOf(r: EvalCaseResult, byCase: boolean): string {
  return byCase ? `${r.bundleId}\u0000${r.caseId}` : `${r.bundleId}\u0000${r.caseId}\u0000${r.model}`;
}

/** Whether two sides share a case and model (only `model`'s results, when named): what "the last run" must have. */
export function shareResults(base: EvalRun, head: EvalRun, model?: string): boolean {
  // A result of the earlier run that never ran (a run cancelled at once) is nothing to compare with.
  const keys = new Set(base.results.filter((r) => r.verdict !== 'not-run').map((r) => keyOf(r, false)));
  return head.results.some((r) => (!model || r.model === model) && keys.has(keyOf(r, false)));
}

/**
 * Case by case. A model named on one side only is the other side's model too (this run's
 * model X against the last run's X); sides that name none match results by case and model.
 */
export function compareRuns(baseSide: Side, headSide: Side): EvalComparison {
  const model = baseSide.model ?? headSide.model;
  const base: Side = model ? { ...baseSide, model: baseSide.model ?? model } : baseSide;
  const head: Side = model ? { ...headSide, model: headSide.model ?? model } : headSide;
  const byCase = !!model;
  const b = new Map(resultsOf(base).map((r) => [keyOf(r, byCase), r]));
  const h = new Map(resultsOf(head).map((r) => [keyOf(r, byCase), r]));
  const cases: EvalComparedCase[] = [];
  const counts = { fixed: 0, broke: 0, same: 0, better: 0, worse: 0, new: 0, gone: 0 };
  const rates = { base: { passed: 0, judged: 0 }, head: { passed: 0, judged: 0 } };
  for (const key of new Set([...h.keys(), ...b.keys()])) {
    const x = b.get(key);
    const y = h.get(key);
    const change = changeOf(x, y);
    counts[change]++;
    if (x && y) {
      rates.base.passed += x.passed;
      rates.base.judged += x.passed + x.failed;
      rates.head.passed += y.passed;
      rates.head.judged += y.passed + y.failed;
    }
    const any = (y ?? x)!;
    cases.push({
      caseId: any.caseId,
      bundleId: any.bundleId,
      name: any.name,
      ...(x ? { baseModel: x.model, base: side(x) } : {}),
      ...(y ? { headModel: y.model, head: side(y) } : {}),
      change,
    });
  }
  const ref = (s: Side): EvalRunRef & { startedAt: string } => ({ runId: s.run.id, ...(s.model ? { model: s.model } : {}), startedAt: s.run.startedAt });
  return {
    base: ref(base),
    head: ref(head),
    cases,
    passRate: { base: rates.base.judged ? rates.base.passed / rates.base.judged : null, head: rates.head.judged ? rates.head.passed / rates.head.judged : null },
    counts,
    tools: toolChanges(base.run, head.run),
  };
}

function side(r: EvalCaseResult): NonNullable<EvalComparedCase['base']> {
  return { passRate: r.passRate, verdict: r.verdict, flaky: r.flaky, meanDurationMs: r.meanDurationMs, inputTokens: r.inputTokens, outputTokens: r.outputTokens, ...(r.cost !== undefined ? { cost: r.cost } : {}) };
}

function changeOf(x: EvalCaseResult | undefined, y: EvalCaseResult | undefined): EvalComparedCase['change'] {
  if (!x) return 'new';
  if (!y) return 'gone';
  // A side that never ran tells nothing of better or worse.
  if (x.verdict === 'not-run' || y.verdict === 'not-run') return 'same';
  if (x.verdict !== 'pass' && y.verdict === 'pass') return 'fixed';
  if (x.verdict === 'pass' && y.verdict !== 'pass') return 'broke';
  const a = x.passRate ?? -1;
  const c = y.passRate ?? -1;
  return c > a ? 'better' : c < a ? 'worse' : 'same';
}

/** Each registry tool's text as the model first saw it in a run, by bundle/slug. */
function toolTexts(run: EvalRun): Map<string, { version: string; description: string; parameters: unknown }> {
  const out = new Map<string, { version: string; description: string; parameters: unknown }>();
  for (const t of Object.values(run.tools)) {
    if (!t.tool) continue;
    const key = `${t.tool.bundleSlug}/${t.tool.slug}`;
    if (!out.has(key)) out.set(key, { version: t.tool.version, description: t.description, parameters: t.parameters });
  }
  return out;
}

function toolChanges(base: EvalRun, head: EvalRun): EvalToolChange[] {
  const a = toolTexts(base);
  const b = toolTexts(head);
  const out: EvalToolChange[] = [];
  for (const [tool, x] of a) {
    const y = b.get(tool);
    if (!y) continue;
    const descriptionChanged = x.description !== y.description;
    const parametersChanged = !jsonEqual(x.parameters, y.parameters);
    if (descriptionChanged || parametersChanged) out.push({ tool, base: x, head: y, descriptionChanged, parametersChanged });
  }
  return out.sort((p, q) => p.tool.localeCompare(q.tool));
}
