/**
 * The report of an eval run as the Tools screen shows it, in pure functions (unit-tested):
 * the run followed from its progress events, the pass-rate table (a row per case, a column
 * per model), the arguments the model gave laid against what the case expects (for a diff),
 * and what the model saw (the tools each request carried).
 */
import type { EvalArgCheck, EvalAttempt, EvalCall, EvalCaseResult, EvalExpect, EvalProgress, EvalRun, EvalToolText } from '../../../../shared/model/evals';

// ---- a run followed from its progress ----------------------------------------------------------

export interface LiveEval {
  /** What the run will do; absent until told. */
  plan?: { cases: number; models: string[]; repeat: number; attempts: number };
  /** Attempts ended so far. */
  done: number;
  /** The attempt going on now. */
  current?: { caseId: string; bundleId: string; model: string; name: string; n: number };
  /** Case × model results so far, in the order they came. */
  results: EvalCaseResult[];
}

export const EMPTY_LIVE: LiveEval = { done: 0, results: [] };

const sameResult = (a: { caseId: string; bundleId: string; model: string }, b: { caseId: string; bundleId: string; model: string }) =>
  a.caseId === b.caseId && a.bundleId === b.bundleId && a.model === b.model;

/** The run after one progress event. */
export function applyEvalProgress(live: LiveEval, p: EvalProgress): LiveEval {
  switch (p.kind) {
    case 'plan':
      return { ...live, plan: { cases: p.cases, models: p.models, repeat: p.repeat, attempts: p.attempts } };
    case 'attempt-start':
      return { ...live, current: { caseId: p.caseId, bundleId: p.bundleId, model: p.model, name: p.name, n: p.n } };
    case 'attempt': {
      const { current: _ended, ...rest } = live;
      return { ...rest, done: live.done + 1 };
    }
    case 'result':
      return { ...live, results: [...live.results.filter((r) => !sameResult(r, p.result)), p.result] };
  }
}

/** Attempts done and in all (never fewer in all than done). */
export function liveCounts(live: LiveEval): { done: number; total: number | null } {
  if (!live.plan) return { done: live.done, total: null };
  return { done: live.done, total: Math.max(live.plan.attempts, live.done) };
}

// ---- the pass-rate table -------------------------------------------------------------------------

export interface TableModel {
  key: string;
  label: string;
}

export interface TableCase {
  caseId: string;
  bundleId: string;
  name: string;
}

export interface RateRow extends TableCase {
  /** One per model, in the models' order; absent where no result came (yet). */
  cells: (EvalCaseResult | undefined)[];
}

export interface ModelTotal {
  passed: number;
  /** Attempts judged (passed + failed). */
  judged: number;
  rate: number | null;
}

export interface RateTable {
  models: TableModel[];
  rows: RateRow[];
  /** Per model, over every case: attempts passed of those judged. */
  totals: ModelTotal[];
}

/**
 * A row per case (in the cases' order, then any case a result names that the list lacks), a
 * column per model; each cell the case's result on that model.
 */
export function rateTable(models: readonly TableModel[], cases: readonly TableCase[], results: readonly EvalCaseResult[]): RateTable {
  const rowCases: TableCase[] = [...cases];
  for (const r of results) if (!rowCases.some((c) => c.caseId === r.caseId && c.bundleId === r.bundleId)) rowCases.push({ caseId: r.caseId, bundleId: r.bundleId, name: r.name });
  const rows = rowCases.map((c) => ({
    ...c,
    cells: models.map((m) => results.find((r) => r.caseId === c.caseId && r.bundleId === c.bundleId && r.model === m.key)),
  }));
  const totals = models.map((m) => {
    let passed = 0;
    let judged = 0;
    for (const r of results) {
      if (r.model !== m.key) continue;
      passed += r.passed;
      judged += r.passed + r.failed;
    }
    return { passed, judged, rate: judged ? passed / judged : null };
  });
  return { models: [...models], rows, totals };
}

/** A share as a person reads it: 0.6667 → "67 %"; null (nothing judged) → "—". */
export function formatRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return '—';
  return `${Math.round(rate * 100)} %`;
}

/** A cost to two significant places, at least, never in exponent notation: 0.000412 → "0.00041", 1.5 → "1.50", 4e-7 → "0.00000040". */
export function formatCost(cost: number): string {
  if (cost === 0) return '0';
  if (cost >= 1) return cost.toFixed(2);
  // Two significant digits: as many decimals as the first digit's place needs, plus one.
  const decimals = Math.min(20, Math.max(2, 1 - Math.floor(Math.log10(cost))));
  return cost.toFixed(decimals);
}

