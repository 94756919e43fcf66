/**
 * MCP Apps brought in (docs/mcp.md, "Apps"): the page of an MCP tool's app, read from its
 * server and checked (resource.ts), is registered as a one-time frame document (frames.ts) with
 * a CSP of its own (csp.ts); the host serves it from a separate origin, and the renderer frames
 * it. Each request the page makes arrives here naming its view, and is checked against what
 * that view may do: only tools of its own server that let apps call them, through the
 * dispatcher as every call (approvals asked in the app's window, limits, the log).
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../../../shared/errors';
import { callResultOf, type AppCallResult, type AppConsent, type AppOpenResult, type AppToolInfo } from '../../../shared/model/mcp-apps';
import type { McpAppTrust, McpLogLevel, McpServerView } from '../../../shared/model/mcp-client';
import { approvalOf } from '../../../shared/model/tool-approval';
import { isAppVisible, type ToolView } from '../../../shared/model/tool';
import type { ToolStore } from '../bundles/tool-store';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { McpApprovalQueue } from '../mcp-server/approval-queue';
import { frameCsp } from './csp';
import { FrameDocuments, frameResponse, type FrameRequest, type FrameResponse } from './frames';
import { checkAppPage, type AppPage } from './resource';

/** The servers' side the apps need (mcp-client/manager.ts). */
export interface AppServers {
  serverOf(bundleId: string): { name: string; apps: McpAppTrust; appDomains: string[] } | undefined;
  readResource(bundleId: string, uri: string, signal?: AbortSignal): Promise<{ contents: { uri: string }[] }>;
  logEvent(bundleId: string, text: string): void;
  /** `domains`: with 'always', the sites its apps were allowed to reach when the person said so. */
  setAppTrust(bundleId: string, apps: McpAppTrust, domains?: string[]): Promise<McpServerView>;
}

/** "Always allow" answers for tools (agent/approvals.ts). */
export interface AppApprovals {
  allows(toolId: string, ownerId: string): boolean;
  add(rule: { toolId: string; toolName: string; scope: 'always' }): Promise<unknown>;
}

export interface McpAppsOptions {
  store: ToolStore;
  servers: AppServers;
  dispatcher: Pick<InvokeDispatcher, 'invoke'>;
  approvals: AppApprovals;
  /** The approvals asked in the app's window (the served tools' queue: one prompt for both). */
  queue: Pick<McpApprovalQueue, 'ask' | 'windowOpen'>;
  onClosed?: (viewId: string, reason: string) => void;
  now?: () => number;
}

/** Where the host serves frame documents, and the origins that may frame them (the renderer's). */
export interface FrameHost {
  /** e.g. `http://127.0.0.1:41234` (headless) or `toolsmith-frame://view` (Electron). */
  origin: string;
  ancestors: string[];
}

interface View {
  viewId: string;
  bundleId: string;
  server: string;
  toolId: string;
  /** Tools the person allowed for this app ("allow for this session" of the prompt). */
  allowed: Set<string>;
  lastUsed: number;
  calls: number;
}

/**
 * At most this many apps are open at once; opening one more closes the least recently used
 * (a card's app is closed when the card goes; this bounds what a window that vanished leaves).
 */
export const MAX_VIEWS = 64;
/** Calls of one app running at once. */
export const MAX_APP_CALLS = 4;

export const appClosed = 'this app was closed: show it again from its card';

/** How long a consent may follow its ask and still show the page the ask read. */
const ASK_VALID_MS = 10 * 60_000;

function allDomains(d: AppPage['csp']): string[] {
  return [...new Set([...d.connectDomains, ...d.resourceDomains, ...d.frameDomains, ...d.baseUriDomains])].sort();
}

