/**
 * Files that cannot be loaded are moved, never deleted, to
 * `<data>/quarantine/<stamp>/<path relative to the data folder>` and reported. The
 * loader only reads `bundles/` and `overrides/`, so it never sees them again.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Problem } from '../../../shared/model/app-info';
import { errnoOf, type StoreFs } from './durable-fs';
import type { StoreLayout } from './layout';

/** Where the store reports what it found wrong; ProblemLog fits. */
export interface ProblemSink {
  report(p: Omit<Problem, 'id' | 'at'>): unknown;
}

export class Quarantine {
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
    this.problems.report({ kind: 'corrupt-file', path: target, message, movedTo: dest });
    return dest;
  }
}
