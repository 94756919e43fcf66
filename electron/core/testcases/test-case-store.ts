/**
 * Saved test cases of a tool, per bundle and slug (they apply to every version), one file
 * per tool slug:
 *
 *   <data>/testcases/<bundleId>/<sha256(NFC slug), first 24 hex>.json
 *   { "format": "toolsmith-testcases", "version": 1, "bundleId", "slug", "cases": [TestCase...] }
 *
 * The slug is hashed so `Read` and `read` stay apart on case-insensitive disks and any
 * slug names a safe file; it is kept in the file for people reading it. Files are read,
 * written and set aside as every case file of a bundle's folder is (case-files.ts): read on
 * every call, written atomically and serialised per file, and a file that is not JSON or not
 * this shape is reported through `problems`, moved aside (`<name>.json.corrupt-<time>`, never
 * deleted) and read as empty.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { AppError } from '../../../shared/errors';
import type { Problem } from '../../../shared/model/app-info';
import { TestCaseSchema, type Assertion, type TestCase } from '../../../shared/model/testcase';
import { checkSlug, checkUuidV7, jsonViolation, nfc, quote, violationError } from '../../../shared/model/validation';
import { v7 as uuidv7 } from 'uuid';
import { nodeFs, type StoreFs } from '../lib/durable-fs';
import { CASES_DIR_NAME, CaseFiles } from './case-files';
import { assertionViolation } from './run-tests';

export const TESTCASES_DIR_NAME = CASES_DIR_NAME;
/** Cases per tool slug: 'run all' runs them one after another. */
export const MAX_TEST_CASES = 500;
/** One case's args and assertions, as JSON. */
export const TEST_CASE_LIMITS = { maxBytes: 1024 * 1024, maxDepth: 64, maxNodes: 50_000 };

/** What a client sends: no times; an id only to replace an existing case. */
export interface TestCaseInput {
  id?: string;
  name: string;
  args: unknown;
  assertions: Assertion[];
}

export interface TestCaseStoreOptions {
  dataDir: string;
  now?: () => Date;
  /** Told about a corrupt file (moved aside); the same shape as ProblemLog.report. */
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  /** Injectable for tests. */
  newId?: () => string;
  fs?: StoreFs;
}

const FileSchema = z
  .object({
    format: z.literal('toolsmith-testcases'),
    version: z.literal(1),
    bundleId: z.string(),
    slug: z.string(),
    cases: z.array(TestCaseSchema).max(MAX_TEST_CASES),
  })
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.cases.forEach((c, i) => {
      if (seen.has(c.id)) ctx.addIssue({ code: 'custom', path: ['cases', i, 'id'], message: `test case id '${c.id}' is used twice` });
      seen.add(c.id);
    });
  });

/** The file name of a slug's test cases. */
export function testCaseFileName(slug: string): string {
  return `${createHash('sha256').update(nfc(slug), 'utf8').digest('hex').slice(0, 24)}.json`;
}

export class TestCaseStore {
  readonly dir: string;
  private readonly now: () => Date;
  private readonly newId: () => string;
  private readonly fs: StoreFs;
  private readonly files: CaseFiles;

  constructor(options: TestCaseStoreOptions) {
    this.dir = path.join(options.dataDir, TESTCASES_DIR_NAME);
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? (() => uuidv7());
    this.fs = options.fs ?? nodeFs;
    this.files = new CaseFiles({ fs: this.fs, now: this.now, problems: options.problems ?? (() => undefined), noun: 'test cases', fileNoun: 'a test case file' });
  }

  /** The file holding a tool slug's cases; VALIDATION_FAILED for a bad bundle id or slug. */
  fileFor(bundleId: string, slug: string): string {
    const id = checkUuidV7(bundleId, 'bundleId');
    return path.join(this.dir, id, testCaseFileName(checkSlug(slug)));
  }

  /** The cases of a tool slug, oldest first; none when there is no file. */
  async list(bundleId: string, slug: string): Promise<TestCase[]> {
    const file = this.fileFor(bundleId, slug);
    // Behind pending writes of this file, so a list after a save sees it.
    return this.serial(file, () => this.read(file));
  }

  async get(bundleId: string, slug: string, id: string): Promise<TestCase> {
    const found = (await this.list(bundleId, slug)).find((c) => c.id === id);
    if (!found) throw notFound(id, slug);
    return found;
  }

  /** Creates a case (new id) or replaces the one with `input.id`, keeping its createdAt. */
  async save(bundleId: string, slug: string, input: TestCaseInput): Promise<TestCase> {
    const file = this.fileFor(bundleId, slug);
    const cleanSlug = nfc(slug);
    const checked = checkInput(input);
    return this.serial(file, async () => {
      const cases = await this.read(file);
      const at = this.now().toISOString();
      let saved: TestCase;
      if (input.id) {
        const i = cases.findIndex((c) => c.id === input.id);
        if (i < 0) throw notFound(input.id, cleanSlug);
        saved = { id: input.id, ...checked, createdAt: cases[i]!.createdAt, updatedAt: at };
        cases[i] = saved;
      } else {
        if (cases.length >= MAX_TEST_CASES) {
          throw new AppError('VALIDATION_FAILED', `'${cleanSlug}' already has ${MAX_TEST_CASES} test cases, the most a tool may have: delete some first`, { rule: 'max-cases' });
        }
        saved = { id: this.newId(), ...checked, createdAt: at, updatedAt: at };
        cases.push(saved);
      }
      await this.write(file, bundleId, cleanSlug, cases);
      return saved;
    });
  }

