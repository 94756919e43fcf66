/**
 * Files that cannot be loaded are moved, never deleted, to
 * `<data>/quarantine/<stamp>/<path relative to the data folder>` and reported. The
 * loader only reads `bundles/` and `overrides/`, so it never loads them again.
 *
 * Why a file was set aside is written beside it (`<stamp>/.reason.json`), and every open
 * and reload reports each entry of quarantine/ once per process (reportExisting): a
 * problem outlives a restart, and every process sharing the folder reports it, not only
 * the one that moved the file. Deleting an entry of quarantine/ ends its report.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Problem } from '../../../shared/model/app-info';
import { errnoOf, listDir, replaceFile, toFileText, type StoreFs } from '../lib/durable-fs';
import { readDataFile } from './read-data';
import type { StoreLayout } from './layout';

/** Where the store reports what it found wrong; ProblemLog fits. */
export interface ProblemSink {
  report(p: Omit<Problem, 'id' | 'at'>): unknown;
}

const REASON_FILE = '.reason.json';

interface Reason {
  path: string;
  movedTo: string;
  message: string;
}

export class Quarantine {
  /** Stamps (entries of quarantine/) already reported by this process. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly layout: StoreLayout,
    private readonly fs: StoreFs,
    private readonly problems: ProblemSink,
    private readonly now: () => Date,
  ) {}

  /** Moves a file or folder aside and reports it. Returns where it went, or undefined if it was gone. */
  async setAside(target: string, message: string): Promise<string | undefined> {
    const stamp = `${this.now().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    const dest = path.join(this.layout.quarantineDir, stamp, this.layout.relative(target));
    try {
      await this.fs.mkdir(path.dirname(dest), { recursive: true });
      await this.fs.rename(target, dest);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return undefined;
      // It stays where it is and is skipped; the next open reports it again.
      this.problems.report({ kind: 'corrupt-file', path: target, message: `${message} (could not be moved aside: ${(e as Error).message})` });
      return undefined;
    }
    this.reported.add(stamp);
    const reason: Reason = { path: this.layout.relative(target), movedTo: this.layout.relative(dest), message };
    // Best effort: without it the entry is still reported, with less to say.
    await replaceFile(this.fs, path.join(this.layout.quarantineDir, stamp, REASON_FILE), toFileText(reason), () => undefined).catch(() => undefined);
    this.problems.report({ kind: 'corrupt-file', path: target, message, movedTo: dest });
    return dest;
  }

  /** Reports every entry of quarantine/ this process has not reported yet (set aside earlier, or by another process). */
  async reportExisting(): Promise<void> {
    let stamps: string[];
    try {
      stamps = await listDir(this.fs, this.layout.quarantineDir);
    } catch (e) {
      this.problems.report({ kind: 'io-error', path: this.layout.quarantineDir, message: `the quarantine folder cannot be listed: ${(e as Error).message}` });
      return;
    }
    for (const stamp of stamps) {
      if (stamp.startsWith('.') || this.reported.has(stamp)) continue;
      this.reported.add(stamp);
      const entry = path.join(this.layout.quarantineDir, stamp);
      const r = await readDataFile(this.fs, path.join(entry, REASON_FILE));
      const reason = r.kind === 'ok' ? (r.value as Partial<Reason>) : {};
      const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
      const movedTo = str(reason.movedTo) ? path.join(this.layout.dataDir, str(reason.movedTo)!) : entry;
      this.problems.report({
        kind: 'corrupt-file',
        path: str(reason.path) ? path.join(this.layout.dataDir, str(reason.path)!) : entry,
        message: `${str(reason.message) ?? 'set aside earlier (no reason recorded)'}; it is still in quarantine/ (delete it there once dealt with)`,
        movedTo,
      });
    }
  }
}
