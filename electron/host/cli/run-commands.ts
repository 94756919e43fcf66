/**
 * `toolsmith invoke` (one call, its result as JSON on stdout) and `toolsmith test` (saved test
 * cases as a suite: core testcases/run-suite.ts; progress on stderr, a summary or a report on
 * stdout or in a file).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../core/lib/atomic-write';
import { suiteName, suiteToJUnit } from '../../core/testcases/junit';
import type { SuiteProgress, SuiteResult } from '../../core/testcases/run-suite';
import type { Bundle } from '../../../shared/model/bundle';
import { readStdin } from './import-commands';
import { CliError, EXIT, err, out, outJson, toolRef, usageError, withCore, type CommonOptions } from './session';

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
      const t = await s.core.router.call('tools.trustScript', { bundleId: tool.bundleId, slug: tool.slug, version: tool.version }, { transport: 'direct' });
      if (!t.ok) throw new CliError(`could not trust '${ref}': ${t.error.code}: ${t.error.message}`);
    }
    const ctrl = new AbortController();
    const onSignal = () => ctrl.abort();
    process.once('SIGINT', onSignal);
    try {
      const r = await s.core.router.call(
        'tools.invoke',
        { bundleId: tool.bundleId, slug: tool.slug, version: tool.version, args, ...(timeoutMs ? { timeoutMs } : {}), source: 'user' },
        { transport: 'direct', signal: ctrl.signal },
      );
      if (!r.ok) {
        const where = toolRef(s.core.registry.store.bundleById(tool.bundleId)?.slug ?? tool.bundleId, tool);
        if (o.meta) outJson({ ok: false, error: r.error });
        throw new CliError(`${where} failed: ${r.error.code}: ${r.error.message}`);
      }
      outJson(o.meta ? { ok: true, ...(r.value as object) } : (r.value as { value: unknown }).value);
    } finally {
      process.off('SIGINT', onSignal);
    }
  });
}

export interface TestOptions extends CommonOptions {
  reporter?: string;
  out?: string;
  passWithNoTests?: boolean;
}

const REPORTERS = ['text', 'junit', 'json'] as const;

export async function test(names: readonly string[], o: TestOptions): Promise<number> {
  const reporter = o.json ? 'json' : (o.reporter ?? 'text');
  if (!(REPORTERS as readonly string[]).includes(reporter)) throw usageError(`--reporter must be one of ${REPORTERS.join(', ')}: got '${reporter}'`);
  if (o.json && o.reporter && o.reporter !== 'json') throw usageError('--json is --reporter json: give one of them');
  const target = o.out ? path.resolve(o.out) : undefined;
  return withCore(o, async (s) => {
    let bundles: Bundle[];
    if (names.length) {
      bundles = [];
      for (const n of names) {
        const b = await s.bundle(n);
        if (!bundles.some((x) => x.id === b.id)) bundles.push(b);
      }
    } else {
      // Every bundle that is switched on; a bundle that is off is tested when named.
      bundles = (await s.allBundles()).filter((b) => b.isEnabled && !b.softDeletedAt);
    }
    const ctrl = new AbortController();
    const onSignal = () => {
      err('Stopping: the cases not started yet are reported as not run.');
      ctrl.abort();
    };
    process.once('SIGINT', onSignal);
    let suite: SuiteResult;
    try {
      suite = await s.core.runTestSuite({ bundles, signal: ctrl.signal, onProgress: progress });
    } finally {
      process.off('SIGINT', onSignal);
    }
    const total = suite.passed + suite.failed + suite.skipped;
    const text = summary(suite);
    if (reporter === 'text') {
      if (target) await write(target, text + '\n');
      out(text);
    } else {
      const body = reporter === 'junit' ? suiteToJUnit(suite) : JSON.stringify(suite, null, 2) + '\n';
      if (target) {
        await write(target, body);
        out(text);
        out(`Wrote the ${reporter === 'junit' ? 'JUnit' : 'JSON'} report to ${target}.`);
      } else {
        // The report is stdout; the summary goes with the progress.
        process.stdout.write(body);
        err(text);
      }
    }
    if (total === 0) {
      const where = names.length ? `bundle${names.length === 1 ? '' : 's'} ${names.map((n) => `'${n}'`).join(', ')}` : 'the bundles switched on';
      if (o.passWithNoTests) return EXIT.ok;
      err(`No saved test cases in ${where}: save some in Tools → Test cases (--pass-with-no-tests makes this a pass).`);
      return EXIT.failed;
    }
    return suite.failed > 0 ? EXIT.failed : EXIT.ok;
  });
}

async function write(target: string, body: string): Promise<void> {
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await writeFileAtomic(target, body);
  } catch (e) {
    throw new CliError(`could not write ${target}: ${(e as Error).message}`);
  }
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