  /** Deletes a case; NOT_FOUND when there is none with that id. The file goes with the last case. */
  async delete(bundleId: string, slug: string, id: string): Promise<void> {
    const file = this.fileFor(bundleId, slug);
    const cleanSlug = nfc(slug);
    return this.serial(file, async () => {
      const cases = await this.read(file);
      const kept = cases.filter((c) => c.id !== id);
      if (kept.length === cases.length) throw notFound(id, cleanSlug);
      if (kept.length > 0) await this.write(file, bundleId, cleanSlug, kept);
      else await this.files.remove(file);
    });
  }

  /**
   * Every tool slug of a bundle that has saved cases, with its cases, by slug. A file of
   * another bundle or of no slug (set aside when read) is left out.
   */
  async listBundle(bundleId: string): Promise<{ slug: string; cases: TestCase[] }[]> {
    const dir = path.join(this.dir, checkUuidV7(bundleId, 'bundleId'));
    let names: string[];
    try {
      names = await this.fs.readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: { slug: string; cases: TestCase[] }[] = [];
    for (const name of names.filter((n) => /^[0-9a-f]{24}\.json$/.test(n)).sort()) {
      const file = path.join(dir, name);
      const read = await this.serial(file, () => this.readFile(file));
      if (read && read.bundleId === bundleId && read.cases.length > 0) out.push({ slug: read.slug, cases: read.cases });
    }
    return out.sort((a, b) => a.slug.localeCompare(b.slug));
  }

  /**
   * Adds cases brought from a bundle archive (electron/core/transfer/zip.ts) to a tool slug's
   * cases as one write: each is checked again as `save` checks it, and gets a new id and times.
   * Refused whole (nothing written) when one is invalid or the slug would pass MAX_TEST_CASES.
   */
  async addAll(bundleId: string, slug: string, inputs: TestCaseInput[]): Promise<TestCase[]> {
    const file = this.fileFor(bundleId, slug);
    const cleanSlug = nfc(slug);
    const checked = inputs.map((input) => checkInput(input));
    return this.serial(file, async () => {
      const cases = await this.read(file);
      if (cases.length + checked.length > MAX_TEST_CASES) {
        throw new AppError('VALIDATION_FAILED', `'${cleanSlug}' would have ${cases.length + checked.length} test cases; a tool may have at most ${MAX_TEST_CASES}`, { rule: 'max-cases' });
      }
      const at = this.now().toISOString();
      const added = checked.map((c) => ({ id: this.newId(), ...c, createdAt: at, updatedAt: at }));
      await this.write(file, bundleId, cleanSlug, [...cases, ...added]);
      return added;
    });
  }

  /** Removes every case of a tool slug (an import undone); nothing to do when it has none. */
  async removeAll(bundleId: string, slug: string): Promise<void> {
    const file = this.fileFor(bundleId, slug);
    return this.serial(file, () => this.files.remove(file));
  }

  private async read(file: string): Promise<TestCase[]> {
    return (await this.readFile(file))?.cases ?? [];
  }

  private readFile(file: string): Promise<z.infer<typeof FileSchema> | undefined> {
    return this.files.read(file, FileSchema);
  }

  private write(file: string, bundleId: string, slug: string, cases: TestCase[]): Promise<void> {
    return this.files.write(file, { format: 'toolsmith-testcases', version: 1, bundleId, slug, cases });
  }

  private serial<T>(file: string, fn: () => Promise<T>): Promise<T> {
    return this.files.serial(file, fn);
  }
}

function notFound(id: string, slug: string): AppError {
  return new AppError('NOT_FOUND', `no test case ${quote(id)} for '${slug}'; it may have been deleted`, { id });
}

const ImportedCaseKeys = new Set(['name', 'args', 'assertions']);

/**
 * A case as a bundle archive carries it (`{ name, args, assertions }`, nothing else: no id, no
 * times), checked with the rules of `save`: the case to add, or why it is refused.
 */
export function checkImportedCase(value: unknown): { ok: true; value: TestCaseInput } | { ok: false; message: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'a test case must be a JSON object' };
  const extra = Object.keys(value).filter((k) => !ImportedCaseKeys.has(k));
  if (extra.length) return { ok: false, message: `unknown field ${quote(extra[0]!)}: a test case has only name, args and assertions` };
  const v = value as Record<string, unknown>;
  try {
    const checked = checkInput({ name: v.name as string, args: v.args, assertions: v.assertions as Assertion[] });
    return { ok: true, value: checked };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** The parts of a case a client chooses, checked as the file will hold them. */
function checkInput(input: TestCaseInput): Pick<TestCase, 'name' | 'args' | 'assertions'> {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) throw violationError({ field: 'name', rule: 'required', message: 'a test case needs a name' });
  const candidate = { name, args: input.args === undefined ? {} : input.args, assertions: input.assertions };
  const shape = TestCaseSchema.pick({ name: true, args: true, assertions: true }).safeParse(candidate);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    throw new AppError('VALIDATION_FAILED', `invalid test case: ${issue?.path.join('.') || '(case)'}: ${issue?.message ?? 'invalid'}`, { field: issue?.path.join('.') });
  }
  shape.data.assertions.forEach((a, i) => {
    const bad = assertionViolation(a, `assertions.${i}`);
    if (bad) throw violationError(bad);
  });
  const size = jsonViolation(candidate, 'testCase', TEST_CASE_LIMITS);
  if (size) throw violationError(size);
  return { name: shape.data.name, args: candidate.args, assertions: shape.data.assertions };
}
