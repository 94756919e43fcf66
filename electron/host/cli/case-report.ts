/**
 * What `toolsmith test` (run-commands.ts) and `toolsmith eval` (eval-commands.ts) share: the
 * bundles they run (those named, or every one switched on), Ctrl-C as a stop, and the end of a
 * run: a summary or a report (text, JUnit, JSON) on stdout or in a file, and the exit code (0
 * every case passed, 1 a case did not or there was none, 2 bad usage).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../core/lib/atomic-write';
import type { Bundle } from '../../../shared/model/bundle';
import { CliError, EXIT, err, out, usageError, type Session } from './session';

export const REPORTERS = ['text', 'junit', 'json'] as const;
export type Reporter = (typeof REPORTERS)[number];

export interface ReportOptions {
  json?: boolean;
  reporter?: string;
  out?: string;
}

export interface ReportChoice {
  reporter: Reporter;
  /** The file the report goes to (--out, made absolute); absent: stdout. */
  target?: string;
}

/** --reporter (or --json) and --out, checked before any data folder is opened. */
export function parseReport(o: ReportOptions): ReportChoice {
  const reporter = o.json ? 'json' : (o.reporter ?? 'text');
  if (!(REPORTERS as readonly string[]).includes(reporter)) throw usageError(`--reporter must be one of ${REPORTERS.join(', ')}: got '${reporter}'`);
  if (o.json && o.reporter && o.reporter !== 'json') throw usageError('--json is --reporter json: give one of them');
  return { reporter: reporter as Reporter, ...(o.out ? { target: path.resolve(o.out) } : {}) };
}

/** The bundles named, in the order given, each once; none named: every bundle switched on (one that is off runs when named). */
export async function bundlesToRun(s: Pick<Session, 'bundle' | 'allBundles'>, names: readonly string[]): Promise<Bundle[]> {
  if (!names.length) return (await s.allBundles()).filter((b) => b.isEnabled && !b.softDeletedAt);
  const found: Bundle[] = [];
  for (const n of names) {
    const b = await s.bundle(n);
    if (!found.some((x) => x.id === b.id)) found.push(b);
  }
  return found;
}

/** Runs `fn` with a signal that Ctrl-C aborts; `stopping`, when given, is said on stderr when it does. */
export async function untilInterrupted<T>(stopping: string | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctrl = new AbortController();
  const onSignal = () => {
    if (stopping) err(stopping);
    ctrl.abort();
  };
  process.once('SIGINT', onSignal);
  try {
    return await fn(ctrl.signal);
  } finally {
    process.off('SIGINT', onSignal);
  }
}

export interface RunEnd {
  summary: string;
  /** The run as JUnit XML. */
  junit: () => string;
  /** The run as the JSON report holds it. */
  json: unknown;
  /** Whether there was no case to run. */
  none: boolean;
  /** Whether a case did not pass. */
  failed: boolean;
  /** The bundles named on the command line. */
  names: readonly string[];
  passWithNoTests?: boolean;
  /** Why nothing ran, and what to do, given where it looked ("bundle 'x'"). */
  noCases: (where: string) => string;
}

/**
 * The end of a run: the summary on stdout (text, or a report written to a file), or the report
 * on stdout and the summary on stderr with the progress; then the exit code.
 */
export async function finishRun(choice: ReportChoice, end: RunEnd): Promise<number> {
  const { reporter, target } = choice;
  if (reporter === 'text') {
    if (target) await writeReport(target, end.summary + '\n');
    out(end.summary);
  } else {
    const body = reporter === 'junit' ? end.junit() : JSON.stringify(end.json, null, 2) + '\n';
    if (target) {
      await writeReport(target, body);
      out(end.summary);
      out(`Wrote the ${reporter === 'junit' ? 'JUnit' : 'JSON'} report to ${target}.`);
    } else {
      process.stdout.write(body);
      err(end.summary);
    }
  }
  if (end.none) {
    if (end.passWithNoTests) return EXIT.ok;
    const { names } = end;
    const where = names.length ? `bundle${names.length === 1 ? '' : 's'} ${names.map((n) => `'${n}'`).join(', ')}` : 'the bundles switched on';
    err(`${end.noCases(where)} (--pass-with-no-tests makes this a pass).`);
    return EXIT.failed;
  }
  return end.failed ? EXIT.failed : EXIT.ok;
}

/** Writes a report atomically, making its folder; a failure is the command's error, naming the file. */
export async function writeReport(target: string, body: string): Promise<void> {
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await writeFileAtomic(target, body);
  } catch (e) {
    throw new CliError(`could not write ${target}: ${(e as Error).message}`);
  }
}
