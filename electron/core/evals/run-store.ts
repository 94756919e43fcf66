/**
 * Saved eval runs, one file each, written once when the run ends:
 *
 *   <data>/eval-runs/<runId>.json   { "format": "toolsmith-eval-run", "version": 2, "run": EvalRun }
 *
 * Version 1 (each step listing its tools' keys itself, before `toolSets`) is read as version 2.
 *
 * Written atomically (temp, fsync, rename). The newest MAX_SAVED_RUNS are kept; saving one
 * more removes the oldest. The list reads each file's summary, kept in memory per file
 * (name, size and modification time), so listing again reads only what changed. A file that
 * is not a run is reported, moved aside (`<name>.corrupt-<time>`) and left out.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { AppError } from '../../../shared/errors';
import type { Problem } from '../../../shared/model/app-info';
import { EvalRunSchema, type EvalRun, type EvalRunSummary } from '../../../shared/model/evals';
import { quote } from '../../../shared/model/validation';
import { attempt, listDir, nodeFs, replaceFile, toFileText, type StoreFs } from '../lib/durable-fs';
import { moveAside, readJson } from '../lib/json-file';
import { SerialQueue } from '../lib/serial-queue';

export const EVAL_RUNS_DIR_NAME = 'eval-runs';
/** Runs kept; the oldest goes when one more is saved. */
export const MAX_SAVED_RUNS = 200;

export const EVAL_RUN_FILE_VERSION = 2;
const FileSchema = z.object({ format: z.literal('toolsmith-eval-run'), version: z.literal(EVAL_RUN_FILE_VERSION), run: EvalRunSchema }).strict();
/** Run ids are UUIDs: a file name of nothing else. */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface EvalRunStoreOptions {
  dataDir: string;
  now?: () => Date;
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  fs?: StoreFs;
  /** Runs kept (default MAX_SAVED_RUNS). */
  maxRuns?: number;
}

export class EvalRunStore {
  readonly dir: string;
  private readonly now: () => Date;
  private readonly problems: NonNullable<EvalRunStoreOptions['problems']>;
  private readonly fs: StoreFs;
  private readonly maxRuns: number;
  private readonly queue = new SerialQueue();
  private readonly summaries = new Map<string, { stamp: string; summary: EvalRunSummary }>();

  constructor(o: EvalRunStoreOptions) {
    this.dir = path.join(o.dataDir, EVAL_RUNS_DIR_NAME);
    this.now = o.now ?? (() => new Date());
    this.problems = o.problems ?? (() => undefined);
    this.fs = o.fs ?? nodeFs;
    this.maxRuns = o.maxRuns ?? MAX_SAVED_RUNS;
  }

  private fileOf(runId: string): string {
    const id = runId.toLowerCase();
    if (!RUN_ID.test(id)) throw new AppError('NOT_FOUND', `no saved eval run ${quote(runId)}: run ids are UUIDs`, { runId });
    return path.join(this.dir, `${id}.json`);
  }

  /** Saves a run (replacing one of the same id), then removes the oldest past MAX_SAVED_RUNS. */
  save(run: EvalRun): Promise<void> {
    const file = this.fileOf(run.id);
    return this.queue.run(async () => {
      await attempt('save the eval run to', file, async () => {
        await this.fs.mkdir(this.dir, { recursive: true });
        await replaceFile(this.fs, file, toFileText({ format: 'toolsmith-eval-run', version: EVAL_RUN_FILE_VERSION, run }), () => undefined);
      });
      const all = await this.readSummaries();
      for (const old of all.slice(this.maxRuns)) await this.fs.rm(this.fileOf(old.id), { force: true }).catch(() => undefined);
    });
  }

  /** A saved run; NOT_FOUND when there is none (or its file was set aside). */
  async get(runId: string): Promise<EvalRun> {
    const file = this.fileOf(runId);
    const run = await this.queue.run(() => this.read(file));
    if (!run) throw new AppError('NOT_FOUND', `no saved eval run ${quote(runId)}; it may have been deleted`, { runId });
    return run;
  }

  /** Saved runs, newest first. */
  list(limit = MAX_SAVED_RUNS): Promise<EvalRunSummary[]> {
    return this.queue.run(async () => (await this.readSummaries()).slice(0, limit));
  }

