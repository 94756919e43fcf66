/**
 * MCP servers as bundles: each server's config file, its bundle and tools in the store, and
 * its connection. Adding a server writes its config and its bundle, then starts it and lists
 * its tools; a server that fails to start keeps its bundle and tools (shown failed, with why).
 * A bundle switched off or deleted stops its server; close() stops them all.
 */
import { AppError } from '../../../shared/errors';
import {
  MCP_HIDDEN_VALUE,
  McpServerInputSchema,
  type McpAppTrust,
  type McpConnection,
  type McpLogLine,
  type McpResourceContent,
  type McpServerConfig,
  type McpServerEdit,
  type McpServerFile,
  type McpServerInput,
  type McpServerView,
} from '../../../shared/model/mcp-client';
import type { ToolView } from '../../../shared/model/tool';
import { checkUuidV7 } from '../../../shared/model/validation';
import type { Backend } from '../invoke/dispatcher';
import { fastUuidv7 } from '../lib/ids';
import { KeyedQueue } from '../lib/serial-queue';
import type { SecretResolver } from '../secrets/types';
import { oauthSecretNames, type OAuthSecrets } from './oauth';
import type { ToolStore } from '../bundles/tool-store';
import { isHeaderMismatch, McpServerConnection } from './connection';
import { ElicitationQueue } from './elicitation';
import { ImportError, parseMcpServersJson } from './import-json';
import { resultValue, type McpCallResult } from './results';
import { editedConfig } from './server-edit';
import { ServerFiles } from './server-files';
import { applyTrust, slugOf, syncTools, TASK_REQUIRED, type SkippedTool } from './tool-sync';
import { resourceContents } from './resources';

export interface McpClientOptions {
  dataDir: string;
  store: ToolStore;
  /** Header secrets, and where OAuth keeps a server's client and tokens. */
  secrets: SecretResolver & OAuthSecrets;
  now: () => Date;
  workspaceDir: () => string;
  clientVersion: string;
  /** A status changed (for the window). */
  onChange?: (bundleId: string) => void;
  /** A config file could not be read, a tool list could not be stored. */
  onProblem?: (p: { path: string; message: string }) => void;
  /** Default 8 MB: a larger message from a server is refused with a clear error. */
  maxMessageBytes?: number;
  /** Back-off after a failure (default 500 ms, doubling, at most 30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  stableMs?: number;
  /** Opens an OAuth sign-in page in the person's browser (Electron: shell.openExternal). */
  openUrl?: (url: string) => void | Promise<void>;
  signInTimeoutMs?: number;
  /** How long a call runs before its cancel is watched for (default 20 ms; tests make it longer). */
  cancelWatchAfterMs?: number;
  /** The servers' questions waiting for the user changed (for the window). */
  onElicitationsChange?: () => void;
  /** How long a server's question waits for an answer (default 10 minutes). */
  elicitationTimeoutMs?: number;
}

export const MCP_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

interface Entry {
  file: McpServerFile;
  conn: McpServerConnection;
  skipped: SkippedTool[];
  missing: string[];
  /** Why the last list brought in no tools at all. */
  noTools?: string;
  /** A tool-list refresh is queued behind the running one. */
  refreshQueued: boolean;
  /** A refresh is running (a connection it made need not ask for another). */
  refreshing: boolean;
}

export class McpClientManager {
  private readonly files: ServerFiles;
  private readonly entries = new Map<string, Entry>();
  private readonly queue = new KeyedQueue();
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  /** Questions the servers ask the user mid-call (./elicitation.ts). */
  readonly elicitations: ElicitationQueue;

  constructor(private readonly opts: McpClientOptions) {
    this.files = new ServerFiles(opts.dataDir, opts.now);
    this.elicitations = new ElicitationQueue({
      now: opts.now,
      ...(opts.elicitationTimeoutMs !== undefined ? { timeoutMs: opts.elicitationTimeoutMs } : {}),
      onChange: () => opts.onElicitationsChange?.(),
      onEvent: (bundleId, text) => this.entries.get(bundleId)?.conn.log.event(text),
    });
  }

