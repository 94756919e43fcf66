/**
 * A bundle as a ZIP file: export, and import with a validation report.
 *
 * Layout (format 'toolsmith-bundle', version 1; 2 when it carries test cases; 3 when it carries eval cases):
 *   toolsmith-bundle.json          {"format":"toolsmith-bundle","version":1|2|3,"bundle":{slug,displayName,description,isEnabled}}
 *   tools/<slug>@<version>.json    the tool's put body: displayName, description, tags, type,
 *                                  argSchema, outputSchema, local|http|sequence|mcp|script (a
 *                                  script tool's with its source: {source, limits}), isEnabled,
 *                                  requiresApproval when set
 *   testcases/<slug>.json          the saved test cases of the tool slug (all its versions share
 *                                  them): {"cases":[{name,args,assertions}]} (zip-testcases.ts)
 *   evals.json                     the bundle's eval cases: {"cases":[...]} (zip-evals.ts)
 * Version 2 only adds testcases/, version 3 only evals.json: an archive is written with the
 * lowest version that holds what it carries, so an older Toolsmith still reads it (and says
 * "update the app" for one that has what it does not know).
 * No ids and no timestamps travel: an import always makes a NEW bundle (a new UUIDv7) whose
 * tools and test cases get new ids and times. Entries are stored in name order with a fixed
 * time (the bundle's modifiedAt), so exporting the same bundle twice gives the same bytes.
 *
 * Import, in this order, and nothing is written before the last step:
 * 1. The archive: at most MAX_IMPORT_ZIP_BYTES. Its central directory is read here (not by
 *    fflate's unzipSync: that inflates into a buffer of the size the header declares and, when
 *    the data is longer, silently keeps inflating into nothing, so the real size can be neither
 *    counted nor bounded). Refused as a whole — `nothingImported`, `invalid` says why — when an
 *    entry name is absolute (`/x`, `C:x`), has a `..`, `.` or empty segment, a backslash, NUL
 *    or another control character, or is not part of the layout; when an entry declares more
 *    than MAX_ENTRY_BYTES uncompressed or all together more than MAX_TOTAL_BYTES; when it is
 *    encrypted, ZIP64, split, uses a method other than stored/deflate, or its local and
 *    central headers disagree. These checks read headers only: nothing is inflated.
 * 2. Each entry is inflated with fflate's streaming Inflate, 16 KiB of input at a time, and
 *    the output counted: an entry that inflates past the size it declared is refused at once
 *    (work and memory stay within the caps whatever the headers claim); the size and CRC-32
 *    must then match the header. A damaged or lying entry refuses the whole archive.
 * 3. The manifest must be valid (BundlePutBodySchema); otherwise nothing is imported.
 * 4. Each tool entry: a slug@version name that follows the label rules, UTF-8 JSON, a body
 *    that passes ToolPutBodySchema and whose schemas compile (what putTool checks). An entry
 *    that fails is listed in `invalid` and skipped. A <slug,version> that occurs more than
 *    once in the archive is listed in `conflicts` and every copy is skipped (there is no way
 *    to tell which one was meant).
 *    Each test-case entry (zip-testcases.ts): a `testcases/<slug>.json` name that follows the
 *    slug rule, at most MAX_TESTCASES_ENTRY_BYTES declared (skipped, never inflated, past it),
 *    UTF-8 JSON {"cases":[...]}, each case checked as 'testcases.save' checks one; the entry must
 *    name a tool slug imported from the same archive. A bad entry, or a bad case, is listed in
 *    `invalid` and skipped; a slug given twice (e.g. in NFC and NFD) is skipped, both copies.
 *    The eval-case entry (zip-evals.ts): at most MAX_EVALS_ENTRY_BYTES declared, UTF-8 JSON
 *    {"cases":[...]}, each case checked as 'evals.save' checks one, and refused when it names a
 *    tool of its own bundle the archive does not bring; refused cases are listed in `invalid`.
 * 5. Decision: invalid and conflicting entries are reported and skipped; the valid ones are
 *    imported all or nothing. The bundle's slug and display name are made free first
 *    (bundle-name.ts: `weather` → `weather-2`, "Weather" → "Weather (2)" when a bundle has that
 *    slug or name; `renamed` in the report says so). Imports into one store run one at a time,
 *    so two at once cannot both take `weather-2`. The bundle is created (enabled: the store
 *    adds tools to enabled bundles only), the tools are put one by one, then the test cases and
 *    the eval cases, and a bundle the manifest says is disabled is disabled last. If a write
 *    fails, the eval cases, test cases and tools written are deleted, then the bundle (a soft
 *    delete: the reaper removes the empty bundle folder two days later), and the report says nothing was imported and
 *    why. While an import runs, other readers may see its tools appear; the end state is all
 *    or nothing. If the archive has tool entries but none is
 *    valid, no bundle is created. An archive with no tool entries makes an empty bundle.
 * 6. The report's `asks` names each imported tool that will ask before a model or a served
 *    client runs it, and why (a tool wrapping files.write asks, whatever its file says; a script
 *    tool asks before its first run, as its source was not written in this app).
 * A script tool is exported with its source, read from its file and checked against the SHA-256
 * its version recorded: a script file missing or changed by hand stops the export with the reason.
 */
