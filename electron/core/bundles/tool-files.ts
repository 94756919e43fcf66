/**
 * Loading tool files without reading them, when a cache of them is at hand.
 *
 * Opening a data folder of 10k tools spends most of its time reading, parsing and
 * validating every file. The search index keeps, for each tool, the fingerprint of the
 * file it came from ({path, mtimeMs, size}) and the validated record as JSON (the doc).
 * The scan stats every tool file (cheap) and, when the file's fingerprint equals the
 * cached one, takes the record from the doc (JSON.parse, no schema validation: it was
 * validated when it was cached) instead of reading the file. Anything else (a new, changed
 * or unreadable file, a cache entry that does not look right) is read and validated as
 * without a cache, so corrupt files are still found, reported and set aside.
 *
 * Two rules keep the cache honest:
 * - Settled fingerprints only. A file's mtime has a granularity (2 s on FAT, 1 s on HFS+,
 *   coarser on some network shares), so a file rewritten in the same tick with the same
 *   size keeps its fingerprint. A fingerprint is therefore only recorded (and only
 *   trusted) when the file's mtime is more than SETTLE_MS older than the moment the file
 *   was stat'ed, before it was read: any later write then gets a later mtime, whatever
 *   the granularity. Files written less than SETTLE_MS ago (our own writes included) get
 *   no fingerprint, so the next open reads them again. The stat comes before the read, so
 *   a write racing the read leaves a fingerprint older than the content, never newer.
 * - The doc format. A doc is the record as the current validation produced it; when the
 *   validation changes, old docs must not be trusted. toolDocFormat() names the format:
 *   TOOL_DOC_VERSION (bump it when checkToolFile in scan-folder.ts changes what it accepts) plus
 *   a hash of ToolSchema's JSON Schema (so a new field, default or enum value in
 *   shared/model/tool.ts changes the format by itself). The index is rebuilt from the
 *   files when the format of its docs differs.
 *
 * What this does not catch: a file whose content is changed while its size and mtime are
 * put back by hand (touch -d, utimes). Copying a data folder changes mtimes, which only
 * costs one full read.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { z } from 'zod';
import { ToolSchema, type Tool } from '../../../shared/model/tool';
import { nodeFs, type StoreFs } from '../lib/durable-fs';

/** Where a loaded tool came from: its file's fingerprint and the record as JSON. */
export interface FileFingerprint {
  path: string;
  mtimeMs: number;
  size: number;
}

export interface ToolOrigin {
  source: FileFingerprint;
  /** toolDoc() of the record. */
  doc: string;
}

/** A cached tool file: the fingerprint it had and the validated record it held. */
export interface CachedToolFile {
  mtimeMs: number;
  size: number;
  doc: string;
  /** The tool's id, when known: a doc with another id is not used. */
  id?: string;
  /** The record already parsed from `doc`, when at hand (a reload reuses the catalog's). */
  tool?: Tool;
}

/** Read-only, by the file's absolute path. A Map fits. */
export interface ToolFileCache {
  get(path: string): CachedToolFile | undefined;
}

/** A fingerprint is trusted only when the file's mtime was this much older than its stat. */
export const SETTLE_MS = 2000;

/** Bump when what checkToolFile (scan-folder.ts) accepts or returns changes (a file it serves with a problem is never cached). */
const TOOL_DOC_VERSION = 1;

let format: string | undefined;

/** The name of the current doc format (see above). */
export function toolDocFormat(): string {
  if (format === undefined) {
    let shape = 'unhashed';
    try {
      const schema = JSON.stringify(z.toJSONSchema(ToolSchema, { unrepresentable: 'any', io: 'output' }));
      shape = createHash('sha256').update(schema).digest('hex').slice(0, 16);
    } catch {
      // Not expected; TOOL_DOC_VERSION alone then names the format.
    }
    format = `tool-doc-${TOOL_DOC_VERSION}-${shape}`;
  }
  return format;
}

/** The doc of a validated record. */
export function toolDoc(t: Tool): string {
  return JSON.stringify(t);
}

/** Whether a file with this mtime, stat'ed after `statStartedAt` (wall clock, ms), may be trusted by its fingerprint. */
export function isSettled(mtimeMs: number, statStartedAt: number): boolean {
  return statStartedAt - mtimeMs > SETTLE_MS;
}

export interface FileStat {
  mtimeMs: number;
  size: number;
  isFile: boolean;
}

/**
 * The record of a cache entry whose fingerprint matched, or undefined when the entry does
 * not look like a tool of this folder (a stale or damaged cache): the file is then read.
 */
export function toolFromCache(hit: CachedToolFile, bundleId: string): Tool | undefined {
  let t: Tool | undefined = hit.tool;
  if (!t) {
    try {
      t = JSON.parse(hit.doc) as Tool;
    } catch {
      return undefined;
    }
  }
  const ok =
    typeof t === 'object' &&
    t !== null &&
    typeof t.id === 'string' &&
    (hit.id === undefined || t.id === hit.id) &&
    t.bundleId === bundleId &&
    typeof t.slug === 'string' &&
    typeof t.version === 'string' &&
    t.isBuiltIn === false;
  return ok ? t : undefined;
}

/** Synchronous stats run in slices of about this long, the event loop served between them. */
const STAT_SLICE_MS = 4;

/**
 * Stats many files; undefined for a file that cannot be stat'ed (the read that follows
 * reports why, as it would without a stat). With the real fs the stats are synchronous,
 * in slices of STAT_SLICE_MS with the event loop served between them: a stat of a file in
 * the page cache costs a few microseconds, several times less than the request, thread-pool
 * hop and callback of an asynchronous one. An injected fs is asked through its promise API,
 * at most `limit` at a time.
 */
export async function statFiles(sfs: StoreFs, files: readonly string[], limit: number): Promise<(FileStat | undefined)[]> {
  if (sfs.stat === nodeFs.stat) return statFilesSync(files);
  const out = new Array<FileStat | undefined>(files.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < files.length) {
      const k = next++;
      const s = await sfs.stat(files[k]!).catch(() => undefined);
      out[k] = s && { mtimeMs: s.mtimeMs, size: s.size, isFile: s.isFile() };
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, files.length) }, lane));
  return out;
}

async function statFilesSync(files: readonly string[]): Promise<(FileStat | undefined)[]> {
  const out = new Array<FileStat | undefined>(files.length);
  let k = 0;
  while (k < files.length) {
    const until = performance.now() + STAT_SLICE_MS;
    do {
      out[k] = statOne(files[k]!);
      k++;
    } while (k < files.length && performance.now() < until);
    if (k < files.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

function statOne(file: string): FileStat | undefined {
  try {
    const s = fs.statSync(file, { throwIfNoEntry: false });
    return s && { mtimeMs: s.mtimeMs, size: s.size, isFile: s.isFile() };
  } catch {
    return undefined;
  }
}
