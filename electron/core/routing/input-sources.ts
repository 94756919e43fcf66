/**
 * What `@input SCHEME:VALUE` reads, one InputSource per scheme, so a new source
 * plugs in behind the same interface (docs/design/routing.md, inputs):
 *
 * - `file:PATH` or `file:GLOB` (picomatch, '/' separators, relative to the workspace):
 *   placeholders expanded; each file read inside the workspace only (workspace.ts refuses
 *   `..`, absolute paths and symlinks out). A glob reads every match in sorted order;
 *   hidden names (a leading '.') are not matched by `*` or `**`, and binary files a glob
 *   matches are skipped, and so are symbolic links it matches that lead outside the
 *   workspace, to nothing or to a folder (listed in `skipped`). Several files are joined,
 *   each under a `==> PATH <==` line.
 * - `variable:NAME`: the owner's buffer, whole (BufferStore.readAll).
 * - `url:URL`: an HTTP GET through the same transport and host rules as fetch_url.
 *
 * Sizes are bounded (INPUT_* in limits.ts); failures are AppErrors naming the source.
 */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { workspacePathProblem } from '../../../shared/directives/parser';
import { AppError, isAppError } from '../../../shared/errors';
import type { AllowedHosts, LocalFunction, Transport } from '../invoke/types';
import { q } from '../lib/args';
import { fsError, openFileInWorkspace, resolveInWorkspace } from '../lib/workspace';
import { INPUT_GLOB_MAX_DEPTH, INPUT_GLOB_MAX_ENTRIES, INPUT_MAX_FILES, INPUT_MAX_TOTAL_CHARS, INPUT_URL_MAX_BYTES, INPUT_URL_TIMEOUT_MS } from './limits';
import { formatCount } from './manifest';
import { expandPlaceholders, unknownPlaceholderMessage, unknownPlaceholders } from './placeholders';
import type { BufferStore } from './types';

export interface InputContent {
  /** What is inlined or routed. */
  text: string;
  /** Items read: files, a buffer, a page. */
  count: number;
  /** Workspace paths of the files read, or the URL fetched; empty for a buffer. */
  paths: string[];
  /** Matches of a glob left out, each `PATH (why)`: symbolic links that lead outside, to nothing or to a folder. */
  skipped?: string[];
}

export interface InputReadContext {
  ownerId: string;
  now: Date;
  signal?: AbortSignal;
}

/** How the value was written. */
export interface InputValueOptions {
  /** Ranges [start, end) of the value written inside double quotes: read as they are, never as a pattern. */
  quoted?: readonly (readonly [number, number])[];
}

export interface InputSource {
  /** Lowercase, without the colon: `file`. */
  readonly scheme: string;
  /** What makes a value fail before anything runs (an unknown placeholder), or null. */
  check?(value: string): string | null;
  read(value: string, ctx: InputReadContext, opts?: InputValueOptions): Promise<InputContent>;
}

export type InputSources = ReadonlyMap<string, InputSource>;

export function inputSourceMap(sources: InputSource[]): InputSources {
  return new Map(sources.map((s) => [s.scheme, s]));
}

function tooLarge(source: string, chars: number, limit: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `${source} is larger than ${formatCount(limit)} characters: an @input reads at most that much`, { limit, chars });
}

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AppError('CANCELLED', 'cancelled');
}

export interface FileSourceOptions {
  workspaceDir: () => string;
  maxFiles?: number;
  maxTotalChars?: number;
  maxEntries?: number;
}

type FileRead = { text: string } | { binary: true };

/** Why a symbolic link a glob matched is left out, by the error reading it gave. */
const LINK_SKIPPED: Partial<Record<string, string>> = {
  FORBIDDEN: 'a link that leads outside the workspace',
  NOT_FOUND: 'a link to nothing',
  VALIDATION_FAILED: 'a link to a folder or to something that is not a file',
};

/** Characters a pattern gives a meaning to; written inside quotes they match themselves. */
const GLOB_SPECIAL = /[*?[\]{}()!+@\\]/;

/**
 * The text of a file source as a picomatch pattern: quoted characters escaped, and
 * parentheses everywhere (patterns have `*`, `**`, `?`, `[...]` and `{a,b}`, no groups), so
 * `notes/a(b).md` names that file. `start` is the part's offset in the source's value.
 */
function escapeLiterals(part: string, start: number, quoted: readonly (readonly [number, number])[]): string {
  let out = '';
  for (let i = 0; i < part.length; i++) {
    const ch = part[i]!;
    const at = start + i;
    const inQuotes = quoted.some(([a, b]) => at >= a && at < b);
    out += (inQuotes && GLOB_SPECIAL.test(ch)) || ch === '(' || ch === ')' ? `\\${ch}` : ch;
  }
  return out;
}

const unescapeGlob = (s: string): string => s.replace(/\\(.)/g, '$1');

export class FileInputSource implements InputSource {
  readonly scheme = 'file';
  private readonly maxFiles: number;
  private readonly maxChars: number;
  private readonly maxEntries: number;