/** The cell to show first: the first result that failed or errored, else the first there is. */
export function firstToShow(table: RateTable): { caseId: string; bundleId: string; model: string } | undefined {
  let first: EvalCaseResult | undefined;
  for (const row of table.rows) {
    for (const cell of row.cells) {
      if (!cell) continue;
      first ??= cell;
      if (cell.verdict === 'fail' || cell.verdict === 'error') return { caseId: cell.caseId, bundleId: cell.bundleId, model: cell.model };
    }
  }
  return first && { caseId: first.caseId, bundleId: first.bundleId, model: first.model };
}

// ---- arguments against what the case expects ----------------------------------------------------

/** A case's tool ref as the report names it: `slug` of the case's own bundle becomes bundle/slug. */
export function refLabel(ref: string, bundleSlug: string): string {
  return ref.includes('/') ? ref : `${bundleSlug}/${ref}`;
}

/** A call as a choice of tool: bundle/slug (its version left out), or the name the model gave. */
export function callLabel(c: Pick<EvalCall, 'tool' | 'name'>): string {
  return c.tool ? c.tool.replace(/@[^@/]*$/, '') : c.name;
}

type Segment = string | number;

/**
 * The steps of a simple JSONPath: `$`, then `.key`, `['key']`, `["key"]` or `[n]`; null for
 * anything more (wildcards, filters, slices, `..`), which is not laid over the arguments.
 */