  async delete(runId: string): Promise<void> {
    const file = this.fileOf(runId);
    await this.queue.run(async () => {
      const r = await attempt('delete', file, () => readJson(file, this.fs));
      if (r.kind === 'missing') throw new AppError('NOT_FOUND', `no saved eval run ${quote(runId)}; it may have been deleted`, { runId });
      await attempt('delete', file, () => this.fs.rm(file, { force: true }));
      this.summaries.delete(path.basename(file));
    });
  }

  private async readSummaries(): Promise<EvalRunSummary[]> {
    const names = (await listDir(this.fs, this.dir)).filter((n) => n.endsWith('.json') && RUN_ID.test(n.slice(0, -5)));
    const out: EvalRunSummary[] = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      let stamp: string;
      try {
        const st = await this.fs.stat(file);
        stamp = `${st.size}:${st.mtimeMs}`;
      } catch {
        continue;
      }
      const hit = this.summaries.get(name);
      if (hit && hit.stamp === stamp) {
        out.push(hit.summary);
        continue;
      }
      const run = await this.read(file);
      if (!run) continue;
      const summary = summaryOf(run);
      this.summaries.set(name, { stamp, summary });
      out.push(summary);
    }
    for (const name of [...this.summaries.keys()]) if (!names.includes(name)) this.summaries.delete(name);
    return out.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id));
  }

  private async read(file: string): Promise<EvalRun | undefined> {
    const r = await attempt('read', file, () => readJson(file, this.fs));
    if (r.kind === 'missing') return undefined;
    if (r.kind === 'corrupt') return this.setAside(file, r.message);
    const parsed = FileSchema.safeParse(upgraded(r.value));
    if (parsed.success) return parsed.data.run;
    const issue = parsed.error.issues[0];
    return this.setAside(file, `not a saved eval run: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }

  private async setAside(file: string, message: string): Promise<undefined> {
    try {
      const movedTo = await moveAside(file, this.now());
      this.problems({ kind: 'corrupt-file', path: file, message: `${message}; the run is left out`, movedTo });
    } catch (e) {
      this.problems({ kind: 'corrupt-file', path: file, message: `${message}; the run is left out (could not be moved aside: ${(e as Error).message})` });
    }
    return undefined;
  }
}

/** The key of a list of tool text keys (a request's tools, in order): what a step's `toolSet` names. */
export function toolSetKey(keys: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(keys)).digest('hex').slice(0, 16);
}

/**
 * A version 1 file as version 2: each step's list of tool keys (`tools`) moves to the run's
 * `toolSets`, the step naming it (`toolSet`). Anything else is left for the schema to judge.
 */
function upgraded(value: unknown): unknown {
  const file = value as { format?: unknown; version?: unknown; run?: { results?: unknown; toolSets?: unknown } } | null;
  if (!file || typeof file !== 'object' || file.format !== 'toolsmith-eval-run' || file.version !== 1 || !file.run || typeof file.run !== 'object') return value;
  const toolSets: Record<string, string[]> = {};
  const results = Array.isArray(file.run.results) ? (file.run.results as { attempts?: unknown }[]) : [];
  const upgradedResults = results.map((r) => {
    if (!r || typeof r !== 'object' || !Array.isArray(r.attempts)) return r;
    const attempts = (r.attempts as { steps?: unknown }[]).map((a) => {
      if (!a || typeof a !== 'object' || !Array.isArray(a.steps)) return a;
      const steps = (a.steps as { tools?: unknown }[]).map((step) => {
        if (!step || typeof step !== 'object' || !Array.isArray(step.tools)) return step;
        const { tools, ...rest } = step as { tools: string[] };
        const key = toolSetKey(tools);
        toolSets[key] ??= tools;
        return { ...rest, toolSet: key };
      });
      return { ...a, steps };
    });
    return { ...r, attempts };
  });
  return { ...file, version: EVAL_RUN_FILE_VERSION, run: { ...file.run, results: upgradedResults, toolSets } };
}

export function summaryOf(run: EvalRun): EvalRunSummary {
  const bundles = new Map<string, string>();
  for (const c of run.cases) bundles.set(c.bundleId, c.bundleSlug);
  return {
    id: run.id,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    status: run.status,
    models: run.models,
    repeat: run.repeat,
    bundles: [...bundles].map(([bundleId, bundleSlug]) => ({ bundleId, bundleSlug })),
    cases: run.cases.length,
    totals: run.totals,
  };
}
