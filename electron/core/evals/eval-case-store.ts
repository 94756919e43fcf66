/**
 * A bundle's eval cases, in the folder of its test cases (testcases/test-case-store.ts), one
 * file per bundle:
 *
 *   <data>/testcases/<bundleId>/evals.json
 *   { "format": "toolsmith-evals", "version": 1, "bundleId", "cases": [EvalCase...] }
 *
 * It is read, written and set aside as every case file of that folder is (testcases/case-files.ts):
 * read on every call, written atomically and serialised per file, and a file that is not JSON or
 * not this shape, or larger than MAX_EVALS_FILE_BYTES (a save that would make it larger is
 * refused), is reported through `problems`, moved aside (`evals.json.corrupt-<time>`, never
 * deleted) and read as no cases. The file goes with the last case (and the folder, when no test
 * case is left in it either).
 */
import path from 'node:path';
import { z } from 'zod';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import type { Problem } from '../../../shared/model/app-info';
import { EvalCaseSchema, MAX_EVAL_CASES, type EvalCase, type EvalCaseBody, type EvalCaseBodyInput } from '../../../shared/model/evals';
import { checkUuidV7, quote } from '../../../shared/model/validation';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { CASES_DIR_NAME, CaseFiles } from '../testcases/case-files';
import { checkEvalCase } from './eval-case-check';

export const EVALS_FILE_NAME = 'evals.json';
/** The largest a bundle's eval case file may be: a save past it is refused, a file past it is set aside. */
export const MAX_EVALS_FILE_BYTES = 32 * 1024 * 1024;

export interface EvalCaseStoreOptions {
  dataDir: string;
  now?: () => Date;
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  newId?: () => string;
  fs?: StoreFs;
  /** The largest the file may be (default MAX_EVALS_FILE_BYTES). */
  maxFileBytes?: number;
}

const FileSchema = z
  .object({
    format: z.literal('toolsmith-evals'),
    version: z.literal(1),
    bundleId: z.string(),
    cases: z.array(EvalCaseSchema).max(MAX_EVAL_CASES),
  })
  .strict()
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.cases.forEach((c, i) => {
      if (seen.has(c.id)) ctx.addIssue({ code: 'custom', path: ['cases', i, 'id'], message: `eval case id '${c.id}' is used twice` });
      seen.add(c.id);
    });
  });

/** What a client sends: the body, and an id only to replace an existing case. */
export type EvalCaseInput = EvalCaseBodyInput & { id?: string };

export class EvalCaseStore {
  readonly dir: string;
  private readonly now: () => Date;
  private readonly newId: () => string;
  private readonly files: CaseFiles;

  constructor(options: EvalCaseStoreOptions) {
    this.dir = path.join(options.dataDir, CASES_DIR_NAME);
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? (() => uuidv7());
    this.files = new CaseFiles({
      fs: options.fs ?? nodeFs,
      now: this.now,
      problems: options.problems ?? (() => undefined),
      noun: 'eval cases',
      fileNoun: 'an eval case file',
      maxBytes: options.maxFileBytes ?? MAX_EVALS_FILE_BYTES,
      tooLarge: (size, max) => `the bundle's eval cases would take ${size}, more than the ${max} a bundle's eval case file may be: make cases smaller (shorter context, smaller canned results) or delete some`,
    });
  }

  /** The file of a bundle's cases; VALIDATION_FAILED for a bad bundle id. */
  fileFor(bundleId: string): string {
    return path.join(this.dir, checkUuidV7(bundleId, 'bundleId'), EVALS_FILE_NAME);
  }

  /** A bundle's cases, oldest first; none when there is no file. */
  async list(bundleId: string): Promise<EvalCase[]> {
    const file = this.fileFor(bundleId);
    return this.files.serial(file, () => this.read(file, bundleId));
  }

  async get(bundleId: string, id: string): Promise<EvalCase> {
    const found = (await this.list(bundleId)).find((c) => c.id === id);
    if (!found) throw notFound(id);
    return found;
  }