import { crc32 } from 'node:zlib';
import { Inflate, zipSync } from 'fflate';
import { BundlePutBodySchema, type BundlePutBody } from '../../../shared/model/bundle';
import { TOOL_BACKEND_FIELDS, TOOL_DEFINITION_FIELDS, ToolPutBodySchema, type ToolPutBody, type ToolView } from '../../../shared/model/tool';
import { approvalOf, type ApprovalReason } from '../../../shared/model/tool-approval';
import { MAX_IMPORT_ZIP_BYTES, type ImportReport } from '../../../shared/model/transfer';
import { labelViolation, nfc, toolKey } from '../../../shared/model/validation';
import { AppError } from '../../../shared/errors';
import { schemaCompileViolation } from '../bundles/schema-check';
import type { ToolStore } from '../bundles/tool-store';
import type { EvalCaseStore } from '../evals/eval-case-store';
import type { EvalCaseBody } from '../../../shared/model/evals';
import { allBundles } from '../testcases/all-bundles';
import type { TestCaseInput, TestCaseStore } from '../testcases/test-case-store';
import { freeBundleName, type BundleName } from './bundle-name';
import {
  checkTestCaseDoc,
  isTestCaseEntryName,
  MAX_TESTCASES_ENTRY_BYTES,
  TESTCASES_DIR,
  testCaseEntryName,
  testCaseEntryText,
  testCaseSlug,
} from './zip-testcases';
import { EVALS_ENTRY, MAX_EVALS_ENTRY_BYTES, checkEvalsDoc, evalsEntryText } from './zip-evals';

export const BUNDLE_MANIFEST = 'toolsmith-bundle.json';
export const BUNDLE_FORMAT = 'toolsmith-bundle';
/** The newest format this app reads and writes: 2 adds testcases/, 3 adds evals.json (each written only when there is some). */
export const BUNDLE_FORMAT_VERSION = 3;
export const TOOLS_DIR = 'tools/';
/** Largest uncompressed entry (declared or actual). */
export const MAX_ENTRY_BYTES = 16 * 1024 * 1024;
/** Largest uncompressed total of all entries. */
export const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
/** Most entries an archive may have. */
export const MAX_ENTRIES = 2000;
/** Compressed input pushed to the inflater at once: bounds the output of one push (~1032x). */
const INFLATE_CHUNK = 16 * 1024;
/** How many refusal reasons a report lists at most. */
const MAX_REASONS = 50;

export interface BundleManifest {
  format: typeof BUNDLE_FORMAT;
  version: 1 | 2 | 3;
  bundle: BundlePutBody;
}

export interface ExportedBundle {
  fileName: string;
  bytes: Uint8Array;
}

export interface ImportDeps {
  /** The new bundle's id: a UUIDv7. */
  newId: () => string;
  /** Where the archive's test cases go. */
  testCases: TestCaseStore;
  /** Where the archive's eval cases go (absent: an archive's evals.json is skipped, and said so). */
  evalCases?: EvalCaseStore;
}

/** The body a tool was put with: no ids, no timestamps, no store-owned fields; a script tool's with its source. */
export function toolPutBody(t: ToolView, scriptSource?: string): ToolPutBody {
  const body: Record<string, unknown> = {};
  for (const k of TOOL_DEFINITION_FIELDS) body[k] = t[k];
  for (const k of TOOL_BACKEND_FIELDS) if (t[k] !== undefined) body[k] = t[k];
  if (t.script) {
    const { sha256: _stored, ...limits } = t.script;
    body.script = { source: scriptSource ?? '', ...limits };
  }
  if (t.requiresApproval) body.requiresApproval = true;
  // A local tool whose function is not registered is shown disabled; export what is shown.
  body.isEnabled = t.isEnabled;
  return body as ToolPutBody;
}

export function toolEntryName(slug: string, version: string): string {
  return `${TOOLS_DIR}${nfc(slug)}@${nfc(version)}.json`;
}

const encoder = new TextEncoder();

/** A DOS date (1980–2099) for the entries: the bundle's modifiedAt when it fits. */
function entryTime(iso: string): Date {
  const d = new Date(iso);
  const y = d.getUTCFullYear();
  return Number.isNaN(d.getTime()) || y < 1981 || y > 2098 ? new Date(Date.UTC(1981, 0, 1)) : d;
}

/**
 * The bundle, its tools, their saved test cases and the bundle's eval cases as a ZIP. Throws
 * NOT_FOUND for an unknown bundle, PAYLOAD_TOO_LARGE when it could not be imported again.
 */
