/**
 * `toolsmith import openapi FILE|URL` and `toolsmith import curl '…'`: the Tools screen's two
 * importers on the command line. The same steps as the panels (renderer/features/tools/import/):
 * the core reads the OpenAPI document ('transfer.parseOpenApi'), shared/model/curl.ts reads the
 * curl command; the hosts are added to Settings → Allowed hosts (unless --no-allow-hosts), a
 * curl command's credentials saved as secrets bound to its host, then each tool is saved with
 * tools.put. Nothing is written before every check passed (--dry-run writes nothing at all).
 *
 * A curl command's values are the tool's argument defaults (shared/model/curl-values.ts): the
 * report lists each argument with its type and default, so the tool can be invoked with no
 * --args and runs as pasted.
 *
 * A document's private-network hosts (loopback, private and link-local addresses in any
 * spelling, localhost: shared/model/proposed-hosts.ts, the app's rule too) are not added: they
 * are named, with how to allow them, unless --allow-private asks for them.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { OpInput } from '../../../shared/contract';
import { curlToTool, parseCurl, type CurlToolProposal } from '../../../shared/model/curl';
import { slugify } from '../../../shared/model/tool-naming';
import { fillServerVariables, fillVariables } from '../../../shared/model/openapi-proposal';
import { splitProposedHosts, type PrivateHost } from '../../../shared/model/proposed-hosts';
import type { OpenApiOperation } from '../../../shared/model/transfer';
import { labelViolation } from '../../../shared/model/validation';
import type { Bundle } from '../../../shared/model/bundle';
import { BUNDLE_TOOL_LIMIT_RULE } from '../../core/bundles/tool-limit';
import { CliError, err, findBundle, out, outJson, usageError, withCore, type CommonOptions, type Session } from './session';

type ToolBody = OpInput<'tools.put'>['body'];

/** The contract's bound on an OpenAPI document ('transfer.parseOpenApi'). */
const MAX_DOC_CHARS = 4 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

export interface ImportOptions extends CommonOptions {
  bundle?: string;
  toolVersion?: string;
  allowHosts?: boolean;
  dryRun?: boolean;
}

export interface OpenApiOptions extends ImportOptions {
  only?: string[];
  var?: string[];
  /** Adds the document's private-network hosts too. */
  allowPrivate?: boolean;
}

export interface CurlOptions extends ImportOptions {
  slug?: string;
  secrets?: boolean;
}

interface Outcome {
  slug: string;
  /** 'not-imported': not tried, after the bundle refused an earlier tool for being full. */
  status: 'created' | 'exists' | 'error' | 'not-imported';
  message?: string;
  /** The store's rule when it refused the tool ('bundle-tool-limit', 'bundle-deleted', …). */
  rule?: string;
}