  /** Reads the configs; nothing is started until a call or a person asks. */
  async open(): Promise<void> {
    const all = await this.files.readAll((p) => this.opts.onProblem?.(p));
    for (const file of all) this.entries.set(file.bundleId, this.entryOf(file));
    // Tools stored by an earlier version (or by hand) ask as the server's trust switch says now,
    // from the hints stored with them: before their server is started, so a first call never slips by.
    for (const file of all) {
      try {
        const r = await applyTrust(this.opts.store, file.bundleId, { trustUnannotatedTools: file.server.trustUnannotatedTools });
        for (const f of r.failed) console.warn(`MCP server ${file.bundleId}: could not update '${f.name}' to ask before it runs: ${f.reason}`);
      } catch (e) {
        console.warn(`MCP server ${file.bundleId}: its tools' approvals could not be checked: ${(e as Error).message}`);
      }
    }
    // A bundle switched off or deleted stops its server.
    this.unsubscribe = this.opts.store.onChange((c) => {
      if (c.kind !== 'bundle') return;
      const e = this.entries.get(c.id);
      if (!e) return;
      const b = this.opts.store.bundleById(c.id);
      if (!b || !b.isEnabled || b.softDeletedAt) void e.conn.stop(b?.softDeletedAt ? 'the bundle was deleted' : 'the bundle was switched off');
      else e.conn.switchedOn();
    });
  }

  private entryOf(file: McpServerFile): Entry {
    const config = McpServerInputSchema.parse(file.server);
    const entry: Entry = { file, conn: undefined as unknown as McpServerConnection, skipped: [], missing: [], refreshQueued: false, refreshing: false };
    entry.conn = new McpServerConnection({
      bundleId: file.bundleId,
      elicit: (params, signal, tool, invocationId) => this.elicitations.ask({ bundleId: file.bundleId, server: config.name, params, ...(tool ? { tool } : {}), ...(invocationId ? { invocationId } : {}) }, signal),
      config,
      defaultCwd: this.opts.workspaceDir,
      secrets: this.opts.secrets,
      now: this.opts.now,
      clientVersion: this.opts.clientVersion,
      maxMessageBytes: this.opts.maxMessageBytes ?? MCP_MAX_MESSAGE_BYTES,
      backoffMs: this.opts.backoffMs ?? 500,
      maxBackoffMs: this.opts.maxBackoffMs ?? 30_000,
      stableMs: this.opts.stableMs ?? 60_000,
      openUrl: this.opts.openUrl,
      signInTimeoutMs: this.opts.signInTimeoutMs,
      ...(this.opts.cancelWatchAfterMs !== undefined ? { cancelWatchAfterMs: this.opts.cancelWatchAfterMs } : {}),
      onStatus: () => this.opts.onChange?.(file.bundleId),
      onToolsChanged: () => void this.refresh(file.bundleId).catch(() => undefined),
      onConnected: () => {
        if (!entry.refreshing) void this.refresh(file.bundleId).catch(() => undefined);
      },
    });
    return entry;
  }

  list(): McpServerView[] {
    return [...this.entries.values()].map((e) => this.view(e));
  }

  get(bundleId: string): McpServerView {
    return this.view(this.entry(bundleId));
  }

  private entry(bundleId: string): Entry {
    const e = this.entries.get(bundleId);
    if (!e) throw new AppError('NOT_FOUND', `no MCP server for bundle ${bundleId}`);
    return e;
  }