export async function exportBundle(store: ToolStore, testCases: TestCaseStore, bundleId: string, evalCases?: Pick<EvalCaseStore, 'list'>): Promise<ExportedBundle> {
  const bundle = store.getBundle(bundleId);
  const tools = store.toolsOf(bundle.id).sort((a, b) => (toolKey(a.slug, a.version) < toolKey(b.slug, b.version) ? -1 : 1));
  const toolSlugs = new Set(tools.map((t) => nfc(t.slug)));
  const cases = (await testCases.listBundle(bundle.id)).filter((c) => toolSlugs.has(nfc(c.slug)));
  const evals = evalCases ? await evalCases.list(bundle.id) : [];
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    version: evals.length > 0 ? 3 : cases.length > 0 ? 2 : 1,
    bundle: { slug: bundle.slug, displayName: bundle.displayName, description: bundle.description, isEnabled: bundle.isEnabled },
  };
  const files: Record<string, Uint8Array> = { [BUNDLE_MANIFEST]: encoder.encode(`${JSON.stringify(manifest, null, 2)}\n`) };
  for (const t of tools) files[toolEntryName(t.slug, t.version)] = encoder.encode(`${JSON.stringify(toolPutBody(t, await exportedSource(store, t)), null, 2)}\n`);
  for (const c of [...cases].sort((a, b) => (nfc(a.slug) < nfc(b.slug) ? -1 : 1))) {
    const entry = encoder.encode(testCaseEntryText(c.cases));
    if (entry.length > MAX_TESTCASES_ENTRY_BYTES) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `the test cases of '${c.slug}' are ${entry.length} bytes as JSON; a bundle ZIP carries at most ${MiB(MAX_TESTCASES_ENTRY_BYTES)} of them per tool: delete or shrink some of its cases, then export again`,
        { slug: c.slug, bytes: entry.length, limit: MAX_TESTCASES_ENTRY_BYTES },
      );
    }
    files[testCaseEntryName(c.slug)] = entry;
  }
  if (evals.length > 0) {
    const entry = encoder.encode(evalsEntryText(evals));
    if (entry.length > MAX_EVALS_ENTRY_BYTES) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `the bundle's eval cases are ${entry.length} bytes as JSON; a bundle ZIP carries at most ${MiB(MAX_EVALS_ENTRY_BYTES)} of them: delete or shrink some, then export again`,
        { bytes: entry.length, limit: MAX_EVALS_ENTRY_BYTES },
      );
    }
    files[EVALS_ENTRY] = entry;
  }
  const bytes = zipSync(files, { level: 6, mtime: entryTime(bundle.modifiedAt) });
  if (bytes.length > MAX_IMPORT_ZIP_BYTES) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `the bundle's ZIP would be ${bytes.length} bytes; an import accepts at most ${MAX_IMPORT_ZIP_BYTES}: split the bundle into smaller ones`,
      { bytes: bytes.length, limit: MAX_IMPORT_ZIP_BYTES },
    );
  }
  return { fileName: `${bundle.slug}.toolsmith-bundle.zip`, bytes };
}

/** A script tool's source as its version saved it; the export stops when its file is missing or was changed. */
async function exportedSource(store: ToolStore, t: ToolView): Promise<string | undefined> {
  if (t.type !== 'script') return undefined;
  const s = await store.scriptSource(t.bundleId, t.slug, t.version);
  if (!s.ok) throw new AppError('UNAVAILABLE', `'${t.slug}' version '${t.version}' cannot be exported: ${s.problem}`, { slug: t.slug, version: t.version });
  return s.source;
}

// ---- reading an archive ------------------------------------------------------------------------

interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  dataStart: number;
}

/** The whole archive is refused: `reasons` name the entries (or '(archive)') and why. */
class ArchiveRefused extends Error {
  constructor(readonly reasons: { entry: string; message: string }[]) {
    super(reasons.map((r) => `${r.entry}: ${r.message}`).join('; '));
  }
}

const ARCHIVE = '(archive)';
const refuseArchive = (message: string): never => {
  throw new ArchiveRefused([{ entry: ARCHIVE, message }]);
};

