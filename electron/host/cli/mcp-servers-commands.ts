/**
 * `toolsmith mcp-servers list|add|remove|import`: the Tools screen's MCP servers on the command
 * line (docs/mcp.md), through the same operations ('mcpServers.*'). Adding starts the server and
 * stores its tools before answering, as the app does; a server that does not start is added all
 * the same (its bundle shows why), and the command says so. A name already used by a server is
 * refused, so running the same `add` or `import` again adds nothing twice.
 *
 * A header's token belongs in the secret store: `--header 'Authorization: Bearer ${secret:NAME}'`
 * (quoted for the shell) stays a reference in the server's file, resolved only when the server is
 * called. Environment values are written as given, in a file only its owner may read.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { McpServerInputSchema, type McpServerInput, type McpServerView } from '../../../shared/model/mcp-client';
import { readStdin } from './import-commands';
import { CliError, err, out, outJson, table, usageError, withCore, type CommonOptions, type Session } from './session';

/** The contract's bound on an `mcpServers` JSON ('mcpServers.import'). */
const MAX_JSON_CHARS = 1024 * 1024;

export interface McpAddOptions extends CommonOptions {
  command?: string;
  arg?: string[];
  env?: string[];
  cwd?: string;
  url?: string;
  header?: string[];
  oauthClientId?: string;
  oauthClientSecret?: string;
  oauthRedirectPort?: string;
  /** Added with its bundle switched off: not started. */
  disabled?: boolean;
  trust?: boolean;
}

/** A server as the commands show it: its view, whether its bundle is on, and how many tools it has stored. */
type Shown = McpServerView & { enabled: boolean; tools: number };

function shown(s: Session, v: McpServerView): Shown {
  const store = s.core.registry.store;
  const b = store.bundleById(v.bundleId);
  return { ...v, enabled: !!b && b.isEnabled && !b.softDeletedAt, tools: new Set(store.toolsOf(v.bundleId).map((t) => t.slug)).size };
}

async function allServers(s: Session): Promise<Shown[]> {
  return (await s.call('mcpServers.list', {})).map((v) => shown(s, v)).sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
}

