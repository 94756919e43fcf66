/**
 * Reads the data folder into a Catalog. Files are read without a lock (every write is an
 * atomic rename or link, so a reader sees whole files). The loader keeps good data served
 * and never fails on what a person left in the folder (see scan-folder.ts for how each
 * file is sorted):
 *
 * - A tool file that cannot be loaded is set aside (moved to quarantine/, 'corrupt-file'),
 *   but only after a second look: when it was modified in the last `settleMs`, the loader
 *   waits until it has been quiet that long (an editor saving in place), then reads the
 *   folder again under its bundle's lock, so a file another process replaced meanwhile is
 *   never set aside by mistake.
 * - A damaged bundle.json is reported and left in place; the bundle's tools stay listed
 *   under a placeholder bundle (disabled) until it is fixed or replaced by a PUT.
 * - Two files with one tool id: the one served before keeps it (the index or the previous
 *   load knows which), else the older file; the other is reported and skipped, not moved.
 * - Entries that cannot be read (EISDIR, EACCES) are reported and skipped.
 * - A bad override file is set aside; the built-in defaults are used.
 * Folders that are not ours (their name is not a bundle id) are reported and left alone.
 *
 * Each problem is reported when it appears, not again on every reload while it lasts
 * (`reportedOnce` holds what the previous scan found); entries of quarantine/ are reported
 * once per process (see quarantine.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../../shared/errors';
import { UUID_V7_PATTERN } from '../../../shared/model/validation';
import { applyOverride, EMPTY_OVERRIDE, OverrideSchema, type BuiltinBundle, type Override } from './builtins';
import { Catalog } from './catalog';
import { listDir, type StoreFs } from '../lib/durable-fs';
import { firstIssueMessage } from './input';
import type { StoreLayout } from './layout';
import type { LockSet } from '../lib/locks';
import type { ProblemSink, Quarantine } from './quarantine';
import { readDataFile, type DataFile } from './read-data';
import { placeholderBundle, READ_CONCURRENCY, readBundleFolder, slots, type FolderContents, type FolderDeps, type LoadedTool, type Notice } from './scan-folder';
import type { ToolFileCache } from './tool-files';

export interface ScanDeps {
  layout: StoreLayout;
  fs: StoreFs;
  locks: LockSet;
  quarantine: Quarantine;
  problems: ProblemSink;
  builtins: Map<string, BuiltinBundle>;
  /** The problems the previous scan found (by path and message): they are not reported again while they last. */
  reportedOnce: Set<string>;
  /** Tool files known from before (the index's, or the catalog's on a reload); read-only. */
  cache?: ToolFileCache;
  /** How long a file that fails to load must be unchanged before it is set aside (default PARSE_SETTLE_MS). */
  settleMs?: number;
}

/** A file modified less than this long ago that does not load may be half written: it is read again once quiet. */
export const PARSE_SETTLE_MS = 1000;
/** The longest wait for a file that keeps changing, in settle periods. */
const MAX_SETTLE_PERIODS = 10;

export function bundleLockKey(bundleId: string): string {
  return `bundle-${bundleId}`;
}

/** Reports each problem once per scan, and only when the previous scan did not find it. */
class Reports {
  private readonly current = new Set<string>();
  constructor(private readonly d: ScanDeps) {}

  report(n: Notice): void {
    const key = `${n.kind}\u0000${n.path}\u0000${n.message}`;
    if (this.current.has(key)) return;
    this.current.add(key);
    if (!this.d.reportedOnce.has(key)) this.d.problems.report(n);
  }

  finish(): void {
    this.d.reportedOnce.clear();
    for (const k of this.current) this.d.reportedOnce.add(k);
  }
}

/**
 * The override of a built-in bundle; a bad one is set aside (taking the lock unless `lockHeld`).
 * `firstRead`, when given, is a read of the file already started (readDataFile never rejects).
 */