const utf8 = new TextDecoder('utf-8', { fatal: true });
const MiB = (n: number) => `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

/** Why an entry name is refused, or null. */
export function entryNameProblem(name: string): string | null {
  if (name === '') return 'an entry has an empty name';
  if (name.includes('\0')) return 'the name contains NUL';
  if (/\p{Cc}/u.test(name)) return 'the name contains a control character';
  if (name.includes('\\')) return 'the name contains a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'the name is an absolute path';
  const segments = name.split('/');
  if (segments.includes('..')) return "the name contains a '..' segment (path traversal)";
  if (segments.slice(0, -1).some((s) => s === '' || s === '.') || segments[segments.length - 1] === '.') return "the name has an empty or '.' segment";
  if (name === BUNDLE_MANIFEST || name === TOOLS_DIR || name === TESTCASES_DIR || name === EVALS_ENTRY) return null;
  if (name.startsWith(TOOLS_DIR) && segments.length === 2 && name.endsWith('.json') && name.length > TOOLS_DIR.length + 5) return null;
  if (isTestCaseEntryName(name)) return null;
  return `not part of a Toolsmith bundle (expected ${BUNDLE_MANIFEST}, ${TOOLS_DIR}<slug>@<version>.json, ${TESTCASES_DIR}<slug>.json and ${EVALS_ENTRY})`;
}

/** Reads the central directory and checks every header; inflates nothing. */
function readEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (o: number) => view.getUint16(o, true);
  const u32 = (o: number) => view.getUint32(o, true);
  const len = bytes.length;
  const looksLikeZip = len >= 4 && u32(0) === 0x04034b50;
  const notZip = () => refuseArchive(looksLikeZip ? 'the ZIP archive is damaged or truncated (no central directory)' : 'this is not a ZIP archive');
  if (len < 22) return notZip();
  let eocd = -1;
  for (let i = len - 22; i >= Math.max(0, len - 22 - 0xffff); i--) {
    if (u32(i) === 0x06054b50 && i + 22 + u16(i + 20) <= len) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return notZip();
  const disk = u16(eocd + 4);
  const cdDisk = u16(eocd + 6);
  const onDisk = u16(eocd + 8);
  const count = u16(eocd + 10);
  const cdSize = u32(eocd + 12);
  const cdOffset = u32(eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) refuseArchive('ZIP64 archives are not supported (a bundle is far smaller than that format is for)');
  if (disk !== 0 || cdDisk !== 0 || onDisk !== count) refuseArchive('split (multi-part) ZIP archives are not supported');
  if (count > MAX_ENTRIES) refuseArchive(`the archive has ${count} entries; at most ${MAX_ENTRIES} are accepted`);
  if (cdOffset + cdSize > eocd) refuseArchive('the ZIP archive is damaged (its central directory lies outside the file)');

  const entries: ZipEntry[] = [];
  const reasons: { entry: string; message: string }[] = [];
  const refuse = (entry: string, message: string) => {
    if (reasons.length < MAX_REASONS) reasons.push({ entry, message });
  };
  let total = 0;
  let p = cdOffset;
  for (let k = 0; k < count; k++) {
    if (p + 46 > cdOffset + cdSize || u32(p) !== 0x02014b50) refuseArchive('the ZIP archive is damaged (a central directory entry is malformed)');
    const flags = u16(p + 8);
    const method = u16(p + 10);
    const crc = u32(p + 16);
    const compressedSize = u32(p + 20);
    const size = u32(p + 24);
    const nameLen = u16(p + 28);
    const extraLen = u16(p + 30);
    const commentLen = u16(p + 32);
    const localOffset = u32(p + 42);
    if (p + 46 + nameLen > cdOffset + cdSize) refuseArchive('the ZIP archive is damaged (a central directory entry is malformed)');
    const nameBytes = bytes.subarray(p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;

    let name: string;
    try {
      name = utf8.decode(nameBytes);
    } catch {
      refuse(`entry ${k + 1}`, 'the name is not UTF-8');
      continue;
    }
    const problem = entryNameProblem(name);
    if (problem) {
      refuse(name, problem);
      continue;
    }
    if (flags & 1) {
      refuse(name, 'the entry is encrypted');
      continue;
    }
    if (method !== 0 && method !== 8) {
      refuse(name, `the entry uses compression method ${method}; only stored (0) and deflate (8) are supported`);
      continue;
    }
    if (size === 0xffffffff || compressedSize === 0xffffffff || localOffset === 0xffffffff) {
      refuse(name, 'the entry uses ZIP64 sizes, which are not supported');
      continue;
    }
    if (size > MAX_ENTRY_BYTES) {
      refuse(name, `the entry declares ${size} bytes uncompressed; at most ${MiB(MAX_ENTRY_BYTES)} per entry are accepted`);
      continue;
    }
    total += size;
    if (method === 0 && compressedSize !== size) {
      refuse(name, 'the entry is damaged (stored, but its two sizes differ)');
      continue;
    }
    // The local header must agree with the central one: two views of one archive must not differ.
    if (localOffset + 30 > len || u32(localOffset) !== 0x04034b50) {
      refuse(name, 'the entry is damaged (its local header is missing)');
      continue;
    }
    const localFlags = u16(localOffset + 6);
    const localNameLen = u16(localOffset + 26);
    const localExtraLen = u16(localOffset + 28);
    const localName = bytes.subarray(localOffset + 30, localOffset + 30 + localNameLen);
    const sameName = localName.length === nameBytes.length && localName.every((b, i) => b === nameBytes[i]);
    const sizesInLocal = (localFlags & 8) === 0;
    if (
      !sameName ||
      u16(localOffset + 8) !== method ||
      (sizesInLocal && (u32(localOffset + 14) !== crc || u32(localOffset + 18) !== compressedSize || u32(localOffset + 22) !== size))
    ) {
      refuse(name, 'the entry is damaged or forged (its local and central headers disagree)');
      continue;
    }
    const dataStart = localOffset + 30 + localNameLen + localExtraLen;
    if (dataStart + compressedSize > cdOffset) {
      refuse(name, 'the entry is damaged (its data runs past the end of the archive)');
      continue;
    }
    entries.push({ name, method, crc, compressedSize, size, dataStart });
  }
  if (total > MAX_TOTAL_BYTES) refuse(ARCHIVE, `the entries declare ${total} bytes uncompressed in total; at most ${MiB(MAX_TOTAL_BYTES)} are accepted`);
  if (reasons.length) throw new ArchiveRefused(reasons);
  return entries;
}

class EntryTooLarge extends Error {}

/** Inflates one entry, stopping as soon as it passes its declared size; checks size and CRC-32. */
function inflateEntry(bytes: Uint8Array, e: ZipEntry): Uint8Array {
  const src = bytes.subarray(e.dataStart, e.dataStart + e.compressedSize);
  let data: Uint8Array;
  if (e.method === 0) data = src;
  else {
    const chunks: Uint8Array[] = [];
    let total = 0;
    const inflater = new Inflate((chunk) => {
      total += chunk.length;
      if (total > e.size) throw new EntryTooLarge();
      chunks.push(chunk);
    });
    try {
      if (src.length === 0) throw new Error('no data');
      for (let off = 0; off < src.length; off += INFLATE_CHUNK) {
        const end = Math.min(src.length, off + INFLATE_CHUNK);
        inflater.push(src.subarray(off, end), end === src.length);
      }
    } catch (err) {
      if (err instanceof EntryTooLarge) {
        refuseEntry(e, `the entry inflates to more than the ${e.size} bytes its header declares (a ZIP bomb?): refused`);
      }
      refuseEntry(e, `the entry is damaged (${(err as Error).message})`);
    }
    data = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      data.set(c, at);
      at += c.length;
    }
  }
  if (data.length !== e.size) refuseEntry(e, `the entry is damaged (it holds ${data.length} bytes, its header says ${e.size})`);
  if (crc32(data) >>> 0 !== e.crc >>> 0) refuseEntry(e, 'the entry is damaged (CRC-32 mismatch)');
  return data;
}

function refuseEntry(e: ZipEntry, message: string): never {
  throw new ArchiveRefused([{ entry: e.name, message }]);
}

function parseJsonEntry(data: Uint8Array): unknown {
  let text = utf8.decode(data);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return JSON.parse(text);
}

function zodMessage(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`)
    .join('; ');
}

