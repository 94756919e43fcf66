/**
 * Reads the data folder into a Catalog. Files are read without a lock (every write is an
 * atomic rename or link, so a reader sees whole files). A file that fails is read again
 * under its bundle's lock before it is set aside, so a file another process replaced
 * meanwhile is never quarantined by mistake.
 *
 * What is set aside (moved to quarantine/ and reported as 'corrupt-file'):
 * - a tool file that is empty, not JSON, not a tool, in the wrong bundle folder, under a
 *   name that does not match its slug and version, or a copy of another tool's id;
 * - a whole bundle folder whose bundle.json is bad, or missing while tools remain;
 * - an override file that is bad.
 * Folders that are not ours (their name is not a bundle id) are reported once and left alone.
 *
 * With a cache of tool files (see tool-files.ts), a tool file whose fingerprint matches
 * its cache entry is taken from the cache instead of being read; every other file is read
 * and checked as above.
 */
import path from 'node:path';
import { BundleSchema, type Bundle } from '../../../shared/model/bundle';
import { ToolSchema, type Tool } from '../../../shared/model/tool';
import { nfc, UUID_V7_PATTERN } from '../../../shared/model/validation';
import { applyOverride, EMPTY_OVERRIDE, OverrideSchema, type BuiltinBundle, type Override } from './builtins';
import { Catalog } from './catalog';
import { listDir, readJsonFile, type StoreFs } from './durable-fs';
import { firstIssueMessage } from './input';
import { isDataFileName, toolFileName, type StoreLayout } from './layout';
import type { LockSet } from './locks';
import type { ProblemSink, Quarantine } from './quarantine';
import { schemaMetaViolation } from './schema-check';
import { isSettled, statFiles, toolDoc, toolFromCache, type FileFingerprint, type FileStat, type ToolFileCache, type ToolOrigin } from './tool-files';

export interface ScanDeps {
  layout: StoreLayout;
  fs: StoreFs;
  locks: LockSet;
  quarantine: Quarantine;
  problems: ProblemSink;
  builtins: Map<string, BuiltinBundle>;
  /** Paths already reported as "not ours", so a reload does not report them again. */
  reportedOnce: Set<string>;
  /** Tool files known from before (the index's, or the catalog's on a reload); read-only. */
  cache?: ToolFileCache;
}

export function bundleLockKey(bundleId: string): string {
  return `bundle-${bundleId}`;
}

interface BadFile {
  path: string;
  message: string;
}

interface LoadedTool {
  tool: Tool;
  /** Set when the file's fingerprint is settled (see tool-files.ts). */
  origin?: ToolOrigin;
}

interface FolderContents {
  bundle?: Bundle;
  tools: LoadedTool[];
  bad: BadFile[];
}

type Checked<T> = { ok: T } | { problem: string };

