/**
 * Reading one user bundle folder for the loader (scan.ts): bundle.json and every tool file,
 * each sorted into what is served, what is set aside, and what is only reported.
 *
 * - served: a valid file; also one with unknown top-level fields (served without them,
 *   reported, kept on disk) or with bytes that are not UTF-8 (reported; writes refuse it);
 * - set aside (`bad`): a tool file that is empty, not JSON, not a tool, in the wrong
 *   folder, or under a name that does not match its slug and version;
 * - reported and skipped: an entry that cannot be read (a folder named like a data file,
 *   permission denied). It is not moved: nothing is known to be wrong with its content.
 * A bundle.json that is missing (while tools remain), damaged or unreadable leaves the
 * bundle `damaged`: the loader serves its tools under a placeholder bundle.
 * A script tool's `.js` (script-files.ts) is read and checked against its `.json` every time,
 * cache or not: one missing or changed by hand is reported and the tool is served switched off
 * with the reason (`scriptProblem`). A `.js` without its `.json` is ignored (a write that did not
 * finish; the next save of that version replaces it).
 */
import path from 'node:path';
import type { Problem } from '../../../shared/model/app-info';
import { BundleSchema, type Bundle } from '../../../shared/model/bundle';
import { ToolSchema, type Tool } from '../../../shared/model/tool';
import { nfc } from '../../../shared/model/validation';
import { listDir, type StoreFs } from '../lib/durable-fs';
import { firstIssueMessage } from './input';
import { isDataFileName, toolFileName, type StoreLayout } from './layout';
import { readDataFile, type DataFile } from './read-data';
import { parseKeepingUnknown, type ExtraFields } from './records';
import { schemaMetaViolation } from './schema-check';
import { readScriptFile, scriptPathOf } from './script-files';
import { isSettled, statFiles, toolDoc, toolFromCache, type FileFingerprint, type FileStat, type ToolFileCache, type ToolOrigin } from './tool-files';

export type Notice = Omit<Problem, 'id' | 'at'>;

export interface FolderDeps {
  layout: StoreLayout;
  fs: StoreFs;
  cache?: ToolFileCache;
  /** Shared by folders read at the same time, so their file reads together stay within READ_CONCURRENCY. */
  readSlots?: Slots;
}

/** Runs a task when one of a fixed number of slots is free. */
export type Slots = <T>(task: () => Promise<T>) => Promise<T>;