function readManifest(bytes: Uint8Array, entries: ZipEntry[]): BundlePutBody {
  const found = entries.filter((e) => e.name === BUNDLE_MANIFEST);
  if (found.length === 0) refuseArchive(`${BUNDLE_MANIFEST} is missing: this is not a Toolsmith bundle`);
  if (found.length > 1) refuseArchive(`${BUNDLE_MANIFEST} occurs ${found.length} times`);
  const bad = (message: string): never => {
    throw new ArchiveRefused([{ entry: BUNDLE_MANIFEST, message }]);
  };
  let doc: unknown;
  try {
    doc = parseJsonEntry(inflateEntry(bytes, found[0]!));
  } catch (e) {
    if (e instanceof ArchiveRefused) throw e;
    return bad(`not valid UTF-8 JSON (${(e as Error).message})`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return bad('must be a JSON object');
  const m = doc as Record<string, unknown>;
  if (m.format !== BUNDLE_FORMAT) return bad(`"format" must be "${BUNDLE_FORMAT}"`);
  if (typeof m.version !== 'number' || !Number.isInteger(m.version)) return bad('"version" must be an integer');
  if (m.version > BUNDLE_FORMAT_VERSION) return bad(`was made by a newer Toolsmith (format version ${m.version}; this one reads ${BUNDLE_FORMAT_VERSION}): update the app`);
  if (m.version < 1) return bad(`format version ${m.version} is not supported`);
  const body = BundlePutBodySchema.safeParse(m.bundle);
  if (!body.success) return bad(`"bundle" is invalid: ${zodMessage(body.error.issues)}`);
  return body.data;
}

interface ToolCandidate {
  entry: string;
  slug: string;
  version: string;
  body: ToolPutBody;
}

/** slug and version from `tools/<slug>@<version>.json`, or why not. */
function toolAddress(entry: string): { slug: string; version: string } | string {
  const base = entry.slice(TOOLS_DIR.length, -'.json'.length);
  const parts = base.split('@');
  if (parts.length !== 2) return `the file name must be <slug>@<version>.json`;
  const [slug, version] = parts as [string, string];
  const v = labelViolation('slug', slug) ?? labelViolation('version', version);
  if (v) return `in the file name: ${v.message}`;
  return { slug: nfc(slug), version: nfc(version) };
}

function checkTool(bytes: Uint8Array, e: ZipEntry): ToolCandidate | string {
  const address = toolAddress(e.name);
  if (typeof address === 'string') return address;
  let doc: unknown;
  try {
    doc = parseJsonEntry(inflateEntry(bytes, e));
  } catch (err) {
    if (err instanceof ArchiveRefused) throw err;
    return `not valid UTF-8 JSON (${(err as Error).message})`;
  }
  const parsed = ToolPutBodySchema.safeParse(doc);
  if (!parsed.success) return zodMessage(parsed.error.issues);
  const schemaProblem = schemaCompileViolation(parsed.data.argSchema, 'argSchema') ?? schemaCompileViolation(parsed.data.outputSchema, 'outputSchema');
  if (schemaProblem) return schemaProblem.message;
  return { entry: e.name, ...address, body: doc as ToolPutBody };
}

function refusedReport(reasons: { entry: string; message: string }[]): ImportReport {
  return { imported: [], conflicts: [], invalid: reasons, nothingImported: true };
}

interface TestCaseCandidate {
  entry: string;
  slug: string;
  cases: TestCaseInput[];
}

/** A test-case entry checked (zip-testcases.ts): the cases to import, and problems for `invalid`. */
function checkTestCases(bytes: Uint8Array, e: ZipEntry, invalid: { entry: string; message: string }[]): TestCaseCandidate | undefined {
  const address = testCaseSlug(e.name);
  if (typeof address === 'string') {
    invalid.push({ entry: e.name, message: address });
    return undefined;
  }
  if (e.size > MAX_TESTCASES_ENTRY_BYTES) {
    invalid.push({ entry: e.name, message: `the entry declares ${e.size} bytes uncompressed; the test cases of one tool may be at most ${MiB(MAX_TESTCASES_ENTRY_BYTES)}: its test cases were skipped` });
    return undefined;
  }
  let doc: unknown;
  try {
    doc = parseJsonEntry(inflateEntry(bytes, e));
  } catch (err) {
    if (err instanceof ArchiveRefused) throw err;
    invalid.push({ entry: e.name, message: `not valid UTF-8 JSON (${(err as Error).message})` });
    return undefined;
  }
  const checked = checkTestCaseDoc(doc);
  if (typeof checked === 'string') {
    invalid.push({ entry: e.name, message: checked });
    return undefined;
  }
  for (const message of checked.refused) invalid.push({ entry: e.name, message });
  return { entry: e.name, slug: address.slug, cases: checked.cases };
}

/** Imports into one store, one at a time: the name an import picks stays free until it is written. */
const importQueues = new WeakMap<ToolStore, Promise<unknown>>();

function oneAtATime<T>(store: ToolStore, fn: () => Promise<T>): Promise<T> {
  const run = (importQueues.get(store) ?? Promise.resolve()).then(fn, fn);
  importQueues.set(store, run.catch(() => undefined));
  return run;
}

/** Slug and display name of every bundle there (enabled or not; soft-deleted ones are gone from view). */
function bundleNames(store: ToolStore): BundleName[] {
  return allBundles(store).map((b) => ({ slug: b.slug, displayName: b.displayName }));
}

/**
 * Imports a bundle ZIP as a new bundle, renamed when its slug or name is taken. Never throws
 * for bad input: a refused archive is a report with `nothingImported: true` and the reasons in
 * `invalid`. Store errors other than a failed write (e.g. a closed store) are thrown.
 */
export async function importBundle(store: ToolStore, bytes: Uint8Array, deps: ImportDeps): Promise<ImportReport> {
  if (bytes.length > MAX_IMPORT_ZIP_BYTES) {
    return refusedReport([{ entry: ARCHIVE, message: `the archive is ${bytes.length} bytes; at most ${MiB(MAX_IMPORT_ZIP_BYTES)} are accepted` }]);
  }
  let manifest: BundlePutBody;
  const candidates: ToolCandidate[] = [];
  const caseCandidates: TestCaseCandidate[] = [];
  const invalid: { entry: string; message: string }[] = [];
  let toolEntries = 0;
  let evalsDoc: { doc: unknown; skip?: true } | undefined;
  try {
    const entries = readEntries(bytes);
    manifest = readManifest(bytes, entries);
    for (const e of entries) {
      if (e.name === BUNDLE_MANIFEST || e.name === TOOLS_DIR || e.name === TESTCASES_DIR) continue;
      if (e.name === EVALS_ENTRY) {
        evalsDoc = readEvalsEntry(bytes, e, invalid, evalsDoc !== undefined);
        continue;
      }
      if (e.name.startsWith(TESTCASES_DIR)) {
        const found = checkTestCases(bytes, e, invalid);
        if (found) caseCandidates.push(found);
        continue;
      }
      toolEntries++;
      const checked = checkTool(bytes, e);
      if (typeof checked === 'string') invalid.push({ entry: e.name, message: checked });
      else candidates.push(checked);
    }
  } catch (e) {
    if (e instanceof ArchiveRefused) return refusedReport(e.reasons);
    throw e;
  }

  // The same <slug,version> twice: every copy is skipped.
  const byKey = new Map<string, ToolCandidate[]>();
  for (const c of candidates) byKey.set(toolKey(c.slug, c.version), [...(byKey.get(toolKey(c.slug, c.version)) ?? []), c]);
  const conflicts: string[] = [];
  const valid: ToolCandidate[] = [];
  for (const group of byKey.values()) {
    if (group.length > 1) conflicts.push(`${group[0]!.slug}@${group[0]!.version}`);
    else valid.push(group[0]!);
  }
  valid.sort((a, b) => (toolKey(a.slug, a.version) < toolKey(b.slug, b.version) ? -1 : 1));
  const cases = testCasesToImport(caseCandidates, new Set(valid.map((c) => c.slug)), invalid);
  const evalCases = evalsToImport(evalsDoc, new Set(valid.map((c) => c.slug)), invalid, deps.evalCases !== undefined);

  if (toolEntries > 0 && valid.length === 0) return { bundleSlug: manifest.slug, imported: [], conflicts, invalid, nothingImported: true };

  return oneAtATime(store, async () => {
    const wanted = { slug: manifest.slug, displayName: manifest.displayName };
    const name = freeBundleName(wanted, bundleNames(store));
    const renamed = name.slug !== wanted.slug || name.displayName !== wanted.displayName ? { renamed: { from: wanted, to: name } } : {};
    const bundleId = deps.newId();
    const written: ToolCandidate[] = [];
    const casesWritten: TestCaseCandidate[] = [];
    let evalsWritten = false;
    let bundleCreated = false;
    let at: string = BUNDLE_MANIFEST;
    try {
      // The store adds tools to enabled bundles only: a disabled one is disabled at the end.
      await store.putBundle(bundleId, { ...manifest, ...name, isEnabled: true });
      bundleCreated = true;
      for (const c of valid) {
        at = c.entry;
        await store.putTool(bundleId, c.slug, c.version, c.body);
        written.push(c);
      }
      for (const c of cases) {
        at = c.entry;
        await deps.testCases.addAll(bundleId, c.slug, c.cases);
        casesWritten.push(c);
      }
      if (evalCases.length && deps.evalCases) {
        at = EVALS_ENTRY;
        evalsWritten = true;
        await deps.evalCases.addAll(bundleId, evalCases);
      }
      at = BUNDLE_MANIFEST;
      if (!manifest.isEnabled) await store.patchBundle(bundleId, { isEnabled: false });
    } catch (e) {
      const evalsUndo = evalsWritten && deps.evalCases ? await deps.evalCases.removeAll(bundleId).then(() => '', (err: unknown) => ` (but its eval cases could not be removed: ${(err as Error).message})`) : '';
      const undo = (await rollback(store, deps.testCases, bundleId, written, casesWritten, bundleCreated)) + evalsUndo;
      const message = `${e instanceof Error ? e.message : String(e)}; the import was undone: nothing was imported${undo}`;
      return { bundleSlug: name.slug, imported: [], conflicts, invalid: [...invalid, { entry: at, message }], ...renamed, nothingImported: true };
    }
    const asks = asking(store, bundleId, written);
    const testCases = casesWritten.map((c) => ({ slug: c.slug, count: c.cases.length }));
    return {
      bundleId,
      bundleSlug: name.slug,
      imported: written.map((c) => `${c.slug}@${c.version}`),
      conflicts,
      invalid,
      ...(asks.length ? { asks } : {}),
      ...renamed,
      ...(testCases.length ? { testCases } : {}),
      ...(evalsWritten ? { evalCases: evalCases.length } : {}),
      nothingImported: false,
    };
  });
}

/** The eval-case entry, read (its cases are checked once the archive's tools are known); a second one is refused. */
function readEvalsEntry(bytes: Uint8Array, e: ZipEntry, invalid: { entry: string; message: string }[], seen: boolean): { doc: unknown; skip?: true } {
  if (seen) {
    invalid.push({ entry: e.name, message: `${EVALS_ENTRY} occurs more than once in the archive; no eval case was imported` });
    return { doc: null, skip: true };
  }
  if (e.size > MAX_EVALS_ENTRY_BYTES) {
    invalid.push({ entry: e.name, message: `the entry declares ${e.size} bytes uncompressed; a bundle's eval cases may be at most ${MiB(MAX_EVALS_ENTRY_BYTES)}: they were skipped` });
    return { doc: null, skip: true };
  }
  try {
    return { doc: parseJsonEntry(inflateEntry(bytes, e)) };
  } catch (err) {
    if (err instanceof ArchiveRefused) throw err;
    invalid.push({ entry: e.name, message: `not valid UTF-8 JSON (${(err as Error).message})` });
    return { doc: null, skip: true };
  }
}

/** The eval cases to write: those of the entry that pass their checks and name only tools the archive brings. */
function evalsToImport(found: { doc: unknown; skip?: true } | undefined, toolSlugs: Set<string>, invalid: { entry: string; message: string }[], canWrite: boolean): EvalCaseBody[] {
  if (!found || found.skip) return [];
  if (!canWrite) {
    invalid.push({ entry: EVALS_ENTRY, message: 'eval cases cannot be imported here: they were skipped' });
    return [];
  }
  const checked = checkEvalsDoc(found.doc, toolSlugs);
  if (typeof checked === 'string') {
    invalid.push({ entry: EVALS_ENTRY, message: checked });
    return [];
  }
  for (const message of checked.refused) invalid.push({ entry: EVALS_ENTRY, message });
  return checked.cases;
}

/**
 * The test-case entries to write: one per slug (a slug given twice, e.g. in NFC and in NFD, is
 * skipped both times), of a tool imported from this archive, with at least one good case.
 */
function testCasesToImport(found: TestCaseCandidate[], toolSlugs: Set<string>, invalid: { entry: string; message: string }[]): TestCaseCandidate[] {
  const bySlug = new Map<string, TestCaseCandidate[]>();
  for (const c of found) bySlug.set(c.slug, [...(bySlug.get(c.slug) ?? []), c]);
  const out: TestCaseCandidate[] = [];
  for (const [slug, group] of bySlug) {
    if (group.length > 1) {
      for (const c of group) invalid.push({ entry: c.entry, message: `the test cases of '${slug}' occur ${group.length} times in the archive (their names differ only in Unicode form); none of them was imported` });
      continue;
    }
    const c = group[0]!;
    if (!toolSlugs.has(slug)) {
      invalid.push({ entry: c.entry, message: `no tool '${slug}' is imported from this archive (tools/${slug}@<version>.json is missing or invalid): its test cases were skipped` });
      continue;
    }
    if (c.cases.length > 0) out.push(c);
  }
  return out.sort((a, b) => (a.slug < b.slug ? -1 : 1));
}

/**
 * The imported tools that ask before a model (or a served client) runs them, and why: a tool
 * that says nothing of approval still asks when it runs a function that asks (files.write) or
 * calls a tool that does, and the person importing should know before a model finds it.
 */
function asking(store: ToolStore, bundleId: string, written: ToolCandidate[]): { tool: string; message: string }[] {
  const ctx = store.approvals();
  const out: { tool: string; message: string }[] = [];
  for (const c of written) {
    const info = approvalOf(store.getTool(bundleId, c.slug, c.version), ctx);
    if (info) out.push({ tool: `${c.slug}@${c.version}`, message: askingMessage(info.reason) });
  }
  return out;
}

export function askingMessage(reason: ApprovalReason): string {
  if (reason.kind === 'function') return `runs ${reason.functionId}: will ask before it runs`;
  if (reason.kind === 'step') return `its step '${reason.step}' calls ${reason.tool}, which asks: will ask before it runs`;
  if (reason.kind === 'script') return 'a script not written in this app: will ask before its first run';
  return 'requires approval: will ask before it runs';
}

/** Deletes the test cases and tools written, then the bundle; returns '' or what could not be undone. */
async function rollback(
  store: ToolStore,
  testCases: TestCaseStore,
  bundleId: string,
  written: ToolCandidate[],
  casesWritten: TestCaseCandidate[],
  bundleCreated: boolean,
): Promise<string> {
  const left: string[] = [];
  for (const c of [...casesWritten].reverse()) {
    await testCases.removeAll(bundleId, c.slug).catch((e: unknown) => left.push(`the test cases of ${c.slug} (${(e as Error).message})`));
  }
  for (const c of [...written].reverse()) {
    await store.deleteTool(bundleId, c.slug, c.version).catch((e: unknown) => left.push(`${c.slug}@${c.version} (${(e as Error).message})`));
  }
  if (bundleCreated) {
    await store.patchBundle(bundleId, { isEnabled: false }).catch(() => undefined);
    await store.deleteBundle(bundleId).catch((e: unknown) => left.push(`the bundle ${bundleId} (${(e as Error).message})`));
  }
  return left.length ? ` (but these could not be removed: ${left.join(', ')})` : '';
}
