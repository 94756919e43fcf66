/**
 * What every `toolsmith` command shares: its errors and exit codes, the core opened on the data
 * folder, output on stdout (results) and stderr (messages, progress), and finding a bundle or a
 * tool by the names a person types (BUNDLE/SLUG[@VERSION]).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { createCore, type Core } from '../../core/app';
import { resolveDataDir } from '../../core/data-dir';
import { versionToRun, newerFirst } from '../../core/testcases/run-suite';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import type { Bundle } from '../../../shared/model/bundle';
import type { ToolView } from '../../../shared/model/tool';
import type { CliHost } from '../cli-host';
import { findResourcesDir } from '../transports/mcp-stdio';

/** Exit codes: 0 done, 1 the command failed (a failed call, a failing test), 2 bad usage. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** An error that ends the command with a message on stderr and its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);

/** The options every command that opens the data folder takes, and the host it runs in. */
export interface CommonOptions {
  dataDir?: string;
  resources?: string;
  json?: boolean;
  host?: CliHost;
}

/** The argv the core's helpers read `--data-dir` and `--resources` from. */
export function commonArgv(o: CommonOptions): string[] {
  return [...(o.dataDir ? ['--data-dir', o.dataDir] : []), ...(o.resources ? ['--resources', o.resources] : [])];
}

/** Opens the core on the data folder (`--data-dir`, TOOLSMITH_DATA_DIR, the app's own), runs `fn`, closes the core. */
export async function withCore<T>(o: CommonOptions, fn: (s: Session) => Promise<T>): Promise<T> {
  const argv = commonArgv(o);
  const dataDir = resolveDataDir({ argv, env: process.env, platform: process.platform, homedir: os.homedir(), exists: existsSync });
  // Another process (the app) may use the same folder: its running calls are its own.
  const core = await createCore({
    dataDir,
    resourcesDir: findResourcesDir(argv),
    host: 'headless',
    watch: false,
    streams: false,
    recoverInterrupted: false,
    ...(o.host?.secretCipher ? { secretCipher: o.host.secretCipher } : {}),
  });
  try {
    return await fn(new Session(core));
  } finally {
    await core.close();
  }
}

export class Session {
  constructor(readonly core: Core) {}

  /** A contract call; its error becomes the command's failure, worded as the core words it. */
  async call<N extends OpName>(name: N, input: OpInput<N>): Promise<OpOutput<N>> {
    const r = await this.core.call(name, input);
    if (!r.ok) throw new CliError(`${r.error.message} (${r.error.code})`);
    return r.value;
  }

  async allBundles(includeDeleted = false): Promise<Bundle[]> {
    const out: Bundle[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.call('bundles.list', { includeDisabled: true, ...(includeDeleted ? { includeDeleted } : {}), pageSize: 100, ...(pageToken ? { pageToken } : {}) });
      out.push(...page.items);
      pageToken = page.nextPageToken;
    } while (pageToken);
    return out;
  }

  async allTools(query: Omit<OpInput<'tools.list'>, 'pageToken' | 'pageSize'> = {}): Promise<ToolView[]> {
    const out: ToolView[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.call('tools.list', { ...query, pageSize: 100, ...(pageToken ? { pageToken } : {}) });
      out.push(...page.items);
      pageToken = page.nextPageToken;
    } while (pageToken);
    return out;
  }

  /** A bundle by id or slug (its name); a slug two bundles share must be given as an id. */
  async bundle(name: string): Promise<Bundle> {
    const all = await this.allBundles();
    const found = findBundle(all, name);
    if (found.length === 1) return found[0]!;
    if (found.length > 1) {
      throw new CliError(`${found.length} bundles are named '${name}': give one by its id (${found.map((b) => b.id).join(', ')})`);
    }
    const names = all.map((b) => b.slug).sort();
    throw new CliError(`no bundle named '${name}'. Bundles: ${names.join(', ') || '(none)'} — see \`toolsmith bundles list\``);
  }

  /** A tool by BUNDLE/SLUG[@VERSION]: without a version, the newest switched-on version (else the newest). */
  async tool(ref: string): Promise<ToolView> {
    const r = parseToolRef(ref);
    const bundle = await this.bundle(r.bundle);
    const versions = this.core.registry.store.toolsOf(bundle.id).filter((t) => t.slug.normalize('NFC') === r.slug.normalize('NFC'));
    if (versions.length === 0) {
      const slugs = [...new Set(this.core.registry.store.toolsOf(bundle.id).map((t) => t.slug))].sort();
      throw new CliError(`bundle '${bundle.slug}' has no tool '${r.slug}'. Its tools: ${slugs.join(', ') || '(none)'}`);
    }
    if (r.version === undefined) return versionToRun(versions, r.slug)!;
    const exact = versions.find((t) => t.version === r.version);
    if (!exact) {
      throw new CliError(`'${bundle.slug}/${r.slug}' has no version '${r.version}'. Versions: ${[...versions].sort(newerFirst).map((t) => t.version).join(', ')}`);
    }
    return exact;
  }
}

export function findBundle(all: readonly Bundle[], name: string): Bundle[] {
  const byId = all.filter((b) => b.id === name);
  if (byId.length) return byId;
  const n = name.normalize('NFC');
  const exact = all.filter((b) => b.slug.normalize('NFC') === n);
  if (exact.length) return exact;
  return all.filter((b) => b.slug.normalize('NFC').toLowerCase() === n.toLowerCase());
}

export interface ToolRefParts {
  bundle: string;
  slug: string;
  version?: string;
}

/** BUNDLE/SLUG[@VERSION]; a usage error for anything else. */
export function parseToolRef(ref: string): ToolRefParts {
  const m = /^([^/@\s]+)\/([^/@\s]+)(?:@([^/@\s]+))?$/u.exec(ref.trim());
  if (!m) throw usageError(`'${ref}' is not a tool: write BUNDLE/SLUG or BUNDLE/SLUG@VERSION, e.g. text/count or text/count@1`);
  return { bundle: m[1]!, slug: m[2]!, ...(m[3] !== undefined ? { version: m[3] } : {}) };
}

/** The name a person types for a tool. */
export const toolRef = (bundleSlug: string, t: Pick<ToolView, 'slug' | 'version'>) => `${bundleSlug}/${t.slug}@${t.version}`;

export function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

export function outJson(value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

export function err(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : text + '\n');
}

/** Lines of columns padded to the widest cell (the last column is not padded). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  return rows.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ').trimEnd()).join('\n');
}

/** The first line of a text, cut to `max` characters. */
export function firstLine(text: string, max = 72): string {
  const line = text.split('\n', 1)[0]!.trim();
  return [...line].length > max ? [...line].slice(0, max - 1).join('') + '…' : line;
}