  /** Creates a case (new id) or replaces the one with `input.id`, keeping its createdAt. */
  async save(bundleId: string, input: EvalCaseInput): Promise<EvalCase> {
    const file = this.fileFor(bundleId);
    const { id, ...body } = input;
    const checked = checkEvalCase(body);
    return this.files.serial(file, async () => {
      const cases = await this.read(file, bundleId);
      const at = this.now().toISOString();
      let saved: EvalCase;
      if (id) {
        const i = cases.findIndex((c) => c.id === id);
        if (i < 0) throw notFound(id);
        saved = { id, ...checked, createdAt: cases[i]!.createdAt, updatedAt: at };
        cases[i] = saved;
      } else {
        if (cases.length >= MAX_EVAL_CASES) {
          throw new AppError('VALIDATION_FAILED', `this bundle already has ${MAX_EVAL_CASES} eval cases, the most a bundle may have: delete some first`, { rule: 'max-cases' });
        }
        saved = { id: this.newId(), ...checked, createdAt: at, updatedAt: at };
        cases.push(saved);
      }
      await this.write(file, bundleId, cases);
      return saved;
    });
  }

  /** Deletes a case; NOT_FOUND when there is none with that id. */
  async delete(bundleId: string, id: string): Promise<void> {
    const file = this.fileFor(bundleId);
    return this.files.serial(file, async () => {
      const cases = await this.read(file, bundleId);
      const kept = cases.filter((c) => c.id !== id);
      if (kept.length === cases.length) throw notFound(id);
      await this.write(file, bundleId, kept);
    });
  }

  /**
   * Adds cases brought from a bundle archive (transfer/zip.ts) as one write: each checked as
   * `save` checks it, with a new id and times. Refused whole when the bundle would pass MAX_EVAL_CASES.
   */
  async addAll(bundleId: string, bodies: EvalCaseBody[]): Promise<EvalCase[]> {
    const file = this.fileFor(bundleId);
    const checked = bodies.map((b) => checkEvalCase(b));
    return this.files.serial(file, async () => {
      const cases = await this.read(file, bundleId);
      if (cases.length + checked.length > MAX_EVAL_CASES) {
        throw new AppError('VALIDATION_FAILED', `the bundle would have ${cases.length + checked.length} eval cases; a bundle may have at most ${MAX_EVAL_CASES}`, { rule: 'max-cases' });
      }
      const at = this.now().toISOString();
      const added = checked.map((c) => ({ id: this.newId(), ...c, createdAt: at, updatedAt: at }));
      await this.write(file, bundleId, [...cases, ...added]);
      return added;
    });
  }

  /** Removes every case of a bundle (an import undone); nothing to do when it has none. */
  async removeAll(bundleId: string): Promise<void> {
    const file = this.fileFor(bundleId);
    return this.files.serial(file, () => this.write(file, bundleId, []));
  }

  private async read(file: string, bundleId: string): Promise<EvalCase[]> {
    const doc = await this.files.read(file, FileSchema);
    if (!doc) return [];
    if (doc.bundleId !== bundleId) {
      await this.files.setAside(file, `the file says it holds the eval cases of bundle ${quote(doc.bundleId)}, but it is in the folder of ${quote(bundleId)}`);
      return [];
    }
    return doc.cases;
  }

  /** No case left: the file goes (and the folder, when no test case file is in it). */
  private async write(file: string, bundleId: string, cases: EvalCase[]): Promise<void> {
    if (cases.length === 0) await this.files.remove(file);
    else await this.files.write(file, { format: 'toolsmith-evals', version: 1, bundleId, cases });
  }
}

function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `no eval case ${quote(id)} in this bundle; it may have been deleted`, { id });
}

/** Whether a case expects `tool` (a slug of its bundle, or bundle/slug naming that bundle by its slug). */
export function expectsTool(c: EvalCase, tool: string, bundleSlug: string): boolean {
  if (c.expect.kind !== 'tools') return false;
  const want = tool.includes('/') ? tool : `${bundleSlug}/${tool}`;
  return c.expect.tools.some((t) => (t.tool.includes('/') ? t.tool : `${bundleSlug}/${t.tool}`).normalize('NFC') === want.normalize('NFC'));
}