  private view(e: Entry): McpServerView {
    const c = e.conn.config;
    return {
      bundleId: e.file.bundleId,
      name: c.name,
      connection: masked(c.connection),
      timeouts: c.timeouts,
      maxRestarts: c.maxRestarts,
      trustUnannotatedTools: e.file.server.trustUnannotatedTools,
      apps: c.apps,
      status: { ...e.conn.status(), skipped: e.skipped, missing: e.missing, ...(e.noTools ? { noTools: e.noTools } : {}) },
    };
  }

  log(bundleId: string): McpLogLine[] {
    return this.entry(bundleId).conn.log.list();
  }

  /**
   * Adds a server: its config, then its bundle (switched on unless `enabled` is false); then,
   * for an enabled one, starts it and stores its tools. A start that fails leaves the bundle in
   * place with the server shown failed.
   */
  async add(input: McpServerInput, opts: { enabled?: boolean } = {}): Promise<McpServerView> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'the app is closing');
    const parsed = McpServerInputSchema.safeParse(input);
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      throw new AppError('VALIDATION_FAILED', `${i.path.map(String).join('.') || 'server'}: ${i.message}`, { issues: parsed.error.issues.slice(0, 20).map((x) => ({ path: x.path.map(String).join('.'), message: x.message })) });
    }
    const config = parsed.data;
    const bundleId = fastUuidv7(Date.now());
    const file: McpServerFile = { version: 1, bundleId, server: config, createdAt: this.opts.now().toISOString() };
    await this.files.write(file);
    try {
      await this.opts.store.putBundle(bundleId, {
        slug: slugOf(config.name, new Set()),
        displayName: config.name,
        description: describe(config),
        isEnabled: opts.enabled !== false,
      });
    } catch (e) {
      await this.files.remove(bundleId).catch(() => undefined);
      throw e;
    }
    const entry = this.entryOf(file);
    this.entries.set(bundleId, entry);
    this.opts.onChange?.(bundleId);
    if (opts.enabled !== false) await this.refresh(bundleId).catch(() => undefined);
    return this.view(entry);
  }

  /**
   * Adds every server of an `mcpServers` (or VS Code `servers`) JSON; entries that cannot be are
   * listed with why. With `skipExisting`, an entry whose name a server has is left as it is.
   */
  async importJson(text: string, opts: { skipExisting?: boolean } = {}): Promise<{ added: McpServerView[]; refused: { name: string; message: string }[]; existing?: { name: string; bundleId: string }[] }> {
    let parsed;
    try {
      parsed = parseMcpServersJson(text);
    } catch (e) {
      if (e instanceof ImportError) throw new AppError('VALIDATION_FAILED', `the MCP servers JSON cannot be read: ${e.message}`);
      throw e;
    }
    const added: McpServerView[] = [];
    const refused = [...parsed.refused];
    const existing: { name: string; bundleId: string }[] = [];
    const nameKey = (n: string) => n.normalize('NFC').toLowerCase();
    const taken = new Map([...this.entries.values()].map((e) => [nameKey(e.file.server.name), e.file.bundleId]));
    const servers = opts.skipExisting
      ? parsed.servers.filter((s) => {
          const bundleId = taken.get(nameKey(s.input.name));
          if (bundleId) existing.push({ name: s.name, bundleId });
          return !bundleId;
        })
      : parsed.servers;
    // Added one after the other; their starts run together.
    const views = await Promise.all(
      servers.map(async (s) => {
        try {
          return await this.add(s.input, { enabled: s.enabled });
        } catch (e) {
          refused.push({ name: s.name, message: (e as Error).message });
          return undefined;
        }
      }),
    );
    for (const v of views) if (v) added.push(v);
    return { added, refused, ...(opts.skipExisting ? { existing } : {}) };
  }

  /**
   * Lists the server's tools and stores what changed (one refresh at a time per server; a
   * request while one runs is folded into one more). Starts the server if need be.
   */
  refresh(bundleId: string): Promise<void> {
    const e = this.entry(bundleId);
    if (e.refreshQueued) return Promise.resolve();
    e.refreshQueued = true;
    return this.queue.run(bundleId, async () => {
      e.refreshQueued = false;
      if (this.closed || this.entries.get(bundleId) !== e) return;
      e.refreshing = true;
      try {
        await this.refreshNow(bundleId, e);
      } finally {
        e.refreshing = false;
      }
    });
  }

  private async refreshNow(bundleId: string, e: Entry): Promise<void> {
    const bundle = this.opts.store.bundleById(bundleId);
    if (!bundle || !bundle.isEnabled || bundle.softDeletedAt) return;
    let listed: unknown[];
    try {
      listed = await e.conn.listTools();
    } catch (err) {
      e.conn.log.event(`tools/list failed: ${(err as Error).message}`);
      throw err;
    }
    const report = await syncTools(this.opts.store, bundleId, listed, { trustUnannotatedTools: e.file.server.trustUnannotatedTools, tasks: e.conn.offersTasks, paramHeaders: e.conn.mirrorsParams });
    e.skipped = report.skipped;
    e.missing = report.missing;
    e.noTools = listed.length > 0 ? undefined : e.conn.offersNoTools ? NO_TOOLS_CAPABILITY : NO_TOOLS_LISTED;
    for (const s of report.skipped) e.conn.log.event(`tool '${s.name}' skipped: ${s.reason}`);
    for (const t of report.switchedOff) {
      const why = t.reason === TASK_REQUIRED ? 'the server now runs it only as an MCP task (switch it on again once it runs without one)' : `${t.reason} (switch it on again once the server lists it as a tool that can be called)`;
      e.conn.log.event(`tool '${t.name}' switched off: ${why}`);
    }
    if (report.added || report.changed) e.conn.log.event(`tools: ${report.added} added, ${report.changed} changed`);
    this.opts.onChange?.(bundleId);
  }

  /** Whether the server's tools without hints run without asking: saved, and the stored tools brought along at once. */
  async setTrust(bundleId: string, trust: boolean): Promise<McpServerView> {
    const e = this.entry(bundleId);
    await this.queue.run(bundleId, async () => {
      const file: McpServerFile = { ...e.file, server: { ...e.file.server, trustUnannotatedTools: trust } };
      await this.files.write(file);
      e.file = file;
      const r = await applyTrust(this.opts.store, bundleId, { trustUnannotatedTools: trust });
      for (const f of r.failed) e.conn.log.event(`tool '${f.name}' keeps its approval setting: ${f.reason}`);
    });
    this.opts.onChange?.(bundleId);
    return this.view(e);
  }

  /** Whether the server's apps are shown: asked first, always, or never. Saved in its file. */
  async setAppTrust(bundleId: string, apps: McpAppTrust, domains?: string[]): Promise<McpServerView> {
    const e = this.entry(bundleId);
    // The sites consented to go with 'always'; asking again (or never) forgets them.
    const appDomains = apps === 'always' ? (domains ?? e.conn.config.appDomains) : [];
    await this.queue.run(bundleId, async () => {
      const file: McpServerFile = { ...e.file, server: { ...e.file.server, apps, appDomains } };
      await this.files.write(file);
      e.file = file;
      e.conn.config.apps = apps;
      e.conn.config.appDomains = appDomains;
    });
    this.opts.onChange?.(bundleId);
    return this.view(e);
  }

  /** The server's name and its apps' trust, for a bundle that is an MCP server; undefined for any other bundle. */
  serverOf(bundleId: string): { name: string; apps: McpAppTrust; appDomains: string[] } | undefined {
    const e = this.entries.get(bundleId);
    return e && { name: e.conn.config.name, apps: e.conn.config.apps, appDomains: e.conn.config.appDomains };
  }

  /** One resource of the bundle's server (resources/read), e.g. the page of a tool's app. */
  readResource(bundleId: string, uri: string, signal?: AbortSignal): Promise<{ contents: { uri: string }[] }> {
    return this.entry(bundleId).conn.readResource(uri, signal);
  }

  /** A resource a tool's result links to, read for the window; refused while the bundle is switched off (reading starts a stopped server). */
  async readLinkedResource(bundleId: string, uri: string): Promise<McpResourceContent[]> {
    const e = this.entry(bundleId);
    const bundle = this.opts.store.bundleById(bundleId);
    if (!bundle || !bundle.isEnabled || bundle.softDeletedAt) throw new AppError('FORBIDDEN', `'${e.conn.config.name}' is switched off in Tools: switch it on to read its resources`);
    return resourceContents((await e.conn.readResource(uri)).contents, uri);
  }

  /** A line in the server's log (what its apps did). */
  logEvent(bundleId: string, text: string): void {
    this.entries.get(bundleId)?.conn.log.event(text);
  }

  /**
   * Changes a server's settings (server-edit.ts: checked as add checks, left-out settings and
   * hidden values kept). Its file is rewritten atomically (the truth), its bundle renamed with it,
   * and the server stopped and, for a bundle switched on, started again with the new settings and
   * its tools listed. An edit that is refused changes nothing; one that changes nothing restarts nothing.
   */
  async update(bundleId: string, edit: McpServerEdit): Promise<McpServerView> {
    if (this.closed) throw new AppError('UNAVAILABLE', 'the app is closing');
    checkUuidV7(bundleId, 'bundleId');
    this.entry(bundleId);
    const changed = await this.queue.run(bundleId, async () => {
      const cur = this.entry(bundleId);
      // The file, not the connection: the trust switch is saved there.
      const current = McpServerInputSchema.parse(cur.file.server);
      const config = editedConfig(current, edit);
      if (JSON.stringify(config) === JSON.stringify(current)) return false;
      const file: McpServerFile = { ...cur.file, server: config };
      await this.files.write(file);
      const store = this.opts.store;
      try {
        const b = store.bundleById(bundleId);
        if (b && !b.softDeletedAt && (b.displayName !== config.name || b.description !== describe(config))) {
          await store.putBundle(bundleId, { slug: b.slug, displayName: config.name, description: describe(config), isEnabled: b.isEnabled });
        }
      } catch (e) {
        await this.files.write(cur.file).catch(() => undefined);
        throw e;
      }
      // Removed meanwhile: its file goes with it.
      if (this.entries.get(bundleId) !== cur) {
        await this.files.remove(bundleId).catch(() => undefined);
        throw new AppError('NOT_FOUND', `no MCP server for bundle ${bundleId}`);
      }
      const next = this.entryOf(file);
      next.skipped = cur.skipped;
      next.missing = cur.missing;
      next.noTools = cur.noTools;
      this.entries.set(bundleId, next);
      await cur.conn.stop('its settings were changed');
      next.conn.log.event('its settings were changed');
      if (config.trustUnannotatedTools !== cur.file.server.trustUnannotatedTools) {
        const r = await applyTrust(store, bundleId, { trustUnannotatedTools: config.trustUnannotatedTools });
        for (const f of r.failed) next.conn.log.event(`tool '${f.name}' keeps its approval setting: ${f.reason}`);
      }
      return true;
    });
    if (changed) {
      this.opts.onChange?.(bundleId);
      await this.refresh(bundleId).catch(() => undefined);
    }
    return this.get(bundleId);
  }

  /** A person's restart: the restart count is forgotten, the server started again and its tools listed. */
  async restart(bundleId: string): Promise<McpServerView> {
    const e = this.entry(bundleId);
    await e.conn.stop('restarting');
    e.conn.resetFailures();
    await this.refresh(bundleId).catch(() => undefined);
    return this.view(e);
  }

  /** Stops the server and removes its config, its bundle and its tools. */
  async remove(bundleId: string): Promise<void> {
    checkUuidV7(bundleId, 'bundleId');
    const e = this.entry(bundleId);
    this.entries.delete(bundleId);
    await e.conn.stop('removed');
    const store = this.opts.store;
    if (store.bundleById(bundleId)) {
      for (const t of store.toolsOf(bundleId)) await store.deleteTool(bundleId, t.slug, t.version).catch(() => undefined);
      const b = store.bundleById(bundleId);
      if (b && !b.softDeletedAt) await store.deleteBundle(bundleId);
    }
    await this.files.remove(bundleId);
    // Its sign-in goes with it.
    for (const name of Object.values(oauthSecretNames(bundleId))) await this.opts.secrets.delete?.(name).catch(() => undefined);
    this.opts.onChange?.(bundleId);
  }

  /** The dispatcher's back-end for tools of type `mcp`. */
  backend(): Backend {
    // The call is passed on whole: its signal is read only if the call runs long or fails.
    return async (call) => {
      const { tool } = call;
      const e = this.entries.get(tool.bundleId);
      if (!e) throw new AppError('UNAVAILABLE', `'${tool.slug}' cannot run: the MCP server of its bundle is not configured (no ${this.files.fileOf(tool.bundleId)})`);
      const name = tool.mcp?.serverTool ?? tool.slug;
      if (tool.mcp?.task === 'required') return { value: resultValue(await e.conn.callToolAsTask(name, call.args, call, tool.argSchema), name) };
      let r: McpCallResult;
      try {
        r = await e.conn.callTool(name, call.args, call, tool.argSchema);
      } catch (err) {
        if (!isHeaderMismatch(err)) throw err;
        // The server wants other Mcp-Param-* headers than the tool stored asks for: its list is
        // read again (a changed tool becomes a new version), and the call is made once more
        // with the headers the tool asks for now. The server refused the first one unrun.
        e.conn.log.event(`tools/call ${name}: the server refused its headers; its tool list is read again and the call made once more`);
        await this.refresh(tool.bundleId);
        const now = this.latestEnabled(tool.bundleId, name);
        if (!now) throw err;
        r = await e.conn.callTool(name, call.args, call, now.argSchema);
      }
      return { value: resultValue(r, name) };
    };
  }

  /** The newest version of a server's tool stored in its bundle, if it is switched on. */
  private latestEnabled(bundleId: string, serverTool: string): ToolView | undefined {
    let best: ToolView | undefined;
    for (const t of this.opts.store.toolsOf(bundleId)) {
      if (t.type === 'mcp' && t.mcp?.serverTool === serverTool && (!best || Number(t.version) > Number(best.version))) best = t;
    }
    return best?.isEnabled ? best : undefined;
  }

  /** The process id of a running stdio server (tests check none is left behind). */
  processId(bundleId: string): number | undefined {
    return this.entries.get(bundleId)?.conn.processId();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    await Promise.all([...this.entries.values()].map((e) => e.conn.stop('the app closed')));
  }
}

const NO_TOOLS_CAPABILITY = 'the server offers no tools: it does not declare the tools capability (it may offer only prompts or resources, which Toolsmith does not bring in)';
const NO_TOOLS_LISTED = 'the server listed no tools';

function describe(c: McpServerConfig): string {
  const where = c.connection.transport === 'stdio' ? [c.connection.command, ...c.connection.args].join(' ') : c.connection.url;
  return `MCP server (${c.connection.transport}): ${where}`.slice(0, 16_000);
}

/** Header and env values shown as written when they only name secrets; literal values hidden. */
function masked(c: McpConnection): McpConnection {
  const hide = (v: string) => (/^(\s*\$\{secret:[^}]+\}\s*|Bearer \$\{secret:[^}]+\})*$/.test(v) ? v : MCP_HIDDEN_VALUE);
  if (c.transport === 'stdio') return { ...c, env: Object.fromEntries(Object.entries(c.env).map(([k, v]) => [k, hide(v)])) };
  return { ...c, headers: Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, hide(v)])) };
}
