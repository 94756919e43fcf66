/**
 * A script tool's source: a readable `.js` file beside its `.json` (same name, other ending),
 * whose SHA-256 the `.json` records (`script.sha256`). Versions are immutable, so the pair is
 * written once (the `.js` first, then the `.json`, both atomic) and removed together.
 *
 * A pair that does not match is a problem, never a crash: a `.js` that is missing, unreadable
 * or changed by hand leaves the tool listed, switched off, with the reason (the loader reports
 * it; see scan-folder.ts), and a call is refused with the same sentence. Nothing is rewritten.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { withoutBom } from '../../../shared/model/script-tool';
import { errnoOf, type StoreFs } from '../lib/durable-fs';

/** The script file of a tool file: `<name>.json` → `<name>.js`. */
export function scriptPathOf(toolFile: string): string {
  return toolFile.replace(/\.json$/, '.js');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** What the `.js` of a script tool holds, checked against the SHA-256 its `.json` recorded. */
export type ScriptFileState = { ok: true; source: string } | { ok: false; problem: string; source?: string };

/** The sentence for a pair that does not match (shown in problems, as the tool's unavailableReason, and as a call's error). */
export function scriptProblem(file: string, what: 'missing' | 'changed' | 'unreadable', detail?: string): string {
  const name = path.basename(file);
  if (what === 'missing') return `its script file ${name} is missing; restore it, or delete this version and save the tool again`;
  if (what === 'unreadable') return `its script file ${name} cannot be read (${detail ?? 'unknown error'})`;
  return `its script file ${name} was changed after this version was saved (its SHA-256 no longer matches); versions do not change: put the file back, or save the new code as a new version`;
}

function decode(bytes: Buffer): string {
  return withoutBom(bytes.toString('utf8'));
}

function check(file: string, bytes: Buffer, sha256: string): ScriptFileState {
  const source = decode(bytes);
  return sha256Hex(source) === sha256 ? { ok: true, source } : { ok: false, problem: scriptProblem(file, 'changed'), source };
}

/** Reads and checks a script file (for the loader and the editor). */
export async function readScriptFile(sfs: StoreFs, file: string, sha256: string): Promise<ScriptFileState> {
  let bytes: Buffer;
  try {
    bytes = await sfs.readFile(file);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return { ok: false, problem: scriptProblem(file, 'missing') };
    return { ok: false, problem: scriptProblem(file, 'unreadable', errnoOf(e) ?? (e as Error).message) };
  }
  return check(file, bytes, sha256);
}

interface Cached {
  /** performance.now() of the last stat that found the file as cached. */
  checkedAt: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  sha256: string;
  source: string;
}

/** How many sources are kept in memory (the most recently used). */
const MAX_CACHED = 256;
/** A file found unchanged is stat'ed again after this long (the registry's watcher reloads about as soon). */
const RECHECK_MS = 250;

/**
 * The sources calls run, kept in memory by file with the stat they were read at: a call costs at
 * most a stat (none when the file was found unchanged less than RECHECK_MS ago), and the file is
 * read (and hashed) again only when it changed. So a file changed after the loader looked is
 * refused within RECHECK_MS, whether or not the registry has reloaded yet.
 */
export class ScriptSources {
  private readonly cache = new Map<string, Cached>();

  /** The source when it was found unchanged less than RECHECK_MS ago (a call's common case, answered without a promise); else undefined: ask forCall. */
  fresh(file: string, sha256: string): string | undefined {
    const hit = this.cache.get(file);
    return hit && hit.sha256 === sha256 && performance.now() - hit.checkedAt < RECHECK_MS ? hit.source : undefined;
  }

  /** The source to run, or AppError UNAVAILABLE with the reason. */
  async forCall(file: string, sha256: string, slug: string): Promise<string> {
    const now = performance.now();
    const fresh = this.cache.get(file);
    if (fresh && fresh.sha256 === sha256 && now - fresh.checkedAt < RECHECK_MS) return fresh.source;
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(file, { throwIfNoEntry: false });
    } catch (e) {
      throw new AppError('UNAVAILABLE', `'${slug}' cannot run: ${scriptProblem(file, 'unreadable', errnoOf(e) ?? (e as Error).message)}`);
    }
    if (!st) {
      this.cache.delete(file);
      throw new AppError('UNAVAILABLE', `'${slug}' cannot run: ${scriptProblem(file, 'missing')}`);
    }
    const hit = this.cache.get(file);
    if (hit && hit.ino === st.ino && hit.size === st.size && hit.mtimeMs === st.mtimeMs && hit.ctimeMs === st.ctimeMs && hit.sha256 === sha256) {
      // Most recently used last.
      hit.checkedAt = now;
      this.cache.delete(file);
      this.cache.set(file, hit);
      return hit.source;
    }
    const state = await readScriptFile(fs.promises as unknown as StoreFs, file, sha256);
    if (!state.ok) {
      this.cache.delete(file);
      throw new AppError('UNAVAILABLE', `'${slug}' cannot run: ${state.problem}`);
    }
    this.cache.set(file, { checkedAt: now, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, sha256, source: state.source });
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return state.source;
  }
}
