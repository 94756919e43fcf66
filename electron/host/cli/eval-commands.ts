/**
 * `toolsmith eval`: the eval cases of bundles asked of one or more models (core evals/, through
 * 'evals.run': the run is saved in the data folder like one started in the app), each case
 * --repeat times. Progress on stderr; a summary or a report (text, JUnit, JSON) on stdout or in
 * a file. Exit codes as `toolsmith test`: 0 every case passed on every model, 1 a case failed,
 * could not be judged or was not run (or there were no cases), 2 bad usage.
 */
import { randomUUID } from 'node:crypto';
import { evalRunToJUnit } from '../../core/evals/junit';
import type { EvalModelTarget, EvalPrice, EvalProgress, EvalRun } from '../../../shared/model/evals';
import { EVAL_TIMEOUT_MAX_MS, MAX_EVAL_REPEAT } from '../../../shared/model/evals';
import type { ModelRef, Provider } from '../../../shared/model/provider';
import { bundlesToRun, finishRun, parseReport, untilInterrupted, type ReportChoice, type ReportOptions } from './case-report';
import { CliError, err, usageError, withCore, type CommonOptions } from './session';

export interface EvalOptions extends CommonOptions, ReportOptions {
  model?: string[];
  judge?: string;
  repeat?: string;
  passRate?: string;
  timeout?: string;
  price?: string[];
  passWithNoTests?: boolean;
}

interface Parsed extends ReportChoice {
  repeat: number;
  passRate?: number;
  timeoutMs?: number;
  prices: Map<string, EvalPrice>;
}

/** The options, checked before any data folder is opened. */
export function parseEvalOptions(o: EvalOptions): Parsed {
  const report = parseReport(o);
  if (!o.model?.length) throw usageError("give the model to ask: --model PROVIDER/MODEL (the provider's name as in Settings → Models), once per model");
  const int = (v: string | undefined, name: string, min: number, max: number) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw usageError(`${name} must be a whole number from ${min} to ${max}: got '${v}'`);
    return n;
  };
  const repeat = int(o.repeat, '--repeat', 1, MAX_EVAL_REPEAT) ?? 1;
  const timeoutMs = int(o.timeout, '--timeout (milliseconds)', 1000, EVAL_TIMEOUT_MAX_MS);
  let passRate: number | undefined;
  if (o.passRate !== undefined) {
    passRate = Number(o.passRate);
    if (o.passRate.trim() === '' || !Number.isFinite(passRate) || passRate < 0 || passRate > 1) throw usageError(`--pass-rate is the share of attempts a case must pass, from 0 to 1 (e.g. 0.8): got '${o.passRate}'`);
  }
  const prices = new Map<string, EvalPrice>();
  for (const p of o.price ?? []) {
    const m = /^(.+)=([0-9.]+),([0-9.]+)$/.exec(p);
    const input = m ? Number(m[2]) : NaN;
    const output = m ? Number(m[3]) : NaN;
    if (!m || !Number.isFinite(input) || !Number.isFinite(output)) throw usageError(`--price is PROVIDER/MODEL=INPUT,OUTPUT (per million tokens), e.g. openai/gpt-4o=2.5,10: got '${p}'`);
    prices.set(m[1]!, { inputPerMillion: input, outputPerMillion: output });
  }
  for (const name of prices.keys()) if (!o.model.includes(name)) throw usageError(`--price names '${name}', which no --model gives`);
  return { ...report, repeat, ...(passRate !== undefined ? { passRate } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}), prices };
}

/**
 * PROVIDER/MODEL: the provider by its name (or id) as saved in Settings → Models, the rest the
 * model (which may itself hold '/': openrouter/anthropic/claude-sonnet-4). The longest provider
 * name that fits wins.
 */
export function resolveModel(spec: string, providers: readonly Provider[]): ModelRef {
  const fits = providers
    .flatMap((p) => [p.id, p.name].filter((n) => spec.startsWith(`${n}/`) && spec.length > n.length + 1).map((n) => ({ p, n })))
    .sort((a, b) => b.n.length - a.n.length);
  if (fits.length === 0) {
    const names = providers.map((p) => p.name);
    throw new CliError(`no saved provider fits '${spec}': write PROVIDER/MODEL with a provider of Settings → Models (${names.length ? names.map((n) => `'${n}'`).join(', ') : 'none is saved'})`);
  }
  const best = fits.filter((f) => f.n.length === fits[0]!.n.length);
  const ids = [...new Set(best.map((f) => f.p.id))];
  if (ids.length > 1) throw new CliError(`${ids.length} providers are named '${best[0]!.n}': write the provider's id instead (${ids.join(', ')})`);
  return { providerId: best[0]!.p.id, model: spec.slice(best[0]!.n.length + 1) };
}