/** At most `limit` tasks run at once; the others wait their turn in the order they came. */
export function slots(limit: number): Slots {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot goes straight to the next waiting task, if any.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

export interface LoadedTool {
  tool: Tool;
  path: string;
  /** The file's mtime when stat'ed (undefined: no stat), to tell the older of two files with one id. */
  mtimeMs?: number;
  /** Set when the file's fingerprint is settled and it has nothing to report (see tool-files.ts). */
  origin?: ToolOrigin;
  /** A script tool whose `.js` cannot be used: why (it is served switched off). */
  scriptProblem?: string;
}

export interface BadFile {
  path: string;
  message: string;
  mtimeMs?: number;
}

export interface FolderContents {
  bundle?: Bundle;
  /** Why bundle.json cannot be used, when the folder still has tools (or a bundle.json). */
  damaged?: { message: string; unreadable: boolean; mtimeMs?: number };
  tools: LoadedTool[];
  bad: BadFile[];
  notices: Notice[];
}

type Checked<T> = { ok: T; extra?: ExtraFields } | { problem: string };

/** Files read at once: enough to hide latency, few enough to stay far from the open-files limit. */
export const READ_CONCURRENCY = 32;
/** Files stat'ed at once through an injected fs (the real fs is stat'ed synchronously, see statFiles). */
const STAT_CONCURRENCY = 64;

/**
 * Why a parsed tool file cannot be loaded from `fileName` in `bundleId`'s folder, if it cannot.
 * A change to what this accepts or returns must bump TOOL_DOC_VERSION in tool-files.ts.
 */
function checkToolFile(value: unknown, bundleId: string, fileName: string): Checked<Tool> {
  const parsed = parseKeepingUnknown(ToolSchema, value);
  if (!parsed.ok) return { problem: `does not match the tool schema: ${firstIssueMessage(parsed.error)}` };
  const t = parsed.data;
  if (t.bundleId !== bundleId) return { problem: `belongs to bundle ${t.bundleId} but is in the folder of bundle ${bundleId}` };
  if (t.isBuiltIn) return { problem: 'says isBuiltIn: true, which only shipped tools may' };
  if (t.slug !== nfc(t.slug) || t.version !== nfc(t.version)) return { problem: 'its slug or version is not in NFC form' };
  const expected = toolFileName(t.slug, t.version);
  if (fileName !== expected) return { problem: `the file name does not match its slug and version (expected ${expected})` };
  const schemaProblem = schemaMetaViolation(t.argSchema, 'argSchema') ?? schemaMetaViolation(t.outputSchema, 'outputSchema');
  if (schemaProblem) return { problem: schemaProblem.message };
  return { ok: t, extra: parsed.extra };
}

function checkBundleFile(value: unknown, bundleId: string): Checked<Bundle> {
  const parsed = parseKeepingUnknown(BundleSchema, value);
  if (!parsed.ok) return { problem: `does not match the bundle schema: ${firstIssueMessage(parsed.error)}` };
  if (parsed.data.id !== bundleId) return { problem: `has id ${parsed.data.id} but is in the folder of bundle ${bundleId}` };
  if (parsed.data.isBuiltIn) return { problem: 'says isBuiltIn: true, which only shipped bundles may' };
  return { ok: parsed.data, extra: parsed.extra };
}

/** Problems of a file that is served anyway: fields this version does not know, bytes that are not UTF-8. */
function servedNotices(file: string, what: string, extra: ExtraFields | undefined, badUtf8: string | undefined): Notice[] {
  const out: Notice[] = [];
  if (extra) {
    const names = Object.keys(extra).map((k) => `'${k}'`).join(', ');
    out.push({ kind: 'invalid-config', path: file, message: `${what} has field(s) this version does not know (${names}); it is served without them and they are kept in the file` });
  }
  if (badUtf8) out.push({ kind: 'corrupt-file', path: file, message: `${what} ${badUtf8}` });
  return out;
}

/** The entry cannot be read (a folder named like a file, permission denied): reported, skipped, left where it is. */
function unreadableNotice(file: string, what: string, message: string): Notice {
  return { kind: 'io-error', path: file, message: `${what} cannot be read (${message}); it is skipped until it can be` };
}

type ReadTool = { ok: LoadedTool; notices: Notice[] } | { bad: BadFile } | { skip: Notice | undefined };

/** The file's fingerprint from its stat after `statStartedAt`, if it is settled. */
function settledSource(file: string, st: FileStat | undefined, statStartedAt: number): FileFingerprint | undefined {
  return st?.isFile && isSettled(st.mtimeMs, statStartedAt) ? { path: file, mtimeMs: st.mtimeMs, size: st.size } : undefined;
}

/** The tool from the cache when the file's fingerprint is the cached one, else undefined (read the file). */
function cachedTool(d: FolderDeps, bundleId: string, source: FileFingerprint | undefined): ReadTool | undefined {
  const hit = source && d.cache?.get(source.path);
  if (!hit || hit.mtimeMs !== source.mtimeMs || hit.size !== source.size) return undefined;
  const tool = toolFromCache(hit, bundleId);
  return tool && { ok: { tool, path: source.path, mtimeMs: source.mtimeMs, origin: { source, doc: hit.doc } }, notices: [] };
}

async function readTool(d: FolderDeps, bundleId: string, file: string, st: FileStat | undefined, source: FileFingerprint | undefined): Promise<ReadTool> {
  if (st && !st.isFile) return { skip: unreadableNotice(file, 'tool file', 'it is a folder, not a file') };
  const r = await readDataFile(d.fs, file);
  if (r.kind === 'missing') return { skip: undefined }; // removed meanwhile: not a problem
  if (r.kind === 'unreadable') return { skip: unreadableNotice(file, 'tool file', r.message) };
  if (r.kind === 'corrupt') return { bad: { path: file, message: `tool file: ${r.message}`, mtimeMs: st?.mtimeMs } };
  const checked = checkToolFile(r.value, bundleId, path.basename(file));
  if ('problem' in checked) return { bad: { path: file, message: `tool file: ${checked.problem}`, mtimeMs: st?.mtimeMs } };
  const notices = servedNotices(file, 'tool file', checked.extra, r.badUtf8);
  // A file with something to report is read on every open, so its report survives a restart.
  const origin = source && notices.length === 0 ? { source, doc: toolDoc(checked.ok) } : undefined;
  return { ok: { tool: checked.ok, path: file, mtimeMs: st?.mtimeMs, origin }, notices };
}

/** A script tool's `.js` against the SHA-256 its `.json` recorded; a mismatch is reported and marks the tool. */
async function checkScript(d: FolderDeps, t: LoadedTool, notices: Notice[]): Promise<void> {
  const file = scriptPathOf(t.path);
  const state = t.tool.script ? await readScriptFile(d.fs, file, t.tool.script.sha256) : { ok: false as const, problem: 'it has no script spec' };
  if (state.ok) return;
  t.scriptProblem = state.problem;
  notices.push({ kind: 'invalid-config', path: file, message: `script tool '${t.tool.slug}' version '${t.tool.version}' is switched off: ${state.problem}` });
}

function bundleState(r: DataFile, bundleId: string, hasTools: boolean, file: string): Pick<FolderContents, 'bundle' | 'damaged' | 'notices'> {
  if (r.kind === 'missing') return hasTools ? { damaged: { message: 'bundle.json is missing', unreadable: false }, notices: [] } : { notices: [] };
  if (r.kind === 'unreadable') {
    // Without tools there is nothing to serve (e.g. a stray file named like a bundle id): reported only.
    if (!hasTools) return { notices: [unreadableNotice(file, 'bundle.json', r.message)] };
    return { damaged: { message: `bundle.json cannot be read (${r.message})`, unreadable: true }, notices: [] };
  }
  if (r.kind === 'corrupt') return { damaged: { message: `bundle.json: ${r.message}`, unreadable: false }, notices: [] };
  const checked = checkBundleFile(r.value, bundleId);
  if ('problem' in checked) return { damaged: { message: `bundle.json ${checked.problem}`, unreadable: false }, notices: [] };
  return { bundle: checked.ok, notices: servedNotices(file, 'bundle.json', checked.extra, r.badUtf8) };
}

/** One user bundle folder, read without a lock. */
export async function readBundleFolder(d: FolderDeps, bundleId: string): Promise<FolderContents> {
  const notices: Notice[] = [];
  const toolsDir = d.layout.toolsDir(bundleId);
  const bundleFile = d.layout.bundleFile(bundleId);
  // The listing and bundle.json are read at once; neither depends on the other.
  const [listed, bundleRead] = await Promise.all([
    listDir(d.fs, toolsDir).then(
      (names) => ({ names }),
      (e: unknown) => ({ error: e as Error }),
    ),
    readDataFile(d.fs, bundleFile),
  ]);
  let toolNames: string[] = [];
  if ('names' in listed) toolNames = listed.names.filter(isDataFileName);
  else notices.push(unreadableNotice(toolsDir, 'the tools folder', listed.error.message));
  const state = bundleState(bundleRead, bundleId, toolNames.length > 0, bundleFile);
  notices.push(...state.notices);
  if (!state.bundle && !state.damaged) return { tools: [], bad: [], notices };

  // A listed name is one path segment (never '.' or '..'), so joining is concatenating.
  const files = toolNames.map((name) => `${toolsDir}${path.sep}${name}`);
  const statStartedAt = Date.now(); // the wall clock, like the files' mtimes
  const stats = await statFiles(d.fs, files, STAT_CONCURRENCY);
  const sources = files.map((file, k) => settledSource(file, stats[k], statStartedAt));
  const results = sources.map((source) => cachedTool(d, bundleId, source));
  const misses = results.flatMap((hit, k) => (hit ? [] : [k]));
  const readSlots = d.readSlots ?? slots(READ_CONCURRENCY);
  await Promise.all(
    misses.map((k) =>
      readSlots(async () => {
        results[k] = await readTool(d, bundleId, files[k]!, stats[k], sources[k]);
      }),
    ),
  );
  const tools: LoadedTool[] = [];
  const bad: BadFile[] = [];
  for (const t of results as ReadTool[]) {
    if ('ok' in t) {
      tools.push(t.ok);
      notices.push(...t.notices);
    } else if ('bad' in t) bad.push(t.bad);
    else if (t.skip) notices.push(t.skip);
  }
  await Promise.all(tools.map((t) => (t.tool.type === 'script' ? readSlots(() => checkScript(d, t, notices)) : undefined)));
  const damaged = state.damaged && { ...state.damaged, mtimeMs: (await d.fs.stat(bundleFile).catch(() => undefined))?.mtimeMs };
  return { bundle: state.bundle, damaged, tools, bad, notices };
}

/** Control characters other than tab and newline, which a description may not hold, as spaces. */
function withoutControls(text: string): string {
  return [...text].map((c) => (c.charCodeAt(0) < 0x20 && c !== '\t' && c !== '\n') || c === '\u007f' ? ' ' : c).join('');
}

/**
 * The bundle a damaged folder's tools are served under: disabled (its own switch cannot be
 * read, so it is not assumed on), with the reason in its description.
 */
export function placeholderBundle(bundleId: string, tools: readonly LoadedTool[], why: string): Bundle {
  const stamp = tools.map((t) => t.tool.createdAt).sort()[0] ?? '1970-01-01T00:00:00.000Z';
  const description = `${why}. Its tools are listed under this placeholder (disabled) until bundle.json is fixed by hand or replaced by a PUT of the bundle.`;
  return {
    id: bundleId,
    slug: 'damaged-bundle',
    displayName: 'Damaged bundle',
    description: withoutControls(description).slice(0, 16_000),
    isEnabled: false,
    isBuiltIn: false,
    createdAt: stamp,
    modifiedAt: stamp,
  };
}
