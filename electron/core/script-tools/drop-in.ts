/**
 * The drop-in folder, `<data>/drop-in/` (the designs' "drop a file and it registers"): a tool as
 * `NAME.json`, and for a script tool its source as `NAME.js` beside it. Each pair is registered in
 * the bundle "Drop-in tools" (slug `drop-in`, made on first use; its id is kept in
 * `<data>/drop-in-state.json`), when the folder is scanned: at start and whenever it changes.
 *
 * `NAME.json` is a tool's put body, with defaults so a few lines do: `slug` (default NAME),
 * `version` ('1'), `displayName` (the slug), `description` (''), `tags` ([]), `outputSchema` ({}),
 * `isEnabled` (true), `type` ('script' when NAME.js is there), `argSchema` ({type: object}); a
 * script's `script` holds only its limits (the source is NAME.js).
 *
 * What a scan does with each pair: not registered yet: registered; registered with the same content:
 * nothing; registered with other content: a problem (versions do not change: give it a new
 * version). A file that is not JSON, not a tool, or a script without its .js is a problem, never a
 * crash; each problem is reported once while it lasts. Files are never moved or rewritten, and a
 * tool stays registered when its files are removed (delete it in Tools). Dropped scripts were not
 * written in this app: they ask before their first run.
 *
 * Only regular files are read (`readDropped`): each name is lstat'ed first, and a FIFO, a socket, a
 * device, a folder, or a symbolic link that leads out of the folder (or to anything but a regular
 * file) is a problem, never opened; a file over its cap (DROP_IN_JSON_MAX_BYTES, or a script's
 * source limit) is a problem, never read whole. A file is opened without blocking and checked again
 * once open, so one swapped for a FIFO between the two looks cannot hold the scan.
 */
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { Problem } from '../../../shared/model/app-info';
import { DROP_IN_FOLDER, SCRIPT_LIMITS, withoutBom } from '../../../shared/model/script-tool';
import { ToolPutBodySchema, TOOL_BACKEND_FIELDS, TOOL_DEFINITION_FIELDS, type ToolPutBody, type ToolView } from '../../../shared/model/tool';
import { checkSlug, checkVersion, nfc, UUID_V7_PATTERN } from '../../../shared/model/validation';
import { sha256Hex } from '../bundles/script-files';
import type { ToolStore } from '../bundles/tool-store';
import { writeFileAtomic } from '../lib/atomic-write';

const STATE_FILE = 'drop-in-state.json';

/** The largest NAME.json read (a tool's JSON is a few KiB). */
export const DROP_IN_JSON_MAX_BYTES = 1024 * 1024;
/** The largest NAME.js read: a script's source limit, and a byte order mark. */
export const DROP_IN_SCRIPT_MAX_BYTES = SCRIPT_LIMITS.sourceMaxBytes + 3;