/** A document from a file, `-` (stdin) or an http(s) URL, as text. */
async function readDocument(source: string): Promise<string> {
  if (source === '-') return readStdin(MAX_DOC_CHARS);
  if (/^https?:\/\//i.test(source)) {
    let res: Response;
    try {
      res = await fetch(source, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
    } catch (e) {
      throw new CliError(`could not fetch ${source}: ${(e as Error).message}`);
    }
    if (!res.ok) throw new CliError(`could not fetch ${source}: the server answered ${res.status} ${res.statusText}`);
    const text = await res.text();
    if (text.length > MAX_DOC_CHARS) throw new CliError(`${source} is larger than ${MAX_DOC_CHARS / (1024 * 1024)} MiB, the most the importer reads`);
    return text;
  }
  const file = path.resolve(source);
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) throw new Error('not a file');
    if (st.size > MAX_DOC_CHARS) throw new Error(`it is larger than ${MAX_DOC_CHARS / (1024 * 1024)} MiB, the most the importer reads`);
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** All of stdin as text (at most `max` characters). */
export async function readStdin(max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > max) throw new CliError(`standard input is larger than ${max} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `name=value` pairs from repeated --var. */
function parseVars(list: readonly string[] = []): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw usageError(`--var takes NAME=VALUE: got '${item}'`);
    vars[item.slice(0, eq).trim()] = item.slice(eq + 1);
  }
  return vars;
}

function checkVersion(version: string): string {
  const bad = labelViolation('version', version);
  if (bad) throw usageError(`--tool-version: ${bad.message}`);
  return version;
}

/** The bundle named by --bundle, or a new one with that name (or `fallback`) when no bundle has it. */
async function targetBundle(s: Session, name: string, displayName: string, dryRun: boolean): Promise<{ bundle?: Bundle; slug: string; created: boolean }> {
  const all = await s.allBundles();
  const found = findBundle(all, name);
  if (found.length > 1) throw new CliError(`${found.length} bundles are named '${name}': give one by its id (${found.map((b) => b.id).join(', ')})`);
  if (found.length === 1) {
    const b = found[0]!;
    if (b.isBuiltIn) throw new CliError(`'${b.slug}' is a built-in bundle, which takes no new tools: name another bundle with --bundle`);
    return { bundle: b, slug: b.slug, created: false };
  }
  const slug = slugify(name, 'imported');
  if (dryRun) return { slug, created: true };
  const bundle = await s.call('bundles.put', {
    bundleId: uuidv7(),
    body: { slug, displayName: (displayName || slug).slice(0, 128), description: '', isEnabled: true },
  });
  return { bundle, slug: bundle.slug, created: true };
}

/** Adds the hosts not yet allowed to Settings → Allowed hosts; answers those added. */
async function allowHosts(s: Session, hosts: readonly string[]): Promise<string[]> {
  let add: string[] = [];
  // Made to the settings as they are on disk: hosts the app added meanwhile are kept.
  await s.core.settings.update((now) => {
    const have = new Set(now.allowedHosts.map((h) => h.toLowerCase()));
    add = [];
    for (const h of hosts) {
      if (have.has(h.toLowerCase())) continue;
      have.add(h.toLowerCase());
      add.push(h);
    }
    return add.length ? { allowedHosts: [...now.allowedHosts, ...add] } : {};
  });
  return add;
}

/**
 * Saves one tool. Only the store's rule 'exists' (that slug and version are there already) is
 * "exists": every other refusal (a full bundle, a deleted one, …) is an error with its message.
 */
async function putTool(s: Session, bundleId: string, slug: string, version: string, body: unknown): Promise<Outcome> {
  const r = await s.core.call('tools.put', { bundleId, slug, version, body: body as ToolBody });
  if (r.ok) return { slug, status: 'created' };
  const details = r.error.details;
  const rule = details && typeof details === 'object' && typeof (details as { rule?: unknown }).rule === 'string' ? (details as { rule: string }).rule : undefined;
  if (r.error.code === 'CONFLICT' && rule === 'exists') return { slug, status: 'exists' };
  return { slug, status: 'error', message: r.error.message, ...(rule ? { rule } : {}) };
}

/**
 * Saves the tools in order. Once the bundle is full (Settings → Limits → Tools per bundle) no
 * later tool fits either: the rest are not tried, and reported as not imported with the store's
 * message.
 */
async function putTools(s: Session, bundleId: string, version: string, tools: readonly { slug: string; body: unknown }[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const t of tools) {
    const full = outcomes.find((o) => o.rule === BUNDLE_TOOL_LIMIT_RULE);
    if (full) outcomes.push({ slug: t.slug, status: 'not-imported', message: full.message, rule: BUNDLE_TOOL_LIMIT_RULE });
    else outcomes.push(await putTool(s, bundleId, t.slug, version, t.body));
  }
  return outcomes;
}

/** Nothing was created and nothing failed: every tool was there already (a re-import). Exit code 0. */
const nothingNew = (outcomes: readonly Outcome[]) => outcomes.length > 0 && outcomes.every((o) => o.status === 'exists');

function report(bundleSlug: string, version: string, outcomes: readonly Outcome[], hostsAdded: readonly string[], dryRun: boolean): string {
  const created = outcomes.filter((o) => o.status === 'created').length;
  const n = outcomes.length;
  const tools = `tool${n === 1 ? '' : 's'}`;
  const lines = [
    dryRun
      ? `Would create ${n} ${tools} in bundle '${bundleSlug}' (version ${version}); nothing was written (--dry-run).`
      : nothingNew(outcomes)
        ? `Nothing new: ${n === 1 ? 'the tool exists' : `all ${n} tools exist`} already in bundle '${bundleSlug}' (version ${version}) and ${n === 1 ? 'was' : 'each was'} left as it is; --tool-version V adds ${n === 1 ? 'it' : 'them'} as a new version.`
        : `Created ${created} of ${n} ${tools} in bundle '${bundleSlug}' (version ${version}).`,
  ];
  for (const o of outcomes) {
    const mark = o.status === 'created' ? '+' : o.status === 'exists' ? '=' : o.status === 'error' ? '!' : '-';
    const why = o.status === 'exists' ? ' already exists; left as it is' : o.status === 'error' ? `: ${o.message}` : o.status === 'not-imported' ? ' not imported' : '';
    lines.push(`  ${mark} ${bundleSlug}/${o.slug}@${version}${why}`);
  }
  const skipped = outcomes.filter((o) => o.status === 'not-imported');
  if (skipped.length) lines.push(`Not imported: ${skipped.length} ${skipped.length === 1 ? 'tool' : 'tools'} after the bundle was full: ${skipped[0]!.message}`);
  if (hostsAdded.length) lines.push(`${dryRun ? 'Would add' : 'Added'} to Settings → Allowed hosts: ${hostsAdded.join(', ')}`);
  return lines.join('\n');
}

/** The command's failure when some tools were not saved; none when every tool was created or existed. */
function notSaved(outcomes: readonly Outcome[]): CliError | undefined {
  const failed = outcomes.filter((o) => o.status === 'error' || o.status === 'not-imported');
  if (failed.length === 0) return undefined;
  const full = failed.find((o) => o.rule === BUNDLE_TOOL_LIMIT_RULE);
  const of = `${failed.length} of ${outcomes.length} tool${outcomes.length === 1 ? '' : 's'}`;
  return new CliError(full ? `${of} not imported: ${full.message}` : `${of} could not be saved`);
}

/** The private-network hosts left out, and how to allow them. */
function privateHostsNote(hosts: readonly PrivateHost[]): string {
  return [
    `Not added to Settings → Allowed hosts: the document names ${hosts.length === 1 ? 'a private-network host' : 'private-network hosts'}, which the tools could reach once allowed:`,
    ...hosts.map((h) => `  ${h.host}: ${h.why}`),
    'The tools that use them cannot run until you allow them. If you trust the document, import again with --allow-private, or add them in Settings → Allowed hosts.',
  ].join('\n');
}

export async function importOpenApi(source: string, o: OpenApiOptions): Promise<void> {
  const version = checkVersion(o.toolVersion ?? '1');
  const given = parseVars(o.var);
  const text = await readDocument(source);
  if (text.trim() === '') throw new CliError(`${source} is empty`);
  await withCore(o, async (s) => {
    const doc = await s.call('transfer.parseOpenApi', { text });
    let ops: OpenApiOperation[] = doc.operations;
    if (o.only?.length) {
      const wanted = new Set(o.only.map((k) => k.toLowerCase()));
      ops = ops.filter((op) => wanted.has(op.slug.toLowerCase()) || wanted.has(op.key.toLowerCase()) || wanted.has(`${op.method} ${op.path}`.toLowerCase()));
      const seen = new Set(ops.flatMap((op) => [op.slug, op.key, `${op.method} ${op.path}`].map((k) => k.toLowerCase())));
      const unknown = o.only.filter((k) => !seen.has(k.toLowerCase()));
      if (unknown.length) throw usageError(`the document has no operation ${unknown.map((k) => `'${k}'`).join(', ')}. Its operations: ${doc.operations.map((op) => op.slug).join(', ')}`);
    }
    if (ops.length === 0) throw new CliError(`the document proposes no tools${doc.skipped.length ? `: ${doc.skipped.map((x) => `${x.key} (${x.reason})`).join('; ')}` : ''}`);
    // The servers' variables: --var, else the document's default; one left empty stops the import before anything is saved.
    const vars = Object.fromEntries(doc.serverVariables.map((v) => [v.name, given[v.name] ?? v.default ?? '']));
    let tools: { slug: string; body: unknown }[];
    let hosts: string[];
    try {
      tools = ops.map((op) => ({ slug: op.slug, body: fillServerVariables(op.tool, vars) }));
      hosts = doc.hostsProposal.map((h) => fillVariables(h, vars));
    } catch (e) {
      throw usageError(`${(e as Error).message}: pass --var NAME=VALUE`);
    }
    const target = await targetBundle(s, o.bundle ?? (doc.title || 'imported'), doc.title, o.dryRun ?? false);
    const taken = new Set(target.bundle ? s.core.registry.store.toolsOf(target.bundle.id).filter((t) => t.version === version).map((t) => t.slug) : []);
    if (!o.json) {
      err(`${doc.title || 'The document'}${doc.version ? ` ${doc.version}` : ''}: ${ops.length} operation${ops.length === 1 ? '' : 's'} to import${target.created ? `, into a new bundle '${target.slug}'` : ` into '${target.slug}'`}.`);
      for (const op of ops) for (const w of op.warnings) err(`  note: ${op.slug}: ${w}`);
    }
    let outcomes: Outcome[];
    let hostsAdded: string[] = [];
    // The document's private-network hosts are the person's to allow, not the document's.
    const split = splitProposedHosts(hosts);
    const toAllow = o.allowPrivate ? [...split.public, ...split.private.map((p) => p.host)] : split.public;
    const current = new Set((await s.call('settings.get', {})).allowedHosts.map((h) => h.toLowerCase()));
    const hostsNotAdded = o.allowHosts === false || o.allowPrivate ? [] : split.private.filter((p) => !current.has(p.host.toLowerCase()));
    if (o.dryRun || !target.bundle) {
      outcomes = tools.map((t) => ({ slug: t.slug, status: taken.has(t.slug) ? 'exists' : 'created' }));
      if (o.allowHosts !== false) hostsAdded = toAllow.filter((h) => !current.has(h.toLowerCase()));
    } else {
      if (o.allowHosts !== false) hostsAdded = await allowHosts(s, toAllow);
      outcomes = await putTools(s, target.bundle.id, version, tools);
    }
    if (o.json) {
      outJson({
        bundleId: target.bundle?.id,
        bundleSlug: target.slug,
        bundleCreated: target.created,
        dryRun: o.dryRun ?? false,
        version,
        created: outcomes.filter((x) => x.status === 'created').map((x) => x.slug),
        existing: outcomes.filter((x) => x.status === 'exists').map((x) => x.slug),
        errors: outcomes.filter((x) => x.status === 'error').map((x) => ({ slug: x.slug, message: x.message })),
        notImported: outcomes.filter((x) => x.status === 'not-imported').map((x) => ({ slug: x.slug, message: x.message })),
        nothingNew: !o.dryRun && nothingNew(outcomes),
        hostsAdded,
        hostsNotAdded,
        skipped: doc.skipped,
      });
    } else {
      out(report(target.slug, version, outcomes, hostsAdded, o.dryRun ?? false));
      if (hostsNotAdded.length) out(privateHostsNote(hostsNotAdded));
      for (const x of doc.skipped) err(`  skipped ${x.key}: ${x.reason}`);
    }
    const failure = notSaved(outcomes);
    if (failure) throw failure;
  });
}

interface ArgumentShown {
  name: string;
  type: string;
  required: boolean;
  default?: unknown;
}

/** The proposed tool's arguments, in order, with their types and defaults (never a secret: those are not arguments). */
function argumentsOf(p: CurlToolProposal): ArgumentShown[] {
  const schema = p.tool.argSchema as { properties?: Record<string, { type?: unknown; default?: unknown }>; required?: unknown };
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => ({
    name,
    type: typeof prop.type === 'string' ? prop.type : '',
    required: required.has(name),
    ...(prop.default !== undefined ? { default: prop.default } : {}),
  }));
}

/** `days (integer, default 2)`: a long default is cut to keep the line readable. */
function argumentLine(a: ArgumentShown): string {
  let shown = a.default === undefined ? '' : JSON.stringify(a.default);
  if (shown.length > 40) shown = `${shown.slice(0, 39)}…`;
  return `${a.name} (${[a.type, a.required ? 'required' : '', shown ? `default ${shown}` : ''].filter(Boolean).join(', ')})`;
}

export async function importCurl(command: string, o: CurlOptions): Promise<void> {
  if (!o.bundle) throw usageError('say which bundle gets the tool: --bundle NAME (a new bundle is made when none has that name)');
  const version = checkVersion(o.toolVersion ?? '1');
  const text = command === '-' ? await readStdin(256 * 1024) : command;
  if (text.trim() === '') throw usageError('give the curl command as one argument (quoted), or - to read it from standard input');
  let proposal: CurlToolProposal;
  try {
    proposal = curlToTool(parseCurl(text), o.slug ? { slug: o.slug } : {});
  } catch (e) {
    throw usageError(`cannot import this curl command: ${(e as Error).message}`);
  }
  const slug = o.slug ?? proposal.suggestedSlug;
  const bad = labelViolation('slug', slug);
  if (bad) throw usageError(`--slug: ${bad.message}`);
  await withCore(o, async (s) => {
    const target = await targetBundle(s, o.bundle!, o.bundle!, o.dryRun ?? false);
    const savedSecrets = new Set((await s.call('secrets.list', {})).map((x) => x.name));
    // As the panel does: a credential found in the command is saved, unless a secret of that name exists (it may be bound to other hosts).
    const toSave = o.secrets === false ? [] : proposal.secretsNeeded.filter((x) => x.value !== undefined && !savedSecrets.has(x.name));
    const missing = proposal.secretsNeeded.filter((x) => !savedSecrets.has(x.name) && !toSave.includes(x));
    let hostsAdded: string[] = [];
    let outcome: Outcome;
    if (o.dryRun || !target.bundle) {
      const current = new Set((await s.call('settings.get', {})).allowedHosts.map((h) => h.toLowerCase()));
      if (o.allowHosts !== false) hostsAdded = proposal.hostsProposal.filter((h) => !current.has(h.toLowerCase()));
      const exists = target.bundle ? s.core.registry.store.toolsOf(target.bundle.id).some((t) => t.slug === slug && t.version === version) : false;
      outcome = { slug, status: exists ? 'exists' : 'created' };
    } else {
      for (const x of toSave) await s.call('secrets.set', { name: x.name, value: x.value!, hosts: x.hosts });
      if (o.allowHosts !== false) hostsAdded = await allowHosts(s, proposal.hostsProposal);
      outcome = await putTool(s, target.bundle.id, slug, version, proposal.tool);
    }
    if (o.json) {
      outJson({
        bundleId: target.bundle?.id,
        bundleSlug: target.slug,
        bundleCreated: target.created,
        dryRun: o.dryRun ?? false,
        slug,
        version,
        status: outcome.status,
        ...(outcome.message ? { message: outcome.message } : {}),
        nothingNew: !o.dryRun && nothingNew([outcome]),
        request: `${proposal.tool.http.method} ${proposal.tool.http.urlTemplate}`,
        arguments: argumentsOf(proposal),
        secretsSaved: o.dryRun ? [] : toSave.map((x) => x.name),
        secretsMissing: missing.map((x) => x.name),
        hostsAdded,
        notes: proposal.notes,
        ...(o.dryRun ? { tool: proposal.tool } : {}),
      });
    } else {
      const lines = [report(target.slug, version, [outcome], hostsAdded, o.dryRun ?? false), `  request: ${proposal.tool.http.method} ${proposal.tool.http.urlTemplate}`];
      const args = argumentsOf(proposal);
      if (args.length) lines.push(`  arguments: ${args.map(argumentLine).join(', ')}`);
      if (toSave.length) lines.push(`${o.dryRun ? 'Would save' : 'Saved'} the secret${toSave.length === 1 ? '' : 's'} ${toSave.map((x) => x.name).join(', ')} (bound to ${[...new Set(toSave.flatMap((x) => x.hosts))].join(', ')}).`);
      for (const x of missing) lines.push(`Set the secret ${x.name} before running it (${x.reason}): Settings → Secrets.`);
      for (const n of proposal.notes) lines.push(`note: ${n}`);
      out(lines.join('\n'));
    }
    // A tool that exists already is nothing new, not a failure (exit 0): the report says it was left as it is.
    if (outcome.status === 'error') throw new CliError(`the tool could not be saved: ${outcome.message}`);
  });
}
