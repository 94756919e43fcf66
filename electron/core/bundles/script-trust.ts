/**
 * Which script sources run without asking: `<data>/script-trust.json` holds the SHA-256 of each
 * script the user wrote in this app (saved through the editor, the REST API or the command line)
 * or allowed after reading it (an imported or dropped-in one: its first run asks).
 *
 * Trust is by content: the same source is trusted wherever it is (an export imported back, a
 * copy in another bundle), and a changed source is a new one. A tool file cannot say it is
 * trusted; only this file, which the core writes, can.
 *
 * Reads are synchronous and cheap: the file is stat'ed at most every REFRESH_MS (this process's
 * own grants are seen at once) and read again only when it changed, so a call can ask at once and
 * another process's grant (the CLI's `--trust`) is seen within REFRESH_MS. Grants are written
 * under the 'script-trust' lock, read-modify-write, atomically. A file that cannot be read or
 * parsed trusts nothing (every script asks) and is reported; the next grant writes a good one.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { Sha256HexSchema } from '../../../shared/model/script-tool';
import { replaceFile, toFileText, type StoreFs } from '../lib/durable-fs';
import type { LockSet } from '../lib/locks';
import type { ProblemSink } from './quarantine';
import { readDataFile } from './read-data';

const GrantSchema = z.object({ at: z.string(), how: z.enum(['saved', 'allowed']) }).strict();
const TrustFileSchema = z.object({ version: z.literal(1), scripts: z.record(Sha256HexSchema, GrantSchema) }).strict();
type TrustFile = z.infer<typeof TrustFileSchema>;

/** Why a script is trusted: the user saved it here, or allowed it after reading it. */
export type TrustGrant = 'saved' | 'allowed';

export interface ScriptTrustDeps {
  file: string;
  fs: StoreFs;
  locks: LockSet;
  problems: ProblemSink;
  now: () => Date;
}

const EMPTY: TrustFile = { version: 1, scripts: {} };

/** How often the file is looked at again for other processes' changes. */
const REFRESH_MS = 250;

export class ScriptTrust {
  private current: TrustFile = EMPTY;
  /** The stat the current content was read at ('missing' when there is no file). */
  private stamp: string | undefined;
  private checkedAt = -Infinity;
  private reported: string | undefined;

  constructor(private readonly d: ScriptTrustDeps) {}

  isTrusted(sha256: string): boolean {
    this.refresh();
    return Object.prototype.hasOwnProperty.call(this.current.scripts, sha256);
  }

  /** Trusts each source (by SHA-256); those already trusted keep their first grant. */
  async trust(sha256s: readonly string[], how: TrustGrant): Promise<void> {
    const wanted = sha256s.filter((h) => Sha256HexSchema.safeParse(h).success);
    if (wanted.length === 0) return;
    this.refresh();
    if (wanted.every((h) => Object.prototype.hasOwnProperty.call(this.current.scripts, h))) return;
    await this.d.locks.withLock('script-trust', 'the script trust list', async (guard) => {
      const onDisk = await this.read();
      const scripts = { ...onDisk.scripts };
      const at = this.d.now().toISOString();
      for (const h of wanted) scripts[h] ??= { at, how };
      const next: TrustFile = { version: 1, scripts };
      await replaceFile(this.d.fs, this.d.file, toFileText(next), guard);
      this.current = next;
      this.stamp = undefined;
      this.checkedAt = -Infinity;
    });
  }

  private async read(): Promise<TrustFile> {
    const r = await readDataFile(this.d.fs, this.d.file);
    if (r.kind !== 'ok') return EMPTY;
    const parsed = TrustFileSchema.safeParse(r.value);
    return parsed.success ? parsed.data : EMPTY;
  }

  /** Reads the file again when its stat changed (looked at most every REFRESH_MS). */
  private refresh(): void {
    const now = performance.now();
    if (now - this.checkedAt < REFRESH_MS) return;
    this.checkedAt = now;
    let stamp: string;
    try {
      const st = fs.statSync(this.d.file, { throwIfNoEntry: false });
      stamp = st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : 'missing';
    } catch (e) {
      stamp = `error:${(e as Error).message}`;
    }
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    if (stamp === 'missing') {
      this.current = EMPTY;
      return;
    }
    let problem: string | undefined;
    try {
      const text = fs.readFileSync(this.d.file, 'utf8');
      const parsed = TrustFileSchema.safeParse(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
      if (parsed.success) this.current = parsed.data;
      else problem = 'it does not match the trust list schema';
    } catch (e) {
      problem = (e as Error).message;
    }
    if (problem === undefined) return;
    this.current = EMPTY;
    if (this.reported !== stamp) {
      this.reported = stamp;
      this.d.problems.report({
        kind: 'corrupt-file',
        path: this.d.file,
        message: `the script trust list cannot be used (${problem}); every script tool not saved since asks before it runs, and the next allowed script writes a new list`,
      });
    }
  }
}