export class McpAppsService {
  readonly frames: FrameDocuments;
  private readonly views = new Map<string, View>();
  /** The page each tool's last ask showed, by tool id: a consent shows exactly that page. */
  private readonly asked = new Map<string, { page: AppPage; at: number }>();
  private frameHost: FrameHost | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: McpAppsOptions) {
    this.now = opts.now ?? Date.now;
    this.frames = new FrameDocuments({ now: this.now });
    // A bundle switched off or removed closes its apps: their calls would be refused anyway.
    opts.store.onChange((c) => {
      if (c.kind !== 'bundle') return;
      const b = opts.store.bundleById(c.id);
      if (b && b.isEnabled && !b.softDeletedAt) return;
      for (const v of [...this.views.values()]) if (v.bundleId === c.id) this.closeView(v.viewId, b ? 'its server was switched off' : 'its server was removed');
    });
  }

  /** The host tells where it serves frame documents; without one, no app can be shown. */
  setFrameHost(host: FrameHost | undefined): void {
    this.frameHost = host;
  }

  /** Where frame documents are served now (undefined when no host serves them). */
  frameHostNow(): FrameHost | undefined {
    return this.frameHost;
  }

  /** A frame document for the host's listener (one load per id). */
  frameDocument(id: string, req: FrameRequest): FrameResponse {
    return frameResponse(this.frames, id, req);
  }

  async open(toolId: string, consent?: AppConsent): Promise<AppOpenResult> {
    const tool = this.opts.store.toolById(toolId);
    if (!tool) throw new AppError('NOT_FOUND', `no tool ${toolId}`);
    const uri = tool.mcp?.ui?.resourceUri;
    if (!uri) throw new AppError('VALIDATION_FAILED', `'${tool.slug}' has no app: its server gives it no ui:// page`);
    const server = this.opts.servers.serverOf(tool.bundleId);
    if (!server) throw new AppError('UNAVAILABLE', `'${tool.slug}' has an app, but the MCP server of its bundle is not configured`);
    if (server.apps === 'never') {
      return { status: 'off', bundleId: tool.bundleId, server: server.name, message: `Apps of '${server.name}' are off (Tools → ${server.name} → Apps).` };
    }
    // A switched-off bundle's server is not started to read a page (reading starts a stopped server).
    if (!this.opts.store.isUsable(tool.id)) throw new AppError('FORBIDDEN', `the app of '${server.name}' is not shown: '${tool.slug}' or its bundle is switched off`);
    if (!this.frameHost) throw new AppError('UNAVAILABLE', `the app of '${server.name}' cannot be shown: this host serves no app frames`);
    // The page the person consented to is the page shown: consent given for an ask uses the page read for it.
    const asked = consent ? this.asked.get(tool.id) : undefined;
    this.asked.delete(tool.id);
    const page = asked && this.now() - asked.at < ASK_VALID_MS ? asked.page : checkAppPage(await this.opts.servers.readResource(tool.bundleId, uri), uri, server.name);
    const domains = page.csp;
    const reaches = allDomains(domains);
    // "Always" covers the sites consented to then: a page that reaches a site not among them asks again.
    const newSites = reaches.filter((d) => !server.appDomains.includes(d));
    if (!consent && (server.apps === 'ask' || newSites.length > 0)) {
      this.asked.set(tool.id, { page, at: this.now() });
      if (this.asked.size > MAX_VIEWS) this.asked.delete(this.asked.keys().next().value!);
      return { status: 'ask', bundleId: tool.bundleId, server: server.name, pageBytes: page.bytes, domains, refused: page.refused };
    }
    if (consent === 'always') await this.opts.servers.setAppTrust(tool.bundleId, 'always', [...new Set([...server.appDomains, ...reaches])]);
    const frameId = this.frames.register(page.html, frameCsp(domains, this.frameHost.ancestors));
    const viewId = randomBytes(16).toString('hex');
    this.makeRoom();
    this.views.set(viewId, { viewId, bundleId: tool.bundleId, server: server.name, toolId: tool.id, allowed: new Set(), lastUsed: this.now(), calls: 0 });
    const refusedNote = page.refused.length ? `; left out: ${page.refused.join(', ')}` : '';
    this.opts.servers.logEvent(tool.bundleId, `app of '${tool.mcp?.serverTool ?? tool.slug}' opened (${page.bytes} bytes${refusedNote})`);
    return {
      status: 'open',
      viewId,
      frameUrl: `${this.frameHost.origin}/${frameId}`,
      bundleId: tool.bundleId,
      server: server.name,
      pageBytes: page.bytes,
      domains,
      refused: page.refused,
      ...(page.prefersBorder !== undefined ? { prefersBorder: page.prefersBorder } : {}),
      tool: toolInfo(tool),
    };
  }

  /** A `tools/call` of the app: a tool of its own server that apps may call, asked about as the tool requires. */
  async callTool(viewId: string, name: string, args: Record<string, unknown> = {}): Promise<AppCallResult> {
    const view = this.view(viewId);
    const tool = this.opts.store.toolsOf(view.bundleId).find((t) => t.mcp?.serverTool === name && this.opts.store.isUsable(t.id));
    if (!tool) return callResultOf(`'${name}' is not a tool of '${view.server}' that can run (it is unknown, or switched off in Tools)`, true);
    if (!isAppVisible(tool)) return callResultOf(`'${name}' is for the model only (_meta.ui.visibility); this app cannot call it`, true);
    if (view.calls >= MAX_APP_CALLS) return callResultOf(`the app of '${view.server}' has ${MAX_APP_CALLS} calls running; wait for one to end`, true);
    view.calls++;
    try {
      const refused = await this.approve(view, tool, args);
      if (refused) return callResultOf(refused, true);
      const o = await this.opts.dispatcher.invoke({ bundleId: tool.bundleId, slug: tool.slug, version: tool.version, args, source: 'app', ownerId: view.viewId });
      return o.ok ? callResultOf(o.value) : callResultOf(`${o.error.code}: ${o.error.message}`, true);
    } finally {
      view.calls--;
    }
  }

  /** Asks in the app's window when the tool asks before it runs; answers why not, or undefined to go on. */
  private async approve(view: View, tool: ToolView, args: Record<string, unknown>): Promise<string | undefined> {
    const approval = approvalOf(tool, this.opts.store.approvals());
    if (!approval || view.allowed.has(tool.id) || this.opts.approvals.allows(tool.id, view.viewId)) return undefined;
    const bundle = this.opts.store.bundleById(tool.bundleId);
    const toolName = `${bundle?.slug ?? tool.bundleId}/${tool.slug}`;
    if (!this.opts.queue.windowOpen()) return `'${toolName}' requires approval, and no Toolsmith window is open to ask`;
    const answer = await this.opts.queue.ask({ toolId: tool.id, toolName, displayName: tool.displayName, args, client: '', appOf: view.server, approval });
    if ('refused' in answer) return answer.refused;
    if (answer.decision === 'deny') return `the user denied '${toolName}' in Toolsmith; the call was not run`;
    if (answer.decision === 'allow-session') view.allowed.add(tool.id);
    if (answer.decision === 'allow-always') await this.opts.approvals.add({ toolId: tool.id, toolName, scope: 'always' });
    // The app may have been closed while the person answered.
    this.view(view.viewId);
    return undefined;
  }

  log(viewId: string, level: McpLogLevel, data: unknown): void {
    const view = this.view(viewId);
    let text = typeof data === 'string' ? data : JSON.stringify(data ?? null) ?? '';
    if (text.length > 2000) text = `${text.slice(0, 2000)}…`;
    this.opts.servers.logEvent(view.bundleId, `app [${level}]: ${text}`);
  }

  close(viewId: string): boolean {
    return this.views.delete(viewId);
  }

  setTrust(bundleId: string, apps: McpAppTrust): Promise<McpServerView> {
    if (!this.opts.servers.serverOf(bundleId)) throw new AppError('NOT_FOUND', `no MCP server for bundle ${bundleId}`);
    if (apps === 'never') for (const v of [...this.views.values()]) if (v.bundleId === bundleId) this.closeView(v.viewId, 'apps of its server were switched off');
    return this.opts.servers.setAppTrust(bundleId, apps);
  }

  /** Open apps (tests and the limits read it). */
  openViews(): number {
    return this.views.size;
  }

  private view(viewId: string): View {
    const v = this.views.get(viewId);
    if (!v) throw new AppError('NOT_FOUND', appClosed);
    v.lastUsed = this.now();
    return v;
  }

  private closeView(viewId: string, reason: string): void {
    if (this.views.delete(viewId)) this.opts.onClosed?.(viewId, reason);
  }

  private makeRoom(): void {
    while (this.views.size >= MAX_VIEWS) {
      const oldest = [...this.views.values()].reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a));
      this.closeView(oldest.viewId, `more than ${MAX_VIEWS} apps were open`);
    }
  }
}

/** The tool as its server described it (the host context's `toolInfo.tool`), rebuilt from its tool file. */
function toolInfo(tool: ToolView): AppToolInfo {
  const mcp = tool.mcp!;
  const ui = mcp.ui!;
  return {
    name: mcp.serverTool,
    ...(mcp.title ? { title: mcp.title } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: tool.argSchema,
    ...(Object.keys(tool.outputSchema).length ? { outputSchema: tool.outputSchema } : {}),
    ...(mcp.annotations ? { annotations: { ...mcp.annotations } } : {}),
    _meta: { ui: { ...ui }, 'ui/resourceUri': ui.resourceUri },
  };
}
