/**
 * The suite's raw results read back, summed up per scenario, and set against the stored
 * baseline (baseline.json), so a run says what changed since the figures were last taken.
 *
 * The suite writes one folder per scenario, `<out>/<prefix><scenario>-<ISO time>/checks.json`
 * (`server-` is the prefix of server runs; client auth scenarios sit in an `auth/` folder). Its
 * log names the scenarios that a `--requirements` run does not score (extensions, pending).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export type RunKind = 'server' | 'client';

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  description?: string;
}

export interface ScenarioResult {
  name: string;
  /** Checks by status: SUCCESS, FAILURE, WARNING (others, e.g. INFO or SKIPPED, are not counted). */
  passed: number;
  failed: number;
  warnings: number;
  /** Whether the scenario counts towards conformance; false for extensions and pending ones. */
  scored: boolean;
  /** The first failed check, as `id: message`, cut short. */
  firstFailure?: string;
}

/** A scenario passes when none of its checks failed (warnings are shown, not counted as failures). */
export function scenarioPassed(s: Pick<ScenarioResult, 'failed'>): boolean {
  return s.failed === 0;
}

const STAMP = /-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;

/** `server-tools-list-2026-…Z` → `tools-list`; `auth/metadata-default-2026-…Z` → `auth/metadata-default`. */
export function scenarioName(relDir: string, kind: RunKind): string {
  const name = relDir.split(path.sep).join('/').replace(STAMP, '');
  return kind === 'server' && name.startsWith('server-') ? name.slice('server-'.length) : name;
}

const FIRST_FAILURE_CHARS = 160;

export function summarizeChecks(name: string, checks: readonly Check[], scored = true): ScenarioResult {
  const count = (status: string) => checks.filter((c) => c.status === status).length;
  const failure = checks.find((c) => c.status === 'FAILURE');
  const result: ScenarioResult = { name, passed: count('SUCCESS'), failed: count('FAILURE'), warnings: count('WARNING'), scored };
  if (failure) {
    const message = (failure.errorMessage ?? failure.description ?? '').replace(/\s+/g, ' ').trim();
    const text = message ? `${failure.id}: ${message}` : failure.id;
    result.firstFailure = text.length > FIRST_FAILURE_CHARS ? `${text.slice(0, FIRST_FAILURE_CHARS - 1)}…` : text;
  }
  return result;
}

/** The scenarios the suite's summary lists under "Not scored for <revision>", with their reason. */
export function unscoredFromLog(log: string): Map<string, string> {
  const out = new Map<string, string>();
  const at = log.search(/^Not scored for /m);
  if (at < 0) return out;
  for (const line of log.slice(at).split('\n').slice(1)) {
    const m = /^\s+[✓✗]\s+(\S+)\s+\(([^)]+)\)\s*$/.exec(line);
    if (!m) break;
    out.set(m[1]!, m[2]!);
  }
  return out;
}

/** The scenarios the suite could not run to the end ("Failed to run scenario X: …"), with the error's first line. */
export function runErrorsFromLog(log: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of log.matchAll(/^Failed to run scenario (\S+): (.*)$/gm)) out.set(m[1]!, m[2]!.trim());
  return out;
}

async function checkFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const sub = path.join(dir, e.name);
    if (STAMP.test(e.name)) found.push(sub);
    else found.push(...(await checkFiles(sub)));
  }
  return found;
}

/**
 * Every scenario the suite wrote under `outDir`, by name; a scenario run twice keeps its latest
 * result. A scenario the suite could not run (its folder has no checks.json) counts one failed
 * check, as the suite's own summary counts it.
 */
export async function readResults(outDir: string, kind: RunKind, log = ''): Promise<ScenarioResult[]> {
  const unscored = unscoredFromLog(log);
  const runErrors = runErrorsFromLog(log);
  const byName = new Map<string, ScenarioResult>();
  for (const dir of (await checkFiles(outDir)).sort()) {
    const name = scenarioName(path.relative(outDir, dir), kind);
    const text = await fs.readFile(path.join(dir, 'checks.json'), 'utf8').catch(() => undefined);
    const checks: Check[] = text === undefined ? [{ id: 'not-run', status: 'FAILURE', errorMessage: `the suite could not run it: ${runErrors.get(name) ?? 'no checks.json'}` }] : (JSON.parse(text) as Check[]);
    byName.set(name, summarizeChecks(name, checks, !unscored.has(name)));
  }
  return [...byName.values()];
}

export interface Totals {
  scenarios: number;
  scenariosPassed: number;
  scored: number;
  scoredPassed: number;
  checksPassed: number;
  checksFailed: number;
  warnings: number;
}

export function totals(results: readonly ScenarioResult[]): Totals {
  const scored = results.filter((r) => r.scored);
  return {
    scenarios: results.length,
    scenariosPassed: results.filter(scenarioPassed).length,
    scored: scored.length,
    scoredPassed: scored.filter(scenarioPassed).length,
    checksPassed: results.reduce((n, r) => n + r.passed, 0),
    checksFailed: results.reduce((n, r) => n + r.failed, 0),
    warnings: results.reduce((n, r) => n + r.warnings, 0),
  };
}

