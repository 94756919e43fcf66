/**
 * `toolsmith invoke` (one call, its result as JSON on stdout) and `toolsmith test` (saved test
 * cases as a suite: core testcases/run-suite.ts; progress on stderr, a summary or a report on
 * stdout or in a file).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { suiteName, suiteToJUnit } from '../../core/testcases/junit';
import type { SuiteProgress, SuiteResult } from '../../core/testcases/run-suite';
import { bundlesToRun, finishRun, parseReport, untilInterrupted, type ReportOptions } from './case-report';
import { readStdin } from './import-commands';
import { CliError, err, outJson, toolRef, usageError, withCore, type CommonOptions } from './session';

/** The most an --args value may hold (the contract refuses inputs over 8 MiB). */
const MAX_ARGS_BYTES = 8 * 1024 * 1024;

export interface InvokeOptions extends CommonOptions {
  args?: string;
  timeout?: string;
  meta?: boolean;
  /** Trust the tool's script before the call (a script tool not written in this app). */
  trust?: boolean;
}

/** --args: JSON text, `@file` (its JSON), or `-` (JSON on stdin); absent: no arguments ({}). */
export async function readArgs(given: string | undefined): Promise<unknown> {
  if (given === undefined) return {};
  let text: string;
  let from: string;
  if (given === '-') {
    text = await readStdin(MAX_ARGS_BYTES);
    from = 'standard input';
  } else if (given.startsWith('@')) {
    const file = path.resolve(given.slice(1));
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      throw usageError(`--args ${given}: cannot read ${file}: ${(e as Error).message}`);
    }
    from = file;
  } else {
    text = given;
    from = '--args';
  }
  if (text.trim() === '') throw usageError(`the arguments in ${from} are empty: give a JSON object, e.g. --args '{"text": "hello"}'`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw usageError(`the arguments in ${from} are not JSON (${(e as Error).message}): give a JSON object, e.g. --args '{"text": "hello"}'`);
  }
}

export async function invoke(ref: string, o: InvokeOptions): Promise<void> {
  const timeoutMs = o.timeout === undefined ? undefined : Number(o.timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 30 * 60_000)) {
    throw usageError(`--timeout is in milliseconds, from 1 to 1800000: got '${o.timeout}'`);
  }
  const args = await readArgs(o.args);
  await withCore(o, async (s) => {
    const tool = await s.tool(ref);
    if (o.trust) {
      if (tool.type !== 'script') throw usageError(`--trust is for script tools: '${ref}' is a tool of type '${tool.type}'`);
      // What is trusted is the .js as it is on disk now, and only when it holds what the tool records.
      const at = { bundleId: tool.bundleId, slug: tool.slug, version: tool.version };
      const src = await s.core.call('tools.scriptSource', at);
      if (!src.ok) throw new CliError(`could not trust '${ref}': ${src.error.code}: ${src.error.message}`);
      if (src.value.problem) throw new CliError(`could not trust '${ref}': ${src.value.problem}`);
      const t = await s.core.router.call('tools.trustScript', { ...at, sha256: src.value.sha256 }, { transport: 'direct' });
      if (!t.ok) throw new CliError(`could not trust '${ref}': ${t.error.code}: ${t.error.message}`);
      err(`trusted the script of '${ref}' (SHA-256 ${src.value.sha256})`);
    }
    await untilInterrupted(undefined, async (signal) => {
      const r = await s.core.router.call(
        'tools.invoke',
        { bundleId: tool.bundleId, slug: tool.slug, version: tool.version, args, ...(timeoutMs ? { timeoutMs } : {}), source: 'user' },
        { transport: 'direct', signal },
      );
      if (!r.ok) {
        const where = toolRef(s.core.registry.store.bundleById(tool.bundleId)?.slug ?? tool.bundleId, tool);
        if (o.meta) outJson({ ok: false, error: r.error });
        throw new CliError(`${where} failed: ${r.error.code}: ${r.error.message}`);
      }
      outJson(o.meta ? { ok: true, ...(r.value as object) } : (r.value as { value: unknown }).value);
    });
  });
}

export interface TestOptions extends CommonOptions, ReportOptions {
  passWithNoTests?: boolean;
}

export async function test(names: readonly string[], o: TestOptions): Promise<number> {
  const report = parseReport(o);
  return withCore(o, async (s) => {
    const bundles = await bundlesToRun(s, names);
    const suite = await untilInterrupted('Stopping: the cases not started yet are reported as not run.', (signal) => s.core.runTestSuite({ bundles, signal, onProgress: progress }));
    return finishRun(report, {
      summary: summary(suite),
      junit: () => suiteToJUnit(suite),
      json: suite,
      none: suite.passed + suite.failed + suite.skipped === 0,
      failed: suite.failed > 0,
      names,
      passWithNoTests: o.passWithNoTests,
      noCases: (where) => `No saved test cases in ${where}: save some in Tools → Test cases`,
    });
  });
}

const ms = (n: number) => `${Math.round(n)} ms`;

/** Progress lines on stderr, so stdout stays the summary or the report. */
function progress(p: SuiteProgress): void {
  if (p.kind === 'tool') {
    err(p.skipped ? `${p.bundleSlug}/${p.slug}: ${p.cases} case${p.cases === 1 ? '' : 's'} skipped (${p.skipped})` : `${p.bundleSlug}/${p.slug}@${p.version}: ${p.cases} case${p.cases === 1 ? '' : 's'}`);
  } else if (p.kind === 'case') {
    err(`  ${p.result.passed ? 'pass' : 'FAIL'}  ${p.result.name} (${ms(p.result.durationMs)})`);
  }
}

/** One line per case, the failed assertions under a failed case, and the totals. */
export function summary(suite: SuiteResult): string {
  const lines: string[] = [];
  for (const t of suite.tools) {
    for (const r of t.results) {
      const mark = t.skipped ? 'SKIP' : r.passed ? 'PASS' : 'FAIL';
      lines.push(`${mark}  ${suiteName(t)} › ${r.name}${t.skipped ? '' : ` (${ms(r.durationMs)})`}`);
      if (t.skipped) continue;
      for (const a of r.assertions) if (!a.passed) lines.push(`        ${a.assertion.kind}: ${a.message}`);
    }
  }
  const total = suite.passed + suite.failed + suite.skipped;
  lines.push(
    `${total} case${total === 1 ? '' : 's'} in ${suite.tools.length} tool${suite.tools.length === 1 ? '' : 's'}: ${suite.passed} passed, ${suite.failed} failed, ${suite.skipped} skipped (${(suite.durationMs / 1000).toFixed(2)} s)`,
  );
  return lines.join('\n');
}