/** A dropped file that is not read, and why (a sentence that names it). */
class NotReadable extends Error {}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${Math.floor(bytes / 1024)} KiB`;
}

/**
 * The text of a dropped file, read only when it is a regular file of at most `maxBytes` (a
 * symbolic link counts when it leads to one inside `dir`). Throws NotReadable with the reason.
 */
export async function readDropped(dir: string, name: string, maxBytes: number): Promise<string> {
  let target = path.join(dir, name);
  const st = await fs.lstat(target);
  if (st.isSymbolicLink()) {
    const real = await fs.realpath(target).catch(() => undefined);
    const realDir = await fs.realpath(dir);
    if (!real || path.dirname(real) !== realDir) throw new NotReadable(`${name} is a symbolic link that leads out of the drop-in folder; put the file itself there`);
    target = real;
    const to = await fs.lstat(real);
    if (!to.isFile()) throw new NotReadable(`${name} is a symbolic link to something that is not a regular file; put the file itself there`);
  } else if (!st.isFile()) {
    throw new NotReadable(`${name} is not a regular file (${kindOf(st)}); only files are read from the drop-in folder`);
  }
  // Without blocking (a FIFO put in its place opens at once) and without following a link put there since.
  const handle = await fs.open(target, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0));
  try {
    const open = await handle.stat();
    if (!open.isFile()) throw new NotReadable(`${name} is not a regular file (${kindOf(open)}); only files are read from the drop-in folder`);
    if (open.size > maxBytes) throw new NotReadable(`${name} is ${open.size} bytes; a dropped ${name.endsWith('.js') ? 'script' : 'tool file'} may hold at most ${sizeText(maxBytes)}`);
    // At most one byte past the cap, should it have grown since.
    const buf = Buffer.alloc(maxBytes + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length) throw new NotReadable(`${name} is over ${maxBytes} bytes; a dropped ${name.endsWith('.js') ? 'script' : 'tool file'} may hold at most ${sizeText(maxBytes)}`);
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    await handle.close();
  }
}

function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}
const BUNDLE = { slug: 'drop-in', displayName: 'Drop-in tools', description: 'Tools registered from the drop-in folder of the data folder (a NAME.json, and a NAME.js for a script tool).', isEnabled: true };

export interface DropInDeps {
  dataDir: string;
  store: ToolStore;
  problems: { report(p: Omit<Problem, 'id' | 'at'>): unknown };
}

export interface ScanResult {
  /** slug@version registered by this scan. */
  registered: string[];
  /** Files that could not be registered, and why. */
  problems: { path: string; message: string }[];
}

type Candidate = { file: string; body: ToolPutBody; slug: string; version: string };

export class DropIn {
  readonly dir: string;
  /** Problems reported, by path: each is reported once while it lasts. */
  private reported = new Map<string, string>();
  private running: Promise<ScanResult> | undefined;
  private again = false;

  constructor(private readonly d: DropInDeps) {
    this.dir = path.join(d.dataDir, DROP_IN_FOLDER);
  }

  /** Resolves once no scan runs (a core closing waits for it). */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** Scans the folder (a scan asked for while one runs is run once after it). */
  scan(): Promise<ScanResult> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        let r = await this.scanOnce();
        while (this.again) {
          this.again = false;
          r = await this.scanOnce();
        }
        return r;
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async scanOnce(): Promise<ScanResult> {
    await fs.mkdir(this.dir, { recursive: true });
    const names = (await fs.readdir(this.dir)).filter((n) => !n.startsWith('.')).sort();
    const problems: ScanResult['problems'] = [];
    const registered: string[] = [];
    const candidates: Candidate[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const c = await this.read(name, names);
      if ('problem' in c) problems.push({ path: c.file, message: c.problem });
      else candidates.push(c);
    }
    for (const name of names.filter((n) => n.endsWith('.js') && !names.includes(`${n.slice(0, -3)}.json`))) {
      problems.push({ path: path.join(this.dir, name), message: `drop-in: ${name} has no ${name.slice(0, -3)}.json beside it to say what tool it is (at least {"description": "…"})` });
    }
    if (candidates.length > 0) {
      let bundleId: string | undefined;
      try {
        bundleId = await this.bundle();
      } catch (e) {
        for (const c of candidates) problems.push({ path: c.file, message: `drop-in: not registered: ${(e as Error).message}` });
      }
      for (const c of bundleId ? candidates : []) {
        try {
          const existing = this.d.store.toolsOf(bundleId!).find((t) => nfc(t.slug) === nfc(c.slug) && nfc(t.version) === nfc(c.version));
          if (!existing) {
            await this.d.store.putTool(bundleId!, c.slug, c.version, c.body);
            registered.push(`${c.slug}@${c.version}`);
          } else if (!sameTool(existing, c.body)) {
            problems.push({ path: c.file, message: `drop-in: '${c.slug}' version '${c.version}' is registered already with other content; versions do not change: give this one a new "version" to register it` });
          }
        } catch (e) {
          problems.push({ path: c.file, message: `drop-in: '${c.slug}' version '${c.version}' was not registered: ${(e as Error).message}` });
        }
      }
    }
    this.report(problems);
    return { registered, problems };
  }

  /** Reports problems not reported before; forgets those that went away. */
  private report(problems: ScanResult['problems']): void {
    const now = new Map(problems.map((p) => [p.path, p.message]));
    for (const [file, message] of now) {
      if (this.reported.get(file) !== message) this.d.problems.report({ kind: 'invalid-config', path: file, message });
    }
    this.reported = now;
  }

  private async read(name: string, names: readonly string[]): Promise<Candidate | { file: string; problem: string }> {
    const file = path.join(this.dir, name);
    const base = name.slice(0, -'.json'.length);
    let doc: unknown;
    let text: string;
    try {
      text = await readDropped(this.dir, name, DROP_IN_JSON_MAX_BYTES);
    } catch (e) {
      if (e instanceof NotReadable) return { file, problem: `drop-in: ${e.message}` };
      return { file, problem: `drop-in: ${name} cannot be read (${(e as Error).message})` };
    }
    try {
      doc = JSON.parse(withoutBom(text));
    } catch (e) {
      return { file, problem: `drop-in: ${name} is not readable JSON (${(e as Error).message})` };
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { file, problem: `drop-in: ${name} must hold a JSON object (a tool)` };
    const given = doc as Record<string, unknown>;
    let slug: string;
    let version: string;
    try {
      slug = checkSlug(given.slug ?? base);
      version = checkVersion(given.version ?? '1');
    } catch (e) {
      return { file, problem: `drop-in: ${name}: ${(e as Error).message}${given.slug === undefined ? ' (the slug is the file name unless "slug" is given)' : ''}` };
    }
    const { slug: _s, version: _v, ...rest } = given;
    const hasJs = names.includes(`${base}.js`);
    const type = rest.type ?? (hasJs ? 'script' : undefined);
    const body: Record<string, unknown> = { displayName: slug, description: '', tags: [], argSchema: { type: 'object' }, outputSchema: {}, isEnabled: true, ...rest, ...(type !== undefined ? { type } : {}) };
    if (type === 'script') {
      if (!hasJs) return { file, problem: `drop-in: ${name} is a script tool but ${base}.js is not beside it` };
      let source: string;
      try {
        source = await readDropped(this.dir, `${base}.js`, DROP_IN_SCRIPT_MAX_BYTES);
      } catch (e) {
        if (e instanceof NotReadable) return { file, problem: `drop-in: ${e.message}` };
        return { file, problem: `drop-in: ${base}.js cannot be read (${(e as Error).message})` };
      }
      const limits = rest.script && typeof rest.script === 'object' ? (rest.script as Record<string, unknown>) : {};
      body.script = { ...limits, source: withoutBom(source) };
    }
    const parsed = ToolPutBodySchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { file, problem: `drop-in: ${name} is not a valid tool: ${issue.path.map(String).join('.') || '(the object)'}: ${issue.message}` };
    }
    return { file, body: parsed.data, slug, version };
  }

  /** The Drop-in tools bundle's id: made (and remembered) on first use, made again if it was removed for good. */
  private async bundle(): Promise<string> {
    const stateFile = path.join(this.d.dataDir, STATE_FILE);
    let id: string | undefined;
    try {
      const s = JSON.parse(await fs.readFile(stateFile, 'utf8')) as { bundleId?: unknown };
      if (typeof s.bundleId === 'string' && UUID_V7_PATTERN.test(s.bundleId)) id = s.bundleId;
    } catch {
      // No state yet (or a damaged one): a bundle is made.
    }
    const existing = id ? this.d.store.bundleById(id) : undefined;
    if (existing?.softDeletedAt !== undefined) throw new Error('the Drop-in tools bundle was deleted; restore it in Tools to register dropped files again');
    if (existing) return existing.id;
    const bundleId = uuidv7();
    await this.d.store.putBundle(bundleId, BUNDLE);
    await writeFileAtomic(stateFile, `${JSON.stringify({ bundleId }, null, 2)}\n`);
    return bundleId;
  }
}

/** Whether a registered tool holds what a dropped file says (a script by its source's SHA-256). */
function sameTool(t: ToolView, body: ToolPutBody): boolean {
  const pick = (x: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const k of TOOL_DEFINITION_FIELDS) out[k] = x[k];
    for (const k of TOOL_BACKEND_FIELDS) if (x[k] !== undefined) out[k] = x[k];
    out.requiresApproval = x.requiresApproval === true;
    return out;
  };
  const fromFile = pick(body as unknown as Record<string, unknown>);
  if (body.script) {
    const { source, ...limits } = body.script;
    fromFile.script = { sha256: sha256Hex(source), ...limits };
  }
  return stable(pick(t as unknown as Record<string, unknown>)) === stable(fromFile);
}

function stable(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );
}