export function simplePath(path: string): Segment[] | null {
  const p = path.trim();
  if (!p.startsWith('$')) return null;
  const out: Segment[] = [];
  let i = 1;
  while (i < p.length) {
    const rest = p.slice(i);
    let m = /^\.([A-Za-z_$][\w$-]*)/.exec(rest);
    if (m) {
      out.push(m[1]!);
      i += m[0].length;
      continue;
    }
    m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(rest) ?? /^\[\s*"((?:[^"\\]|\\.)*)"\s*\]/.exec(rest);
    if (m) {
      out.push(m[1]!.replace(/\\(.)/g, '$1'));
      i += m[0].length;
      continue;
    }
    m = /^\[\s*(\d+)\s*\]/.exec(rest);
    if (m) {
      out.push(Number(m[1]));
      i += m[0].length;
      continue;
    }
    return null;
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` with `to` put at `path` (copies on the way; an object or array made where nothing was). */
function putAt(value: unknown, path: readonly Segment[], to: unknown): unknown {
  if (path.length === 0) return structuredClone(to);
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const arr = Array.isArray(value) ? [...(value as unknown[])] : [];
    while (arr.length < head) arr.push(null);
    arr[head] = putAt(arr[head], rest, to);
    return arr;
  }
  const obj = isObject(value) ? { ...value } : {};
  obj[head!] = putAt(obj[head!], rest, to);
  return obj;
}

export interface ExpectedArgs {
  /** What the model gave, with every value the case checks put where it should be. */
  expected: unknown;
  /** The checks that cannot be drawn into it (text contains, a schema, a JSONPath beyond the simple ones). */
  notDrawn: EvalArgCheck[];
}

/**
 * The arguments the case expects, laid over the ones the model gave: each JSONPath-equals
 * check's value put at its path. Diffed against what the model gave, only what the checks
 * disagree with shows, and a value the model left out shows as missing.
 */
export function expectedArgs(actual: unknown, checks: readonly EvalArgCheck[]): ExpectedArgs {
  let expected: unknown = isObject(actual) ? structuredClone(actual) : {};
  const notDrawn: EvalArgCheck[] = [];
  for (const c of checks) {
    const path = c.kind === 'jsonPathEquals' ? simplePath(c.path) : null;
    if (c.kind !== 'jsonPathEquals' || path === null) {
      notDrawn.push(c);
      continue;
    }
    expected = putAt(expected, path, c.value);
  }
  return { expected, notDrawn };
}

export interface ArgsComparison {
  /** The expected tool, bundle/slug. */
  tool: string;
  /** The tool whose call is shown: the expected one, or the one called instead. */
  calledAs?: string;
  /** The call shown (none: the model called no tool at all). */
  call?: EvalCall;
  expected: unknown;
  notDrawn: EvalArgCheck[];
  /** Every check of the arguments passed on that call. */
  passed: boolean;
}

/**
 * For each expected tool with argument checks, the call to diff: the first of its calls that
 * passed every check, else its last (as the checks chose); when it was not called, the first
 * other tool called in its place.
 */
export function argsComparisons(expect: EvalExpect, attempt: Pick<EvalAttempt, 'calls' | 'checks'>, bundleSlug: string): ArgsComparison[] {
  if (expect.kind !== 'tools') return [];
  const choices = attempt.calls.filter((c) => c.kind === 'tool' || c.kind === 'unknown');
  const out: ArgsComparison[] = [];
  for (const want of expect.tools) {
    if (want.args.length === 0) continue;
    const tool = refLabel(want.tool, bundleSlug);
    const mine = choices.filter((c) => callLabel(c) === tool);
    const failedChecks = attempt.checks.filter((c) => c.part === 'args' && c.tool === tool && !c.passed);
    let call: EvalCall | undefined;
    if (mine.length) {
      call = failedChecks.length === 0 ? mine.find((c) => checksPassOn(want.args, c)) ?? mine[0] : mine.at(-1);
    } else {
      call = choices.find((c) => !expect.tools.some((t) => refLabel(t.tool, bundleSlug) === callLabel(c)));
    }
    const overlay = expectedArgs(call?.args, want.args);
    out.push({
      tool,
      ...(call ? { call, calledAs: callLabel(call) } : {}),
      expected: overlay.expected,
      notDrawn: overlay.notDrawn,
      passed: mine.length > 0 && failedChecks.length === 0,
    });
  }
  return out;
}

/** Whether the JSONPath-equals checks this side can read hold on the call (the others are left to the core's verdict). */
function checksPassOn(checks: readonly EvalArgCheck[], call: EvalCall): boolean {
  const { expected } = expectedArgs(call.args, checks);
  return JSON.stringify(expected) === JSON.stringify(call.args);
}

// ---- what the model saw --------------------------------------------------------------------------

export interface SawTool extends EvalToolText {
  key: string;
  /** bundle/slug, for a registry tool. */
  label?: string;
  expected: boolean;
  called: boolean;
}

export interface SawStep {
  /** The first and last step (from 1) that carried these tools: steps in a row that carried the same are one. */
  n: number;
  to: number;
  tools: SawTool[];
}

export interface ModelSaw {
  steps: SawStep[];
  /** The step to show open (its `n`): the last that carried a registry tool, else the last. */
  open: number;
  /** Expected tools (bundle/slug) no request carried. */
  notOffered: string[];
}

/** The tools each request of an attempt carried, marked expected and called; the expected tools never offered. */
export function modelSaw(run: Pick<EvalRun, 'tools' | 'toolSets'>, attempt: Pick<EvalAttempt, 'steps' | 'calls'>, expectedTools: readonly string[]): ModelSaw {
  const setOf = (step: EvalAttempt['steps'][number]): readonly string[] => run.toolSets[step.toolSet] ?? [];
  const called = new Set(attempt.calls.filter((c) => c.kind === 'tool' || c.kind === 'unknown').map(callLabel));
  const offered = new Set<string>();
  const steps: SawStep[] = [];
  attempt.steps.forEach((s, i) => {
    const prev = steps.at(-1);
    if (prev && prev.to === i && sameKeys(setOf(attempt.steps[i - 1]!), setOf(s))) {
      prev.to = i + 1;
      return;
    }
    const tools: SawTool[] = setOf(s).flatMap((key) => {
      const t = run.tools[key];
      if (!t) return [];
      const label = t.tool ? `${t.tool.bundleSlug}/${t.tool.slug}` : undefined;
      if (label) offered.add(label);
      return [{ ...t, key, ...(label ? { label } : {}), expected: label !== undefined && expectedTools.includes(label), called: label !== undefined ? called.has(label) : called.has(t.name) }];
    });
    // The tools the case is about first: expected, then called, then the registry's, then tool_search and the model-only ones.
    const rank = (t: SawTool) => (t.expected ? 0 : t.called ? 1 : t.label ? 2 : 3);
    steps.push({ n: i + 1, to: i + 1, tools: tools.map((t, k) => [t, k] as const).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([t]) => t) });
  });
  let open = steps.at(-1)?.n ?? 0;
  for (const s of steps) if (s.tools.some((t) => t.label)) open = s.n;
  return { steps, open, notOffered: expectedTools.filter((t) => !offered.has(t)) };
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}
