/**
 * The test report of a suite ('testcases.runSuite') as the Tools screen shows it: built up
 * from the suite's progress events while it runs (the plan, each tool, each case started and
 * done), then replaced by the suite's own result when it ends. Pure, so it is unit-tested.
 */
import type { SuiteProgress, SuiteResult, TestCaseResult } from '../../../../shared/model/testcase';

export interface ReportTool {
  bundleId: string;
  bundleSlug: string;
  slug: string;
  /** The version the cases ran against; absent when skipped. */
  version?: string;
  /** Why the tool's cases were not run. */
  skipped?: string;
  /** How many cases the tool has. */
  cases: number;
  /** The cases done so far (all of them once the tool is done), in the saved order. */
  results: TestCaseResult[];
  /** The case running now. */
  running?: string;
  durationMs?: number;
}

export interface SuiteReport {
  /** How many cases the suite will run; null until the plan is known. */
  total: number | null;
  tools: ReportTool[];
  /** The suite's result came: the report is complete. */
  finished: boolean;
  durationMs?: number;
}

export const EMPTY_REPORT: SuiteReport = { total: null, tools: [], finished: false };

export interface ReportCounts {
  /** Cases run or skipped so far. */
  done: number;
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

const sameTool = (t: ReportTool, p: { bundleId: string; slug: string }) => t.bundleId === p.bundleId && t.slug === p.slug;

/** The report after one progress event; an event for a tool the report does not know yet adds it. */
export function applyProgress(report: SuiteReport, p: SuiteProgress): SuiteReport {
  if (report.finished) return report;
  switch (p.kind) {
    case 'plan':
      return { ...report, total: p.cases };
    case 'tool': {
      const tool: ReportTool = {
        bundleId: p.bundleId,
        bundleSlug: p.bundleSlug,
        slug: p.slug,
        cases: p.cases,
        results: [],
        ...(p.version !== undefined ? { version: p.version } : {}),
        ...(p.skipped !== undefined ? { skipped: p.skipped } : {}),
      };
      return { ...report, tools: [...report.tools.filter((t) => !sameTool(t, p)), tool] };
    }
    case 'case-start':
      return updateTool(report, p, (t) => ({ ...t, running: p.name }));
    case 'case':
      return updateTool(report, p, ({ running: _done, ...t }) => ({ ...t, results: [...t.results, p.result] }));
  }
}

function updateTool(report: SuiteReport, ref: { bundleId: string; bundleSlug: string; slug: string }, change: (t: ReportTool) => ReportTool): SuiteReport {
  const known = report.tools.some((t) => sameTool(t, ref));
  const tools = known ? report.tools : [...report.tools, { bundleId: ref.bundleId, bundleSlug: ref.bundleSlug, slug: ref.slug, cases: 0, results: [] }];
  return { ...report, tools: tools.map((t) => (sameTool(t, ref) ? change(t) : t)) };
}

/** The complete report from the suite's result. */
export function fromResult(suite: SuiteResult): SuiteReport {
  return {
    total: suite.passed + suite.failed + suite.skipped,
    finished: true,
    durationMs: suite.durationMs,
    tools: suite.tools.map((t) => ({
      bundleId: t.bundleId,
      bundleSlug: t.bundleSlug,
      slug: t.slug,
      cases: t.results.length,
      results: t.results,
      durationMs: t.durationMs,
      ...(t.version !== undefined ? { version: t.version } : {}),
      ...(t.skipped !== undefined ? { skipped: t.skipped } : {}),
    })),
  };
}

/** Passed, failed and skipped cases so far; a skipped tool's cases count as skipped, not failed. */
export function countReport(report: SuiteReport): ReportCounts {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const t of report.tools) {
    if (t.skipped !== undefined) {
      skipped += t.cases;
      continue;
    }
    for (const r of t.results) {
      if (r.passed) passed++;
      else failed++;
    }
  }
  const done = passed + failed + skipped;
  return { done, total: Math.max(report.total ?? done, done), passed, failed, skipped };
}

/** A tool as the report names it: bundle/slug@version. */
export function toolName(t: Pick<ReportTool, 'bundleSlug' | 'slug' | 'version'>): string {
  return `${t.bundleSlug}/${t.slug}${t.version !== undefined ? `@${t.version}` : ''}`;
}

/** The tools to show: all, or only those with a failed case (a running tool stays, so progress is seen). */
export function visibleTools(report: SuiteReport, onlyFailed: boolean): ReportTool[] {
  if (!onlyFailed) return report.tools;
  return report.tools.filter((t) => t.skipped === undefined && (t.running !== undefined || t.results.some((r) => !r.passed)));
}