export async function readOverride(d: ScanDeps, bundleId: string, lockHeld: boolean, reports?: Reports, firstRead?: Promise<DataFile>): Promise<Override> {
  const file = d.layout.overrideFile(bundleId);
  type Read = { ok: Override } | { problem: string } | { unreadable: string };
  const read = async (started?: Promise<DataFile>): Promise<Read> => {
    const r = await (started ?? readDataFile(d.fs, file));
    if (r.kind === 'missing') return { ok: EMPTY_OVERRIDE };
    if (r.kind === 'unreadable') return { unreadable: r.message };
    if (r.kind === 'corrupt') return { problem: r.message };
    const parsed = OverrideSchema.safeParse(r.value);
    return parsed.success ? { ok: parsed.data } : { problem: `does not match the override schema: ${firstIssueMessage(parsed.error)}` };
  };
  const first = await read(firstRead);
  if ('ok' in first) return first.ok;
  if ('unreadable' in first) {
    // A write must not go on as if the file were empty; a load goes on with the defaults.
    if (lockHeld) throw new AppError('UNAVAILABLE', `${first.unreadable}; nothing was changed`, { path: file });
    reports?.report({ kind: 'io-error', path: file, message: `override file cannot be read (${first.unreadable}); the built-in defaults are in use` });
    return EMPTY_OVERRIDE;
  }
  const recheck = async () => {
    const again = await read();
    if ('ok' in again) return again.ok;
    if ('problem' in again) await d.quarantine.setAside(file, `override file: ${again.problem}; the built-in defaults are in use`);
    return EMPTY_OVERRIDE;
  };
  return lockHeld ? recheck() : d.locks.withLock(bundleLockKey(bundleId), `bundle ${bundleId}`, recheck);
}

/** Waits until none of `mtimes` (ms, wall clock) is younger than `settleMs`, re-stat'ing `files`; at most MAX_SETTLE_PERIODS. */
async function waitUntilQuiet(fs: StoreFs, files: string[], settleMs: number): Promise<void> {
  for (let round = 0; round < MAX_SETTLE_PERIODS; round++) {
    const stats = await Promise.all(files.map((f) => fs.stat(f).catch(() => undefined)));
    const newest = Math.max(...stats.map((s) => s?.mtimeMs ?? 0));
    const quietFor = Date.now() - newest;
    if (quietFor >= settleMs) return;
    await sleep(Math.min(settleMs, settleMs - quietFor));
  }
}

/** Files of a folder that failed to parse and may still be being written. */
function freshFailures(c: FolderContents, bundleFile: string, settleMs: number): string[] {
  const fresh = (mtimeMs: number | undefined) => mtimeMs !== undefined && Date.now() - mtimeMs < settleMs;
  const files = c.bad.filter((b) => fresh(b.mtimeMs)).map((b) => b.path);
  if (c.damaged && !c.damaged.unreadable && fresh(c.damaged.mtimeMs)) files.push(bundleFile);
  return files;
}

/**
 * One folder, given its first read: if something failed to load, wait until it is quiet and
 * look again under the lock; set aside what is still bad.
 */
async function loadFolder(d: ScanDeps, bundleId: string, reads: FolderReads): Promise<FolderContents> {
  const folderDeps = reads.deps;
  const first = await reads.take(bundleId);
  if (first.bad.length === 0 && !first.damaged) return first;
  const settleMs = d.settleMs ?? PARSE_SETTLE_MS;
  const fresh = freshFailures(first, d.layout.bundleFile(bundleId), settleMs);
  if (fresh.length > 0) await waitUntilQuiet(d.fs, fresh, settleMs);
  if (first.bad.length === 0) return fresh.length > 0 ? readBundleFolder(folderDeps, bundleId) : first;
  return d.locks.withLock(bundleLockKey(bundleId), `bundle ${bundleId}`, async () => {
    const again = await readBundleFolder(folderDeps, bundleId);
    for (const bad of again.bad) await d.quarantine.setAside(bad.path, bad.message);
    return again;
  });
}

/** Which of two files holding one tool id keeps it: the one served before, else the older. */
function keepsId(d: ScanDeps, held: LoadedTool, other: LoadedTool): LoadedTool {
  const servedBefore = (t: LoadedTool) => d.cache?.get(t.path)?.id === t.tool.id;
  if (servedBefore(held) !== servedBefore(other)) return servedBefore(held) ? held : other;
  return (other.mtimeMs ?? Infinity) < (held.mtimeMs ?? Infinity) ? other : held;
}

/** Adds a folder's tools, settling clashes of ids with tools already in the catalog. */
function addTools(d: ScanDeps, catalog: Catalog, holders: Map<string, LoadedTool>, tools: LoadedTool[], reports: Reports): void {
  for (const t of tools) {
    const held = holders.get(t.tool.id);
    const keep = held ? keepsId(d, held, t) : t;
    if (held) {
      const skipped = keep === held ? t : held;
      reports.report({
        kind: 'invalid-config',
        path: skipped.path,
        message: `tool file: repeats the id ${t.tool.id} of ${keep.path}, which is served; this file is skipped (give it a new id, or remove it)`,
      });
      if (keep === held) continue;
      catalog.deleteTool(held.tool.id);
    }
    holders.set(t.tool.id, t);
    catalog.setTool(t.tool, t.origin, t.scriptProblem);
  }
}