/** Files read at once: enough to hide latency, few enough to stay far from the open-files limit. */
const READ_CONCURRENCY = 32;
/** Files stat'ed at once (a stat holds no file open). */
const STAT_CONCURRENCY = 64;

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const k = next++;
      out[k] = await fn(items[k]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/**
 * Why a parsed tool file cannot be loaded from `fileName` in `bundleId`'s folder, if it cannot.
 * A change to what this accepts or returns must bump TOOL_DOC_VERSION in tool-files.ts.
 */
function checkToolFile(value: unknown, bundleId: string, fileName: string): Checked<Tool> {
  const parsed = ToolSchema.safeParse(value);
  if (!parsed.success) return { problem: `does not match the tool schema: ${firstIssueMessage(parsed.error)}` };
  const t = parsed.data;
  if (t.bundleId !== bundleId) return { problem: `belongs to bundle ${t.bundleId} but is in the folder of bundle ${bundleId}` };
  if (t.isBuiltIn) return { problem: 'says isBuiltIn: true, which only shipped tools may' };
  if (t.slug !== nfc(t.slug) || t.version !== nfc(t.version)) return { problem: 'its slug or version is not in NFC form' };
  const expected = toolFileName(t.slug, t.version);
  if (fileName !== expected) return { problem: `the file name does not match its slug and version (expected ${expected})` };
  const schemaProblem = schemaMetaViolation(t.argSchema, 'argSchema') ?? schemaMetaViolation(t.outputSchema, 'outputSchema');
  if (schemaProblem) return { problem: schemaProblem.message };
  return { ok: t };
}

function checkBundleFile(value: unknown, bundleId: string): Checked<Bundle> {
  const parsed = BundleSchema.safeParse(value);
  if (!parsed.success) return { problem: `does not match the bundle schema: ${firstIssueMessage(parsed.error)}` };
  if (parsed.data.id !== bundleId) return { problem: `has id ${parsed.data.id} but is in the folder of bundle ${bundleId}` };
  if (parsed.data.isBuiltIn) return { problem: 'says isBuiltIn: true, which only shipped bundles may' };
  return { ok: parsed.data };
}

type ReadTool = ({ ok: LoadedTool } | { problem: string }) & { path: string };

/** The file's fingerprint from its stat (undefined: it could not be stat'ed) after `statStartedAt`, if it is settled. */
function settledSource(file: string, st: FileStat | undefined, statStartedAt: number): FileFingerprint | undefined {
  return st?.isFile && isSettled(st.mtimeMs, statStartedAt) ? { path: file, mtimeMs: st.mtimeMs, size: st.size } : undefined;
}

/** The tool from the cache when the file's fingerprint is the cached one, else undefined (read the file). */
function cachedTool(d: ScanDeps, bundleId: string, source: FileFingerprint | undefined): ReadTool | undefined {
  const hit = source && d.cache?.get(source.path);
  if (!hit || hit.mtimeMs !== source.mtimeMs || hit.size !== source.size) return undefined;
  const tool = toolFromCache(hit, bundleId);
  return tool && { ok: { tool, origin: { source, doc: hit.doc } }, path: source.path };
}

async function readTool(d: ScanDeps, bundleId: string, file: string, source: FileFingerprint | undefined): Promise<ReadTool> {
  const r = await readJsonFile(d.fs, file);
  if (r.kind === 'missing') return { problem: '', path: file }; // removed meanwhile: not a problem
  if (r.kind === 'corrupt') return { problem: r.message, path: file };
  const checked = checkToolFile(r.value, bundleId, path.basename(file));
  if ('problem' in checked) return { problem: checked.problem, path: file };
  return { ok: { tool: checked.ok, origin: source && { source, doc: toolDoc(checked.ok) } }, path: file };
}

/** One user bundle folder. `others` holds the tools of bundles read before, to catch copied ids. */
export async function readBundleFolder(d: ScanDeps, bundleId: string, others: Catalog): Promise<FolderContents> {
  const folder = d.layout.bundleDir(bundleId);
  const toolNames = (await listDir(d.fs, d.layout.toolsDir(bundleId))).filter(isDataFileName);
  const r = await readJsonFile(d.fs, d.layout.bundleFile(bundleId));
  const setAsideFolder = (why: string): FolderContents => ({
    tools: [],
    bad: [{ path: folder, message: `${why}; the bundle folder and its ${toolNames.length} tool file(s) were set aside together` }],
  });
  if (r.kind === 'missing') return toolNames.length === 0 ? { tools: [], bad: [] } : setAsideFolder('bundle.json is missing');
  if (r.kind === 'corrupt') return setAsideFolder(`bundle.json: ${r.message}`);
  const bundle = checkBundleFile(r.value, bundleId);
  if ('problem' in bundle) return setAsideFolder(`bundle.json: ${bundle.problem}`);

  const tools: LoadedTool[] = [];
  const bad: BadFile[] = [];
  const ids = new Set<string>();
  const toolsDir = d.layout.toolsDir(bundleId) + path.sep;
  const files = toolNames.map((name) => toolsDir + name);
  const statStartedAt = Date.now(); // the wall clock, like the files' mtimes
  const stats = await statFiles(d.fs, files, STAT_CONCURRENCY);
  const sources = files.map((file, k) => settledSource(file, stats[k], statStartedAt));
  const results = sources.map((source) => cachedTool(d, bundleId, source));
  const misses = results.flatMap((hit, k) => (hit ? [] : [k]));
  await mapLimited(misses, READ_CONCURRENCY, async (k) => {
    results[k] = await readTool(d, bundleId, files[k]!, sources[k]);
  });
  for (const t of results as ReadTool[]) {
    if ('problem' in t) {
      if (t.problem) bad.push({ path: t.path, message: `tool file: ${t.problem}` });
    } else if (others.tools.has(t.ok.tool.id) || ids.has(t.ok.tool.id)) {
      bad.push({ path: t.path, message: `tool file: repeats the id ${t.ok.tool.id} of another tool` });
    } else {
      ids.add(t.ok.tool.id);
      tools.push(t.ok);
    }
  }
  return { bundle: bundle.ok, tools, bad };
}

function reportOnce(d: ScanDeps, where: string, message: string): void {
  if (d.reportedOnce.has(where)) return;
  d.reportedOnce.add(where);
  d.problems.report({ kind: 'invalid-config', path: where, message });
}

/** The override of a built-in bundle; a bad one is set aside (taking the lock unless `lockHeld`). */
export async function readOverride(d: ScanDeps, bundleId: string, lockHeld: boolean): Promise<Override> {
  const file = d.layout.overrideFile(bundleId);
  const read = async (): Promise<Checked<Override>> => {
    const r = await readJsonFile(d.fs, file);
    if (r.kind === 'missing') return { ok: EMPTY_OVERRIDE };
    if (r.kind === 'corrupt') return { problem: r.message };
    const parsed = OverrideSchema.safeParse(r.value);
    return parsed.success ? { ok: parsed.data } : { problem: `does not match the override schema: ${firstIssueMessage(parsed.error)}` };
  };
  const first = await read();
  if ('ok' in first) return first.ok;
  const recheck = async () => {
    const again = await read();
    if ('ok' in again) return again.ok;
    await d.quarantine.setAside(file, `override file: ${again.problem}; the built-in defaults are in use`);
    return EMPTY_OVERRIDE;
  };
  return lockHeld ? recheck() : d.locks.withLock(bundleLockKey(bundleId), `bundle ${bundleId}`, recheck);
}

/** Reads everything: built-ins with their overrides, then every user bundle folder. */
export async function scanRegistry(d: ScanDeps): Promise<Catalog> {
  const catalog = new Catalog();
  for (const b of d.builtins.values()) {
    const { bundle, tools } = applyOverride(b, await readOverride(d, b.config.id, false));
    catalog.setBundle(bundle);
    for (const t of tools) catalog.setTool(t);
  }
  for (const name of await listDir(d.fs, d.layout.bundlesDir)) {
    if (name.startsWith('.')) continue;
    const folder = d.layout.bundleDir(name);
    if (!UUID_V7_PATTERN.test(name)) {
      reportOnce(d, folder, 'this folder is not a bundle (its name is not a lowercase UUIDv7) and is ignored');
      continue;
    }
    if (d.builtins.has(name)) {
      reportOnce(d, folder, 'this user bundle folder has the id of a built-in bundle and is ignored');
      continue;
    }
    let found = await readBundleFolder(d, name, catalog);
    if (found.bad.length > 0) {
      found = await d.locks.withLock(bundleLockKey(name), `bundle ${name}`, async () => {
        const again = await readBundleFolder(d, name, catalog);
        for (const bad of again.bad) await d.quarantine.setAside(bad.path, bad.message);
        return again;
      });
    }
    if (!found.bundle) continue;
    catalog.setBundle(found.bundle);
    for (const t of found.tools) catalog.setTool(t.tool, t.origin);
  }
  return catalog;
}