/** One run's figures as baseline.json keeps them. */
export interface BaselineRun {
  suite: string;
  commit: string;
  date: string;
  note?: string;
  scenarios: Record<string, { passed: number; failed: number; warnings: number; scored: boolean }>;
}

export interface Baseline {
  runs: Record<string, BaselineRun>;
}

export function toBaselineRun(results: readonly ScenarioResult[], meta: Omit<BaselineRun, 'scenarios'>): BaselineRun {
  const scenarios: BaselineRun['scenarios'] = {};
  for (const r of [...results].sort((a, b) => a.name.localeCompare(b.name))) {
    scenarios[r.name] = { passed: r.passed, failed: r.failed, warnings: r.warnings, scored: r.scored };
  }
  return { ...meta, scenarios };
}

/** baseline.json as written: one line per scenario, runs and scenarios sorted, so a change reads as a small diff. */
export function formatBaseline(b: Baseline): string {
  const runs = Object.keys(b.runs)
    .sort()
    .map((key) => {
      const run = b.runs[key]!;
      const head = Object.entries(run)
        .filter(([k]) => k !== 'scenarios')
        .map(([k, v]) => `      ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
      const scenarios = Object.keys(run.scenarios)
        .sort()
        .map((n) => `        ${JSON.stringify(n)}: ${JSON.stringify(run.scenarios[n])}`);
      return `    ${JSON.stringify(key)}: {\n${[...head, `      "scenarios": {\n${scenarios.join(',\n')}\n      }`].join(',\n')}\n    }`;
    });
  return `{\n  "runs": {\n${runs.join(',\n')}\n  }\n}\n`;
}

export interface Comparison {
  newlyPassing: string[];
  newlyFailing: string[];
  /** Same verdict, other check counts: `name: 3/1 → 4/0` (passed/failed). */
  countsChanged: string[];
  /** Run now, absent from the baseline. */
  added: string[];
  /** In the baseline, not run now (only reported for a run of the whole set). */
  missing: string[];
}

export function compare(base: BaselineRun, now: readonly ScenarioResult[], wholeSet: boolean): Comparison {
  const c: Comparison = { newlyPassing: [], newlyFailing: [], countsChanged: [], added: [], missing: [] };
  const seen = new Set<string>();
  for (const r of now) {
    seen.add(r.name);
    const b = base.scenarios[r.name];
    if (!b) {
      c.added.push(r.name);
      continue;
    }
    const was = scenarioPassed(b);
    const is = scenarioPassed(r);
    if (!was && is) c.newlyPassing.push(r.name);
    else if (was && !is) c.newlyFailing.push(r.name);
    else if (b.passed !== r.passed || b.failed !== r.failed) c.countsChanged.push(`${r.name}: ${b.passed}/${b.failed} → ${r.passed}/${r.failed}`);
  }
  if (wholeSet) c.missing = Object.keys(base.scenarios).filter((n) => !seen.has(n));
  return c;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** The per-scenario table: verdict, passed and failed checks, warnings, and the first failure's message. */
export function formatTable(results: readonly ScenarioResult[]): string {
  const rows = [...results].sort((a, b) => Number(b.scored) - Number(a.scored) || a.name.localeCompare(b.name));
  const width = Math.max(8, ...rows.map((r) => r.name.length + (r.scored ? 0 : 4)));
  const lines = [`${pad('', 2)}${pad('scenario', width)}  pass  fail  warn  first failure`];
  for (const r of rows) {
    const mark = scenarioPassed(r) ? '✓' : '✗';
    const name = r.scored ? r.name : `${r.name} (*)`;
    lines.push(`${mark} ${pad(name, width)}  ${pad(String(r.passed), 4)}  ${pad(String(r.failed), 4)}  ${pad(String(r.warnings), 4)}  ${r.firstFailure ?? ''}`.trimEnd());
  }
  if (rows.some((r) => !r.scored)) lines.push('(*) not scored for this revision (extension or pending scenario)');
  return lines.join('\n');
}

export function formatTotals(t: Totals): string {
  const scored = t.scored !== t.scenarios ? ` (scored: ${t.scoredPassed} of ${t.scored})` : '';
  const warn = t.warnings ? `, ${t.warnings} warnings` : '';
  return `Scenarios passed: ${t.scenariosPassed} of ${t.scenarios}${scored}. Checks: ${t.checksPassed} passed, ${t.checksFailed} failed${warn}.`;
}

export function formatComparison(c: Comparison, baseLabel: string): string {
  const lines = [`Against the baseline (${baseLabel}):`];
  const list = (title: string, names: string[]) => {
    if (names.length) lines.push(`  ${title} (${names.length}): ${names.join(', ')}`);
  };
  list('newly passing', c.newlyPassing);
  list('NEWLY FAILING', c.newlyFailing);
  list('check counts changed', c.countsChanged);
  list('not in the baseline', c.added);
  list('in the baseline, not run', c.missing);
  if (lines.length === 1) lines.push('  no change.');
  return lines.join('\n');
}