export async function evalCommand(names: readonly string[], o: EvalOptions): Promise<number> {
  const p = parseEvalOptions(o);
  return withCore(o, async (s) => {
    const providers = await s.call('providers.list', {});
    const models: EvalModelTarget[] = o.model!.map((spec) => ({ ...resolveModel(spec, providers), ...(p.prices.get(spec) ? { price: p.prices.get(spec)! } : {}) }));
    const judge = o.judge ? resolveModel(o.judge, providers) : undefined;
    const bundles = await bundlesToRun(s, names);
    const runId = randomUUID();
    const labels = new Map(providers.map((x) => [x.id, x.name]));
    const off = s.core.events.on('evals.progress', (e) => {
      if (e.runId === runId) progress(e.progress, labels);
    });
    let run: EvalRun;
    try {
      run = await untilInterrupted('Stopping: the attempts not started yet are reported as not run.', async (signal) => {
        const r = await s.core.router.call(
          'evals.run',
          { runId, bundleIds: bundles.map((b) => b.id), models, repeat: p.repeat, ...(p.passRate !== undefined ? { passRate: p.passRate } : {}), ...(judge ? { judge } : {}), ...(p.timeoutMs ? { timeoutMs: p.timeoutMs } : {}) },
          { transport: 'direct', signal },
        );
        if (!r.ok) throw new CliError(`${r.error.message} (${r.error.code})`);
        return r.value as EvalRun;
      });
    } finally {
      off();
    }
    return finishRun(p, {
      summary: evalSummary(run),
      junit: () => evalRunToJUnit(run),
      json: run,
      none: run.results.length === 0,
      failed: !run.results.every((r) => r.verdict === 'pass'),
      names,
      passWithNoTests: o.passWithNoTests,
      noCases: (where) => `No eval cases in ${where}: write some in the app, or save a chat turn as one`,
    });
  });
}

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);
const money = (n: number) => (n >= 0.01 ? n.toFixed(2) : String(Number(n.toPrecision(2))));

/** Progress lines on stderr, so stdout stays the summary or the report. */
function progress(e: EvalProgress, labels: ReadonlyMap<string, string>): void {
  const label = (key: string) => {
    const slash = key.indexOf('/');
    return `${labels.get(key.slice(0, slash)) ?? key.slice(0, slash)}/${key.slice(slash + 1)}`;
  };
  if (e.kind === 'plan') err(`${e.cases} eval case${e.cases === 1 ? '' : 's'} × ${e.models.length} model${e.models.length === 1 ? '' : 's'} × ${e.repeat}: ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}`);
  else if (e.kind === 'attempt') {
    const a = e.attempt;
    err(`  ${a.outcome === 'pass' ? 'pass' : a.outcome.toUpperCase()}  ${e.name} [${label(e.model)}] #${a.n}${a.durationMs ? ` (${ms(a.durationMs)})` : ''}${a.error ? `: ${a.error.message}` : ''}`);
  }
}

/** One line per case and model, what failed under it, and the totals. */
export function evalSummary(run: EvalRun): string {
  const lines: string[] = [];
  const slugOf = new Map(run.cases.map((c) => [`${c.bundleId}\u0000${c.case.id}`, c.bundleSlug]));
  const labelOf = new Map(run.models.map((m) => [m.key, m.label]));
  for (const r of run.results) {
    const mark = r.verdict === 'pass' ? 'PASS' : r.verdict === 'fail' ? 'FAIL' : r.verdict === 'error' ? 'ERROR' : 'NOT RUN';
    const judged = r.passed + r.failed;
    const figures = [`${r.passed}/${judged} passed${r.flaky ? ', flaky' : ''}`, ms(r.meanDurationMs), `${r.inputTokens}+${r.outputTokens} tokens`, ...(r.cost !== undefined ? [`cost ${money(r.cost)}`] : [])];
    lines.push(`${mark}  ${slugOf.get(`${r.bundleId}\u0000${r.caseId}`) ?? r.bundleId} › ${r.name} [${labelOf.get(r.model) ?? r.model}] (${figures.join(', ')})`);
    if (r.verdict === 'pass') continue;
    if (r.chosenInstead.length) lines.push(`        chose instead: ${r.chosenInstead.map((c) => `${c.tool} (${c.attempts}×)`).join(', ')}`);
    const seen = new Set<string>();
    for (const a of r.attempts) {
      const why = a.error ? [`${a.error.code}: ${a.error.message}`] : a.checks.filter((c) => !c.passed).map((c) => `${c.part}${c.check ? ` ${c.check.kind}` : ''}: ${c.message}`);
      for (const w of why) {
        if (seen.has(w)) continue;
        seen.add(w);
        lines.push(`        ${w}`);
      }
    }
  }
  const t = run.totals;
  lines.push(
    `${t.results} result${t.results === 1 ? '' : 's'} (${run.cases.length} case${run.cases.length === 1 ? '' : 's'} × ${run.models.length} model${run.models.length === 1 ? '' : 's'}, ${run.repeat}× each): ${t.passed} passed, ${t.failed} failed (${t.flaky} flaky), ${t.errors} errors, ${t.notRun} not run; ${t.inputTokens}+${t.outputTokens} tokens${t.cost !== undefined ? `, cost ${money(t.cost)}` : ''} (${(run.durationMs / 1000).toFixed(2)} s)`,
  );
  return lines.join('\n');
}