  constructor(private readonly opts: FileSourceOptions) {
    this.maxFiles = opts.maxFiles ?? INPUT_MAX_FILES;
    this.maxChars = opts.maxTotalChars ?? INPUT_MAX_TOTAL_CHARS;
    this.maxEntries = opts.maxEntries ?? INPUT_GLOB_MAX_ENTRIES;
  }

  check(value: string): string | null {
    const unknown = unknownPlaceholders(value);
    return unknown.length > 0 ? unknownPlaceholderMessage(unknown[0]!) : null;
  }

  async read(value: string, ctx: InputReadContext, opts: InputValueOptions = {}): Promise<InputContent> {
    const literal = expandPlaceholders(value, ctx.now).replace(/^(\.\/)+/, '');
    const problem = workspacePathProblem(literal, 'file sources');
    if (problem) throw new AppError('FORBIDDEN', problem, { path: literal });
    const ws = this.opts.workspaceDir();
    const pattern = expandPlaceholders(value, ctx.now, (part, start) => escapeLiterals(part, start, opts.quoted ?? [])).replace(/^(\.\/)+/, '');
    const scan = picomatch.scan(pattern);
    if (!scan.isGlob) return this.readNamed(ws, literal);
    const matches = await this.glob(ws, pattern, literal, unescapeGlob(scan.base), ctx.signal);
    const parts: string[] = [];
    const paths: string[] = [];
    const skipped: string[] = [];
    let total = 0;
    for (const { rel, link } of matches) {
      aborted(ctx.signal);
      let r: FileRead;
      try {
        r = await this.readFile(ws, rel, this.maxChars - total);
      } catch (e) {
        const why = link && isAppError(e) ? LINK_SKIPPED[e.code] : undefined;
        if (!why) throw e;
        skipped.push(`${rel} (${why})`);
        continue;
      }
      if ('binary' in r) continue;
      const part = `==> ${rel} <==\n${r.text}${r.text === '' || r.text.endsWith('\n') ? '' : '\n'}`;
      total += part.length;
      if (total > this.maxChars) throw tooLarge(`file:${literal}`, total, this.maxChars);
      parts.push(part);
      paths.push(rel);
    }
    if (paths.length === 0 && skipped.length > 0) {
      throw new AppError('NOT_FOUND', `no readable file matches ${q(literal)}: skipped ${skipped.join(', ')}`, { skipped });
    }
    if (paths.length === 0) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `the files matching ${q(literal)} are not text files`);
    return { text: parts.join('\n'), count: paths.length, paths, ...(skipped.length > 0 ? { skipped } : {}) };
  }

  /** A file named without a pattern; `notes/a` that does not exist reads `notes/a.md`, as notes are often named. */
  private async readNamed(ws: string, rel: string): Promise<InputContent> {
    let read: { r: FileRead; rel: string };
    try {
      read = { r: await this.readFile(ws, rel, this.maxChars), rel };
    } catch (e) {
      const withMd = `${rel}.md`;
      if (!(isAppError(e) && e.code === 'NOT_FOUND') || /\.md$/i.test(rel) || rel.endsWith('/')) throw e;
      try {
        read = { r: await this.readFile(ws, withMd, this.maxChars), rel: withMd };
      } catch (e2) {
        throw isAppError(e2) && e2.code === 'NOT_FOUND' ? new AppError('NOT_FOUND', `neither ${q(rel)} nor ${q(withMd)} exists in the workspace`) : e2;
      }
    }
    if ('binary' in read.r) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${q(read.rel)} is not a text file`);
    return { text: read.r.text, count: 1, paths: [read.rel] };
  }

  /** The workspace-relative files (and symbolic links) matching `pattern`, sorted. */
  private async glob(ws: string, pattern: string, shown: string, base: string, signal: AbortSignal | undefined): Promise<{ rel: string; link: boolean }[]> {
    let isMatch: (p: string) => boolean;
    try {
      const matcher = picomatch(pattern.normalize('NFC'), { dot: false });
      isMatch = (p) => matcher(p.normalize('NFC'));
    } catch (e) {
      throw new AppError('VALIDATION_FAILED', `invalid pattern ${q(shown)}: ${(e as Error).message}`);
    }
    // Names are compared in NFC: a pattern typed in one form matches a name stored in the other
    // (macOS writes NFD). The walk starts above the first non-ASCII folder of the base for that.
    const parts = base.split('/').filter(Boolean);
    const cut = parts.findIndex((part) => [...part].some((c) => c.charCodeAt(0) > 0x7f));
    const start = cut < 0 ? base : parts.slice(0, cut).join('/');
    const root = await resolveInWorkspace(ws, start === '' ? '.' : start, { allowRoot: true });
    const found: { rel: string; link: boolean }[] = [];
    let entries = 0;
    const walk = async (abs: string, rel: string, depth: number): Promise<void> => {
      aborted(signal);
      let list: Dirent[];
      try {
        list = await fs.readdir(abs, { withFileTypes: true });
      } catch (e) {
        if (depth === 0) throw fsError(e, rel);
        return; // a folder that vanished or cannot be read is not a match
      }
      for (const d of list) {
        if (++entries > this.maxEntries) {
          throw new AppError('PAYLOAD_TOO_LARGE', `${q(shown)} looks through more than ${formatCount(this.maxEntries)} entries: narrow the pattern`);
        }
        const childRel = rel === '.' ? d.name : `${rel}/${d.name}`;
        if (d.isDirectory()) {
          if (!d.name.startsWith('.') && depth < INPUT_GLOB_MAX_DEPTH) await walk(path.join(abs, d.name), childRel, depth + 1);
        } else if ((d.isFile() || d.isSymbolicLink()) && isMatch(childRel)) {
          found.push({ rel: childRel, link: d.isSymbolicLink() });
          if (found.length > this.maxFiles) {
            throw new AppError('PAYLOAD_TOO_LARGE', `${q(shown)} matches more than ${formatCount(this.maxFiles)} files: narrow the pattern`, { limit: this.maxFiles });
          }
        }
      }
    };
    await walk(root.abs, root.rel, 0);
    if (found.length === 0) throw new AppError('NOT_FOUND', `no file in the workspace matches ${q(shown)}`);
    return found.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  }

  /** One text file inside the workspace (symlinks followed only when they stay inside; opened and checked as readfile does). */
  private async readFile(ws: string, rel: string, maxChars: number): Promise<FileRead> {
    const p = await resolveInWorkspace(ws, rel);
    let fh: fs.FileHandle;
    try {
      const opened = await openFileInWorkspace(p, { folder: `${q(p.rel)} is a folder: use a pattern such as ${q(`${p.rel}/*`)}` });
      fh = opened.fh;
      // A UTF-8 byte gives at most one UTF-16 unit and three bytes at least one: past 3x the budget it cannot fit.
      if (opened.stat.size > maxChars * 3) {
        await fh.close();
        throw tooLarge(`file:${p.rel}`, opened.stat.size, maxChars);
      }
    } catch (e) {
      throw isAppError(e) ? e : fsError(e, p.rel);
    }
    try {
      const buf = await fh.readFile();
      if (buf.subarray(0, 8192).includes(0)) return { binary: true };
      let text = buf.toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length > maxChars) throw tooLarge(`file:${p.rel}`, text.length, maxChars);
      return { text };
    } catch (e) {
      throw isAppError(e) ? e : fsError(e, p.rel);
    } finally {
      await fh.close();
    }
  }
}

export class VariableInputSource implements InputSource {
  readonly scheme = 'variable';
  constructor(
    private readonly buffers: BufferStore,
    private readonly maxChars = INPUT_MAX_TOTAL_CHARS,
  ) {}

  async read(value: string, ctx: InputReadContext): Promise<InputContent> {
    const text = await this.buffers.readAll(ctx.ownerId, value);
    if (text.length > this.maxChars) throw tooLarge(`variable:${value}`, text.length, this.maxChars);
    return { text, count: 1, paths: [] };
  }
}

export interface UrlSourceOptions {
  /** Reads a URL the way the built-in fetch_url does (allowed hosts, SSRF rules, a size limit): given by the core. */
  fetchUrl: LocalFunction;
  transport: Transport;
  allowedHosts: () => AllowedHosts;
  workspaceDir: () => string;
  now: () => Date;
  maxBytes?: number;
}

interface FetchResult {
  finalUrl: string;
  status: number;
  encoding: 'text' | 'base64';
  contentType: string;
  text: string;
  truncated: boolean;
}

export class UrlInputSource implements InputSource {
  readonly scheme = 'url';
  constructor(private readonly opts: UrlSourceOptions) {}

  async read(value: string, ctx: InputReadContext): Promise<InputContent> {
    const maxBytes = this.opts.maxBytes ?? INPUT_URL_MAX_BYTES;
    const signal = ctx.signal ?? new AbortController().signal;
    const localCtx = { workspaceDir: this.opts.workspaceDir(), signal, now: this.opts.now, transport: this.opts.transport, allowedHosts: this.opts.allowedHosts };
    const r = (await this.opts.fetchUrl(localCtx, { url: value, maxBytes, timeoutMs: INPUT_URL_TIMEOUT_MS }, signal)) as FetchResult;
    if (r.status >= 400) throw new AppError('UNAVAILABLE', `GET ${value} answered HTTP ${r.status}`, { status: r.status });
    if (r.encoding !== 'text') throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${value} is not text (${r.contentType || 'no content type'})`);
    if (r.truncated) throw new AppError('PAYLOAD_TOO_LARGE', `${value} is larger than ${formatCount(maxBytes)} bytes: an @input url: reads at most that much`, { limit: maxBytes });
    return { text: r.text, count: 1, paths: [r.finalUrl || value] };
  }
}
