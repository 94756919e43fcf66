/**
 * The folder of a bundle's cases, `<data>/testcases/<bundleId>/`, holds the JSON files of two
 * stores: one test case file per tool slug (test-case-store.ts) and the bundle's eval case file
 * (evals/eval-case-store.ts). Both keep their files the same way, written here once:
 *
 * - a file is read whole on every call (it is small), so another process's write is seen at once;
 * - changes to one file are serialised in this process (`serial`), and written atomically (temp,
 *   fsync, rename); two processes changing one file at the same moment: the last write wins;
 * - a removed file takes the bundle's folder with it when nothing else is left in it;
 * - a file that is not JSON, not its shape, or larger than `maxBytes` is reported through
 *   `problems`, moved aside (`<name>.corrupt-<time>`, never deleted) and read as none.
 */
import path from 'node:path';
import type { z } from 'zod';
import { AppError } from '../../../shared/errors';
import type { Problem } from '../../../shared/model/app-info';
import { attempt, replaceFile, toFileText, type StoreFs } from '../lib/durable-fs';
import { moveAside, readJson } from '../lib/json-file';
import { KeyedQueue } from '../lib/serial-queue';

/** The folder, in the data folder, of every bundle's case files. */
export const CASES_DIR_NAME = 'testcases';

export interface CaseFilesOptions {
  fs: StoreFs;
  now: () => Date;
  /** Told about a file set aside; the same shape as ProblemLog.report. */
  problems: (p: Omit<Problem, 'id' | 'at'>) => void;
  /** What a file holds, as messages name it: 'test cases'. */
  noun: string;
  /** One such file, as messages name it: 'a test case file'. */
  fileNoun: string;
  /** The largest a file may be: a larger one is set aside, a write that would pass it refused. */
  maxBytes?: number;
  /** The sentence refusing a write past maxBytes, given both sizes as text (`12 KB`). */
  tooLarge?: (size: string, max: string) => string;
}

export class CaseFiles {
  /** Per file: its queue of changes. */
  private readonly queues = new KeyedQueue();

  constructor(private readonly o: CaseFilesOptions) {}

  /** Runs `fn` after every change to `file` queued before it (a list after a save sees it). */
  serial<T>(file: string, fn: () => Promise<T>): Promise<T> {
    return this.queues.run(file, fn);
  }

  /** The file as `schema` reads it; undefined when it is missing or was set aside. */
  async read<T>(file: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const max = this.o.maxBytes;
    if (max !== undefined) {
      const size = await this.o.fs.stat(file).then(
        (st) => st.size,
        () => 0,
      );
      if (size > max) {
        await this.setAside(file, `the file is ${mb(size)}, more than the ${mb(max)} ${this.o.fileNoun} may be`);
        return undefined;
      }
    }
    const r = await attempt('read', file, () => readJson(file, this.o.fs));
    if (r.kind === 'missing') return undefined;
    if (r.kind === 'corrupt') {
      await this.setAside(file, r.message);
      return undefined;
    }
    const parsed = schema.safeParse(r.value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    await this.setAside(file, `not ${this.o.fileNoun}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
    return undefined;
  }

  /** Writes `doc` as the file, atomically; VALIDATION_FAILED (nothing written) past maxBytes. */
  async write(file: string, doc: unknown): Promise<void> {
    const text = toFileText(doc);
    const bytes = Buffer.byteLength(text);
    if (this.o.maxBytes !== undefined && bytes > this.o.maxBytes) {
      const message = this.o.tooLarge?.(mb(bytes), mb(this.o.maxBytes)) ?? `the ${this.o.noun} would take ${mb(bytes)}, more than the ${mb(this.o.maxBytes)} ${this.o.fileNoun} may be`;
      throw new AppError('VALIDATION_FAILED', message, { rule: 'max-file-size' });
    }
    await attempt(`save the ${this.o.noun} to`, file, async () => {
      await this.o.fs.mkdir(path.dirname(file), { recursive: true });
      await replaceFile(this.o.fs, file, text, () => undefined);
    });
  }

  /** Removes the file (nothing to do when there is none), and the bundle's folder when it is left empty. */
  async remove(file: string): Promise<void> {
    await attempt('delete', file, () => this.o.fs.rm(file, { force: true }));
    // Another file (the other store's, or a case that arrived meanwhile) keeps the folder.
    await this.o.fs.rmdir(path.dirname(file)).catch(() => undefined);
  }

  /** Moves a bad file aside and reports it; it is read as none either way (the next save replaces it). */
  async setAside(file: string, message: string): Promise<void> {
    let movedTo: string | undefined;
    try {
      movedTo = await moveAside(file, this.o.now());
    } catch (e) {
      this.o.problems({ kind: 'corrupt-file', path: file, message: `${message}; read as no ${this.o.noun} (could not be moved aside: ${(e as Error).message})` });
      return;
    }
    this.o.problems({ kind: 'corrupt-file', path: file, message: `${message}; read as no ${this.o.noun}`, movedTo });
  }
}

/** A size as messages give it: KB below a megabyte, else MB with one decimal. */
function mb(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