/** How many bundle folders past the one being loaded are read meanwhile. */
const FOLDERS_AHEAD = 4;

/**
 * The first, lock-free reads of the bundle folders (readBundleFolder), started a few folders
 * ahead of the one being loaded so their reads overlap. They only read; what each finds is
 * dealt with (reported, set aside, added) in the folders' order, as before. Their tool file
 * reads share READ_CONCURRENCY slots.
 */
class FolderReads {
  private readonly started = new Map<string, Promise<FolderContents>>();
  /** The next of `order` to start reading, and to be taken. */
  private next = 0;
  private taken = 0;
  /** For every read of the scan's folders, second looks included. */
  readonly deps: FolderDeps;

  constructor(
    d: ScanDeps,
    private readonly order: readonly string[],
  ) {
    this.deps = { layout: d.layout, fs: d.fs, cache: d.cache, readSlots: slots(READ_CONCURRENCY) };
  }

  /** The first read of `bundleId` (one of `order`, taken in that order), and the next few started. */
  take(bundleId: string): Promise<FolderContents> {
    const at = this.order.indexOf(bundleId, this.taken);
    if (at < 0) return readBundleFolder(this.deps, bundleId);
    this.taken = at + 1;
    while (this.next <= Math.min(at + FOLDERS_AHEAD, this.order.length - 1)) {
      const id = this.order[this.next++]!;
      const read = readBundleFolder(this.deps, id);
      read.catch(() => undefined); // awaited when its folder's turn comes
      this.started.set(id, read);
    }
    const read = this.started.get(bundleId)!;
    this.started.delete(bundleId);
    return read;
  }
}

/** Reads everything: built-ins with their overrides, then every user bundle folder, then what quarantine/ holds. */
export async function scanRegistry(d: ScanDeps): Promise<Catalog> {
  const reports = new Reports(d);
  const catalog = new Catalog();
  // The override files are read at once; each is then dealt with in turn, as before.
  const builtins = [...d.builtins.values()].map((b) => ({ b, firstRead: readDataFile(d.fs, d.layout.overrideFile(b.config.id)) }));
  for (const { b, firstRead } of builtins) {
    const { bundle, tools } = applyOverride(b, await readOverride(d, b.config.id, false, reports, firstRead));
    catalog.setBundle(bundle);
    for (const t of tools) catalog.setTool(t);
  }
  let names: string[] = [];
  try {
    names = await listDir(d.fs, d.layout.bundlesDir);
  } catch (e) {
    reports.report({ kind: 'io-error', path: d.layout.bundlesDir, message: `the bundles folder cannot be read (${(e as Error).message}); no user bundle is loaded` });
  }
  const holders = new Map<string, LoadedTool>();
  const firstReads = new FolderReads(d, names.filter((name) => !name.startsWith('.') && UUID_V7_PATTERN.test(name) && !d.builtins.has(name)));
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const folder = d.layout.bundleDir(name);
    if (!UUID_V7_PATTERN.test(name)) {
      reports.report({ kind: 'invalid-config', path: folder, message: 'this folder is not a bundle (its name is not a lowercase UUIDv7) and is ignored' });
      continue;
    }
    if (d.builtins.has(name)) {
      reports.report({ kind: 'invalid-config', path: folder, message: 'this user bundle folder has the id of a built-in bundle and is ignored' });
      continue;
    }
    const found = await loadFolder(d, name, firstReads);
    for (const n of found.notices) reports.report(n);
    if (found.damaged) {
      const n = found.tools.length;
      reports.report({
        kind: found.damaged.unreadable ? 'io-error' : 'corrupt-file',
        path: d.layout.bundleFile(name),
        message: `damaged bundle: ${found.damaged.message}; it is left in place and its ${n} tool(s) are listed under a placeholder bundle (disabled) until it is fixed by hand or replaced by a PUT of the bundle`,
      });
    }
    const bundle = found.bundle ?? (found.damaged && placeholderBundle(name, found.tools, found.damaged.message));
    if (!bundle) continue;
    catalog.setBundle(bundle);
    addTools(d, catalog, holders, found.tools, reports);
  }
  await d.quarantine.reportExisting();
  reports.finish();
  return catalog;
}
