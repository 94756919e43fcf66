/**
 * Saved test cases run as a suite over bundles: every tool slug of each bundle that has saved
 * cases, against that slug's newest saved version (the newest switched-on one when there is
 * one), one case after another through the dispatcher, as 'run all' does for one tool.
 * `toolsmith test` prints and reports it (JUnit: junit.ts); the Tools screen can run the same.
 *
 * A slug whose cases have no saved version (a draft never saved, or a deleted tool) is
 * reported as skipped, not failed. A cancelled suite reports the cases it did not reach as
 * not run (failed), like runTestCases.
 *
 * Progress: first the plan (how many tools and cases), then each tool as it starts (or is
 * skipped), each case as it starts and as it is done.
 */
import { compareVersions } from '../../../shared/versions';
import { isBundleUsable, type Bundle } from '../../../shared/model/bundle';
import type { SuiteProgress, SuiteResult, SuiteToolResult, TestCase, TestCaseResult } from '../../../shared/model/testcase';
import { isToolUsable, type ToolView } from '../../../shared/model/tool';
import type { InvokeOutcome } from '../invoke/dispatcher';
import type { ToolStore } from '../bundles/tool-store';
import { runTestCases } from './run-tests';
import type { TestCaseStore } from './test-case-store';

export type { SuiteProgress, SuiteResult, SuiteToolResult };

export interface SuiteDeps {
  cases: Pick<TestCaseStore, 'listBundle'>;
  tools: Pick<ToolStore, 'toolsOf'>;
  invoke: (req: { bundleId: string; slug: string; version: string; args: unknown; signal?: AbortSignal }) => Promise<InvokeOutcome>;
  now?: () => Date;
}

export interface SuiteOptions {
  bundles: readonly Bundle[];
  signal?: AbortSignal;
  onProgress?: (p: SuiteProgress) => void;
}

/** Newest first: versions in SemVer's order (shared/versions.ts: "10" after "9", a pre-release before its release), then by modification. */
export function newerFirst(a: ToolView, b: ToolView): number {
  return compareVersions(b.version, a.version) || b.modifiedAt.localeCompare(a.modifiedAt);
}

/** The version a slug's cases run against: the newest switched-on version, else the newest. */
export function versionToRun(tools: readonly ToolView[], slug: string): ToolView | undefined {
  const versions = tools.filter((t) => t.slug.normalize('NFC') === slug.normalize('NFC')).sort(newerFirst);
  return versions.find((t) => t.isEnabled) ?? versions[0];
}

export async function runSuite(deps: SuiteDeps, options: SuiteOptions): Promise<SuiteResult> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const t0 = performance.now();
  // What will run, first: the progress can say how far along it is.
  const plan: { bundle: Bundle; versions: ToolView[]; saved: { slug: string; cases: TestCase[] }[] }[] = [];
  for (const bundle of options.bundles) plan.push({ bundle, versions: deps.tools.toolsOf(bundle.id), saved: await deps.cases.listBundle(bundle.id) });
  const planned = plan.flatMap((p) => p.saved);
  options.onProgress?.({ kind: 'plan', tools: planned.length, cases: planned.reduce((n, s) => n + s.cases.length, 0) });
  const tools: SuiteToolResult[] = [];
  for (const { bundle, versions, saved } of plan) {
    for (const { slug, cases } of saved) {
      const tool = versionToRun(versions, slug);
      const base = { bundleId: bundle.id, bundleSlug: bundle.slug, slug };
      // A call of a switched-off tool (or bundle) is refused: its cases are skipped, saying so.
      const off = !tool ? undefined : !isToolUsable(tool, bundle) ? (isBundleUsable(bundle) ? `'${bundle.slug}/${slug}' is switched off: switch it on to test it` : `bundle '${bundle.slug}' is switched off: switch it on to test it (toolsmith bundles enable ${bundle.slug})`) : undefined;
      if (!tool || off) {
        const skipped = off ?? `'${bundle.slug}' has no saved version of '${slug}'`;
        options.onProgress?.({ kind: 'tool', ...base, cases: cases.length, skipped });
        tools.push({ ...base, skipped, results: cases.map(skippedResult), passed: 0, failed: 0, durationMs: 0 });
        continue;
      }
      options.onProgress?.({ kind: 'tool', ...base, version: tool.version, cases: cases.length });
      const started = performance.now();
      const summary = await runTestCases(
        cases,
        (args) => deps.invoke({ bundleId: bundle.id, slug: tool.slug, version: tool.version, args, signal: options.signal }),
        { outputSchema: tool.outputSchema },
        {
          signal: options.signal,
          onStart: (tc) => options.onProgress?.({ kind: 'case-start', ...base, name: tc.name }),
          onResult: (result) => options.onProgress?.({ kind: 'case', ...base, result }),
        },
      );
      tools.push({ ...base, version: tool.version, results: summary.results, passed: summary.passed, failed: summary.failed, durationMs: performance.now() - started });
    }
  }
  const sum = (f: (t: SuiteToolResult) => number) => tools.reduce((n, t) => n + f(t), 0);
  return {
    startedAt,
    durationMs: performance.now() - t0,
    passed: sum((t) => t.passed),
    failed: sum((t) => t.failed),
    skipped: sum((t) => (t.skipped ? t.results.length : 0)),
    tools,
  };
}

function skippedResult(tc: TestCase): TestCaseResult {
  return { testCaseId: tc.id, name: tc.name, passed: false, durationMs: 0, assertions: [] };
}