/** What the server runs or where it is: the command and its arguments, or the URL. */
function where(v: McpServerView): string {
  const c = v.connection;
  if (c.transport === 'http') return c.url;
  return [c.command, ...c.args].map((a) => (a === '' || /[\s'"\\$]/.test(a) ? `'${a.replace(/'/g, `'\\''`)}'` : a)).join(' ');
}

/** Servers by bundle id, by name or their bundle's slug as typed, then by either in any case. */
export function findServers(all: readonly Shown[], slugOf: (bundleId: string) => string | undefined, name: string): Shown[] {
  const byId = all.filter((v) => v.bundleId === name);
  if (byId.length) return byId;
  const n = name.normalize('NFC');
  const exact = all.filter((v) => v.name.normalize('NFC') === n);
  if (exact.length) return exact;
  const bySlug = all.filter((v) => slugOf(v.bundleId)?.normalize('NFC') === n);
  if (bySlug.length) return bySlug;
  const lower = n.toLowerCase();
  return all.filter((v) => v.name.normalize('NFC').toLowerCase() === lower || slugOf(v.bundleId)?.normalize('NFC').toLowerCase() === lower);
}

async function theServer(s: Session, name: string): Promise<Shown> {
  const all = await allServers(s);
  const found = findServers(all, (id) => s.core.registry.store.bundleById(id)?.slug, name);
  if (found.length === 1) return found[0]!;
  if (found.length > 1) throw new CliError(`${found.length} MCP servers are named '${name}': give one by its id (${found.map((v) => v.bundleId).join(', ')})`);
  throw new CliError(`no MCP server named '${name}'. MCP servers: ${all.map((v) => v.name).join(', ') || '(none)'} — see \`toolsmith mcp-servers list\``);
}

export async function mcpServersList(o: CommonOptions): Promise<void> {
  await withCore(o, async (s) => {
    const all = await allServers(s);
    if (o.json) return outJson(all);
    if (all.length === 0) return out('No MCP servers. Add one with `toolsmith mcp-servers add NAME --command PROGRAM` or `--url URL`, or `toolsmith mcp-servers import FILE`.');
    out(table([['NAME', 'TRANSPORT', 'BUNDLE', 'TOOLS', 'ID', 'RUNS'], ...all.map((v) => [v.name, v.connection.transport, v.enabled ? 'on' : 'off', String(v.tools), v.bundleId, where(v)])]));
  });
}

/** `NAME=VALUE` (--env) or `Name: value` (--header) pairs. */
function pairs(list: readonly string[] = [], sep: '=' | ':', option: string, shape: string): Record<string, string> {
  const outPairs: Record<string, string> = {};
  for (const item of list) {
    const at = item.indexOf(sep);
    if (at <= 0) throw usageError(`${option} takes ${shape}: got '${item}'`);
    outPairs[item.slice(0, at).trim()] = sep === ':' ? item.slice(at + 1).trim() : item.slice(at + 1);
  }
  return outPairs;
}

/** The option a path of the server input comes from, to say where a refused value was given. */
function optionOf(issuePath: readonly PropertyKey[]): string {
  const [first, second, third] = issuePath.map(String);
  if (first === 'name') return 'the name';
  if (first !== 'connection') return first ?? 'the server';
  if (second === 'oauthClient') return third === 'clientSecret' ? '--oauth-client-secret' : third === 'redirectPort' ? '--oauth-redirect-port' : '--oauth-client-id';
  const byKey: Record<string, string> = { command: '--command', args: '--arg', env: '--env', cwd: '--cwd', url: '--url', headers: '--header' };
  return byKey[second ?? ''] ?? 'the server';
}

/** The server input the options describe, checked as the app checks it; bad usage says which option is wrong. */
export function serverInputOf(name: string, o: McpAddOptions): McpServerInput {
  const stdio = o.command !== undefined;
  const httpish = o.url !== undefined;
  if (stdio && httpish) throw usageError('give --command (a program started over stdio) or --url (a Streamable HTTP endpoint), not both');
  if (!stdio && !httpish) throw usageError('say how to reach the server: --command PROGRAM [--arg A]… (stdio) or --url URL (Streamable HTTP)');
  const httpOnly = [o.header?.length && '--header', o.oauthClientId !== undefined && '--oauth-client-id', o.oauthClientSecret !== undefined && '--oauth-client-secret', o.oauthRedirectPort !== undefined && '--oauth-redirect-port'].filter(Boolean);
  const stdioOnly = [o.arg?.length && '--arg', o.env?.length && '--env', o.cwd !== undefined && '--cwd'].filter(Boolean);
  if (stdio && httpOnly.length) throw usageError(`${httpOnly.join(', ')} go${httpOnly.length === 1 ? 'es' : ''} with --url, not --command`);
  if (httpish && stdioOnly.length) throw usageError(`${stdioOnly.join(', ')} go${stdioOnly.length === 1 ? 'es' : ''} with --command, not --url`);
  if (o.oauthClientId === undefined && (o.oauthClientSecret !== undefined || o.oauthRedirectPort !== undefined)) throw usageError('--oauth-client-secret and --oauth-redirect-port go with --oauth-client-id');
  let port: number | undefined;
  if (o.oauthRedirectPort !== undefined) {
    port = Number(o.oauthRedirectPort);
    if (!/^\d+$/.test(o.oauthRedirectPort) || port < 1024 || port > 65535) throw usageError(`--oauth-redirect-port must be a whole number from 1024 to 65535: got '${o.oauthRedirectPort}'`);
  }
  const connection = stdio
    ? { transport: 'stdio' as const, command: o.command!, args: o.arg ?? [], env: pairs(o.env, '=', '--env', 'NAME=VALUE'), ...(o.cwd !== undefined ? { cwd: path.resolve(o.cwd) } : {}) }
    : {
        transport: 'http' as const,
        url: o.url!,
        headers: pairs(o.header, ':', '--header', "'Name: value'"),
        ...(o.oauthClientId !== undefined
          ? { oauthClient: { clientId: o.oauthClientId, ...(o.oauthClientSecret ? { clientSecret: o.oauthClientSecret } : {}), ...(port !== undefined ? { redirectPort: port } : {}) } }
          : {}),
      };
  const input: McpServerInput = { name, connection, ...(o.trust ? { trustUnannotatedTools: true } : {}) };
  const parsed = McpServerInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw usageError(`${optionOf(issue.path)}: ${issue.message}`);
  }
  return input;
}

/**
 * Says once, on stderr, where to sign in when a server asks for an OAuth sign-in while it is
 * started (its page is not opened from here); answers how to stop listening.
 */
function watchSignIns(s: Session): () => void {
  const said = new Set<string>();
  return s.core.events.on('mcpServers.changed', ({ bundleId }) => {
    void s.core.call('mcpServers.list', {}).then((r) => {
      const v = r.ok ? r.value.find((x) => x.bundleId === bundleId) : undefined;
      const m = v?.status.reason ? /^waiting for you to sign in: (\S+)$/.exec(v.status.reason) : null;
      if (!v || !m || said.has(m[1]!)) return;
      said.add(m[1]!);
      err(`'${v.name}' asks you to sign in: open ${m[1]} in your browser (Ctrl+C stops waiting).`);
    });
  });
}

/** The lines that tell how an added server is: started, or not and why; the tools it did not bring in, and why. */
function statusLines(v: Shown): string[] {
  const lines: string[] = [];
  const st = v.status;
  if (!v.enabled) lines.push(`  its bundle is switched off: it starts once you switch it on (toolsmith bundles enable …) and one of its tools is called`);
  else if (st.state === 'failed') lines.push(`  it failed to start: ${st.reason ?? 'see its log in the app'}`);
  else if (st.state !== 'connected') lines.push(`  ${st.state}${st.reason ? `: ${st.reason}` : ''}`);
  for (const t of st.skipped) lines.push(`  not brought in: ${t.name}: ${t.reason}`);
  if (st.noTools) lines.push(`  no tools: ${st.noTools}`);
  return lines;
}

function addedLine(s: Session, v: Shown): string {
  const slug = s.core.registry.store.bundleById(v.bundleId)?.slug ?? v.bundleId;
  const state = !v.enabled ? 'switched off' : v.status.state;
  return `'${v.name}' (bundle '${slug}', ${v.tools} tool${v.tools === 1 ? '' : 's'}): ${state}`;
}

function nameTaken(all: readonly Shown[], name: string): Shown | undefined {
  return all.find((v) => v.name.normalize('NFC').toLowerCase() === name.normalize('NFC').toLowerCase());
}

export async function mcpServersAdd(name: string, o: McpAddOptions): Promise<void> {
  const input = serverInputOf(name, o);
  await withCore(o, async (s) => {
    const taken = nameTaken(await allServers(s), name);
    if (taken) throw new CliError(`an MCP server named '${taken.name}' exists already (${taken.bundleId}): remove it first (toolsmith mcp-servers remove ${taken.bundleId}), or choose another name`);
    if (!o.json && !o.disabled) err(`Starting '${name}' and listing its tools…`);
    const stop = watchSignIns(s);
    let v: Shown;
    try {
      v = shown(s, await s.call('mcpServers.add', { server: input, ...(o.disabled ? { enabled: false } : {}) }));
    } finally {
      stop();
    }
    if (o.json) return outJson(v);
    out([`Added MCP server ${addedLine(s, v)}.`, ...statusLines(v)].join('\n'));
    if (v.enabled && v.status.state === 'failed') err(`The server is added all the same: change it in the app (Tools → MCP servers → Edit), or remove it with \`toolsmith mcp-servers remove ${v.bundleId}\`.`);
  });
}

export async function mcpServersRemove(name: string, o: CommonOptions): Promise<void> {
  await withCore(o, async (s) => {
    const v = await theServer(s, name);
    await s.call('mcpServers.remove', { bundleId: v.bundleId });
    if (o.json) return outJson({ removed: true, bundleId: v.bundleId, name: v.name });
    out(`Removed MCP server '${v.name}': its bundle and its ${v.tools} tool${v.tools === 1 ? '' : 's'} are deleted (the server's program or site is not touched).`);
  });
}

/** The JSON from a file or `-` (stdin), as text. */
async function readJsonSource(source: string): Promise<string> {
  if (source === '-') return readStdin(MAX_JSON_CHARS);
  const file = path.resolve(source);
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) throw new Error('not a file');
    if (st.size > MAX_JSON_CHARS) throw new Error(`it is larger than ${MAX_JSON_CHARS / (1024 * 1024)} MiB, the most the importer reads`);
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

export async function mcpServersImport(source: string, o: CommonOptions): Promise<void> {
  const text = await readJsonSource(source);
  if (text.trim() === '') throw new CliError(`${source === '-' ? 'standard input' : path.resolve(source)} is empty`);
  await withCore(o, async (s) => {
    if (!o.json) err('Starting the servers and listing their tools…');
    const stop = watchSignIns(s);
    let report;
    try {
      // Read as the app reads a pasted JSON; the names a server has are left as they are.
      report = await s.call('mcpServers.import', { text, skipExisting: true });
    } finally {
      stop();
    }
    const added = report.added.map((v) => shown(s, v));
    const existing = report.existing ?? [];
    const total = added.length + existing.length + report.refused.length;
    if (o.json) outJson({ added, existing, refused: report.refused });
    else {
      const lines = [added.length === 0 && report.refused.length === 0 ? `Nothing new: every server in it exists already and was left as it is.` : `Imported ${added.length} of ${total} MCP servers.`];
      for (const v of added) lines.push(`  + ${addedLine(s, v)}`, ...statusLines(v).map((l) => `  ${l}`));
      for (const x of existing) lines.push(`  = '${x.name}' exists already (${x.bundleId}); left as it is`);
      for (const x of report.refused) lines.push(`  ! '${x.name}': ${x.message}`);
      out(lines.join('\n'));
    }
    if (report.refused.length) throw new CliError(`${report.refused.length} of ${total} server${total === 1 ? '' : 's'} could not be imported`);
  });
}
