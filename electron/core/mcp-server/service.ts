/**
 * The registry as an MCP server, in both revisions of the protocol:
 * - 2025-11-25 and older: one SDK `Server` per client connection (stdio, a Streamable HTTP
 *   session, or in memory), with a session of its own;
 * - 2026-07-28 (stateless): over HTTP one `Server` per request (`modernHandler`), all sharing
 *   one session (see docs/design/mcp-2026.md, "What a session held"); over stdio one per connection.
 * Each answers tools/list with the served tools (or, with progressive discovery, the tools
 * that session has: ./discovery.ts) and tools/call through callServedTool.
 * Built once by mcp-server/module.ts; the transports (electron/host) connect servers to it.
 */
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, createMcpHandler, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, Server, type CallToolResult, type McpHttpHandler, type ClientCapabilities, type ServerContext, type ServerNotification, type Tool } from '@modelcontextprotocol/server';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { McpServerInfo, McpServerSettings } from '../../../shared/model/mcp-serve';
import type { ToolSearchSettings } from '../../../shared/model/tool-search';
import type { ToolView } from '../../../shared/model/tool';
import type { ApprovalStore } from '../agent/approvals';
import type { EventBus } from '../events';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { ToolStore } from '../bundles/tool-store';
import { TOOL_OUTPUT_DESCRIPTION, TOOL_OUTPUT_NAME, TOOL_OUTPUT_SCHEMA } from '../tool-output/messages';
import { DEFAULT_MAX_RESULT_BYTES } from '../tool-output/gate';
import { shortDescription } from '../tool-search';
import type { ToolOutputService } from '../tool-output/service';
import type { ExtractionModel } from '../tool-output/types';
import { servedAnnotations, servedTaskSupport } from './annotations';
import { McpApprovalQueue } from './approval-queue';
import { callServedTool, callToolOutput, type CallDeps, type McpSession, type ServedProgress } from './call';
import { clientLabel } from './client-name';
import { answeredOrAsk, clientConfirm, offersForms, taskConfirm } from './client-confirm';
import { TOOL_SEARCH_NAME, unknownWhileSearching, type FoundTool, type ServedSearch } from './discovery';
import { ServedTools, type ServedTool } from './served-tools';
import { ServedTasks, TASKS_EXTENSION } from './tasks';
import { APP_RESOURCES, AppPages, callToolUsage, rendersApps, TOOL_USAGE_NAME, toolUsageDefinition, type UsageStatsOf } from './tool-usage';

export interface McpServeOptions {
  store: Pick<ToolStore, 'allTools' | 'isUsable' | 'bundleById'> & Partial<Pick<ToolStore, 'trustAllowedScript' | 'allowScriptOnce'>>;
  dispatcher: Pick<InvokeDispatcher, 'invoke' | 'cancel'> & Partial<Pick<InvokeDispatcher, 'onProgress'>>;
  toolOutputs: ToolOutputService;
  approvals: Pick<ApprovalStore, 'allows' | 'add'> & Partial<Pick<ApprovalStore, 'reload'>>;
  settings: () => McpServerSettings;
  /** Settings → Tool search: the pinned tools and how many tools a search returns (default: its defaults). */
  toolSearch?: () => Pick<ToolSearchSettings, 'pinned' | 'results'>;
  events?: Pick<EventBus, 'on' | 'emit'>;
  now: () => Date;
  version: string;
  dataDir: string;
  extractionModel?: () => ExtractionModel | undefined;
  /** Settings' bytes cap for a result (Settings → Tool outputs; default 256 KiB). */
  maxResultBytes?: () => number;
  /** How long a call waits for an answer in the app (default 5 minutes). */
  approvalTimeoutMs?: number;
  /** A tool's figures from the invocation log: given, `tool_usage` is served beside tool_output (./tool-usage.ts). */
  usageStats?: UsageStatsOf;
  /** The app's shipped files, where tool_usage's page is read (`mcp-apps/tool-usage.html`). */
  resourcesDir?: string;
}

export const serverOff = 'the MCP server is switched off in Toolsmith: switch it on and pick the bundles to serve in Settings → MCP server';
export const unknownTool = (name: string, known: readonly string[]) =>
  `unknown tool '${String(name).slice(0, 100)}'${known.length ? `: this server serves ${known.slice(0, 30).join(', ')}${known.length > 30 ? ', …' : ''}` : ': this server serves no tools (pick bundles in Toolsmith → Settings → MCP server)'}`;

export const SERVER_INSTRUCTIONS =
  "Tools from the user's Toolsmith registry. A result too large to return whole comes back as a handle: call tool_output with that handle and say precisely what to extract.";
/** Added to the instructions while clients search for tools (./discovery.ts). */
export const SEARCH_INSTRUCTIONS = ` Not every tool is listed: call ${TOOL_SEARCH_NAME} with what you need to do, and call the tools it returns by name.`;

export interface ConnectedServer {
  server: Server;
  session: McpSession;
  /** Ends the session: its stored outputs are removed. */
  close(): Promise<void>;
}

type ToolsCallHandler = Parameters<Server['_wrapHandler']>[1];

/**
 * The SDK's server, for connections that run calls as tasks: the SDK holds every tools/call
 * answer to the call result's shape, and a call that runs as a task (`runsAsTask`) answers the
 * task instead: `{task}` at 2025-11-25, where the client asked for one; at 2026-07-28 (the tasks
 * extension) a `resultType: "task"` answer, where the client declares the extension and the
 * tool is a slow one. Such a call's request is still checked.
 */
class TaskingServer extends Server {
  runsAsTask: (request: Parameters<ToolsCallHandler>[0], ctx: ServerContext) => boolean = () => false;

  protected override _wrapHandler(method: string, handler: ToolsCallHandler): ReturnType<Server['_wrapHandler']> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return (request, ctx) => (this.runsAsTask(request, ctx) ? handler(request, ctx) : wrapped(request, ctx));
  }
}

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The session 2026 HTTP clients share, and what ends it. */
interface ModernSession {
  state: SessionState;
  handler: McpHttpHandler;
  /** When a 2026 request last came or a call of one ended (the endpoint's clock). */
  lastSeen: number;
  /** tools/call requests running. */
  running: number;
  now: () => number;
}

/** What a session holds, for a client that has none of its own yet. */
export interface SessionState {
  ownerId: string;
  allowed: Set<string>;
  found: Set<string>;
}

export function newSessionState(prefix = 'mcp'): SessionState {
  return { ownerId: `${prefix}-${uuidv7()}`, allowed: new Set(), found: new Set() };
}

/**
 * Whether the client renders MCP Apps: its capabilities from the request's envelope (2026-07-28,
 * where each request carries them), else from initialize (2025).
 */
function appsOf(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined;
  return rendersApps(envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities());
}

/** The client's capabilities in a 2026 request's envelope. */
function capabilitiesOf(ctx: ServerContext): ClientCapabilities | undefined {
  return (ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
}

/** The client declares the tasks extension of 2026-07-28 in this request's capabilities. */
function declaresTasks(ctx: ServerContext): boolean {
  const extensions = (capabilitiesOf(ctx) as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return isObject(extensions) && extensions![TASKS_EXTENSION] !== undefined;
}

/** The client's own name for itself: from initialize (2025), else from the request's envelope (2026). */
function clientOf(server: Server, ctx: ServerContext): string {
  const c = server.getClientVersion() ?? (ctx.mcpReq.envelope as Record<string, { name?: unknown; version?: unknown } | undefined> | undefined)?.[CLIENT_INFO_META_KEY];
  return c ? clientLabel(c.name, c.version) : '';
}

export class McpServeService {
  readonly queue: McpApprovalQueue;
  readonly served: ServedTools;
  /** Calls run as tasks: those 2025 clients ask for, and the slow tools' for 2026 clients that declare the tasks extension (./tasks.ts). */
  readonly tasks: ServedTasks;
  private readonly servers = new Set<Server>();
  /** The one session 2026-07-28 HTTP clients share (they send no session id), and its handler. */
  private modern: ModernSession | undefined;
  private endpoints: Omit<McpServerInfo, 'dataDir'> = { stdioCommand: ['toolsmith', 'mcp'], httpUrl: null, tokenFile: null };
  private readonly deps: CallDeps;
  private listChangedTimer: ReturnType<typeof setTimeout> | undefined;
  /** The clients to tell at the end of the current burst of changes. */
  private readonly toTell = new Set<Server>();
  /** tool_usage's page, when tool_usage is served. */
  private readonly pages: AppPages | undefined;

  constructor(private readonly opts: McpServeOptions) {
    this.queue = new McpApprovalQueue({ now: opts.now, onChange: () => opts.events?.emit('mcpServer.approvalsChanged', {}), ...(opts.approvalTimeoutMs ? { timeoutMs: opts.approvalTimeoutMs } : {}) });
    // tool_output, and tool_usage when served, are listed beside tool_search while clients search.
    this.served = new ServedTools(opts.store, opts.settings, opts.toolSearch, opts.usageStats ? 2 : 1);
    this.pages = opts.usageStats ? new AppPages(opts.resourcesDir ?? '') : undefined;
    this.tasks = new ServedTasks(opts.now);
    const progressTo = new Map<string, (report: ServedProgress) => void>();
    const { trustAllowedScript, allowScriptOnce } = opts.store;
    this.deps = {
      dispatcher: opts.dispatcher,
      toolOutputs: opts.toolOutputs,
      approvals: opts.approvals,
      queue: this.queue,
      extractionModel: opts.extractionModel ?? (() => undefined),
      maxResultBytes: opts.maxResultBytes ?? (() => DEFAULT_MAX_RESULT_BYTES),
      progressTo,
      ...(trustAllowedScript ? { trustAllowedScript: (tool: ToolView) => trustAllowedScript.call(opts.store, tool) } : {}),
      ...(allowScriptOnce ? { allowScriptOnce: (invocationId: string, sha256: string) => allowScriptOnce.call(opts.store, invocationId, sha256) } : {}),
    };
    // A served call's progress (an MCP tool's own, a task's status) goes on to the client that asked for it.
    opts.dispatcher?.onProgress?.((p) => progressTo.get(p.invocationId)?.(p));
    opts.events?.on('store.changed', () => this.changed());
    opts.events?.on('settings.changed', () => this.changed());
  }

  /** The store or the settings changed: the list is rebuilt, and connected clients are told (once per burst). */
  changed(): void {
    this.served.invalidate();
    // Switched off: the tasks running for clients stop.
    if (!this.served.enabled()) this.tasks.endSession();
    // Every client connected at one of the burst's changes is told (one that connects after them lists the new list anyway).
    for (const s of this.servers) this.toTell.add(s);
    if (this.listChangedTimer || (this.servers.size === 0 && !this.modern)) return;
    this.listChangedTimer = setTimeout(() => {
      this.listChangedTimer = undefined;
      const told = [...this.toTell];
      this.toTell.clear();
      for (const s of told) if (this.servers.has(s)) s.sendToolListChanged().catch(() => undefined);
      this.modern?.handler.notify.toolsChanged();
    }, 50);
    this.listChangedTimer.unref?.();
  }

  /** Another process on the data folder changed the remembered approvals: read them again. */
  async reloadApprovals(): Promise<void> {
    await this.opts.approvals.reload?.();
  }

  /** Where clients reach the server; hosts say what they serve. */
  setEndpoints(e: Partial<Omit<McpServerInfo, 'dataDir'>>): void {
    this.endpoints = { ...this.endpoints, ...e };
  }

  info(): McpServerInfo {
    return { dataDir: this.opts.dataDir, ...this.endpoints };
  }

  /**
   * The tools/list answer: every served tool, or, while clients search, the tools this session
   * has. `tasks`: the client speaks 2025-11-25, where the slow tools may run as tasks; `apps`:
   * it renders MCP Apps, so tool_usage names its page.
   */
  listTools(session?: Pick<McpSession, 'found'>, tasks = false, apps = false): Tool[] {
    const { tools, search } = this.served.list();
    if (!this.served.enabled()) return [];
    const found = session?.found ?? new Set<string>();
    const out: Tool[] = (search ? tools.filter((t) => search.listed(t.name, found)) : tools).map((t) => ({
      name: t.name,
      title: t.tool.displayName,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
      ...annotationsOf(t),
      ...(tasks && servedTaskSupport(t.tool) ? { execution: { taskSupport: 'optional' as const } } : {}),
    }));
    if (search) out.push(search.definition());
    out.push({ name: TOOL_OUTPUT_NAME, title: 'Tool output', description: TOOL_OUTPUT_DESCRIPTION, inputSchema: TOOL_OUTPUT_SCHEMA as unknown as Tool['inputSchema'], annotations: { readOnlyHint: true } });
    if (this.opts.usageStats) out.push(toolUsageDefinition(apps));
    return out;
  }

  /**
   * A new server for one client connection (either revision: the client's first message decides);
   * connect it to a transport. `shared`: the session it serves, which its caller ends
   * (`endSession`); by default a new one, ended with the server.
   */
  createServer(shared?: SessionState, era: 'legacy' | 'modern' = 'legacy'): ConnectedServer {
    const state = shared ?? newSessionState();
    const server = this.newServer(state, undefined, era === 'legacy');
    const session: McpSession = { ...state, client: () => (server.getClientVersion() ? clientLabel(server.getClientVersion()!.name, server.getClientVersion()!.version) : '') };
    this.servers.add(server);
    let closed: Promise<void> | undefined;
    const close = () =>
      (closed ??= (async () => {
        this.servers.delete(server);
        this.toTell.delete(server);
        if (!shared) await this.endSession(state);
        else this.tasks.endSession(state.ownerId);
      })());
    const prev = server.onclose;
    server.onclose = () => {
      prev?.();
      void close();
    };
    return {
      server,
      session,
      close: async () => {
        await server.close().catch(() => undefined);
        await close();
      },
    };
  }

  /**
   * 2026-07-28 over HTTP: one server per request, built here, every request in the one shared
   * session (stored outputs, "allow for this session" and found tools), which ends as a 2025
   * session does when left idle (`sweepModern`) and when the endpoint closes (`closeModern`).
   * List changes reach clients on their `subscriptions/listen` streams. `now`: the endpoint's clock.
   */
  modernHandler(now: () => number = Date.now, maxSubscriptions = 64): McpHttpHandler {
    if (this.modern) return this.modern.handler;
    const m: Omit<ModernSession, 'handler'> & { handler?: McpHttpHandler } = { state: newSessionState('mcp-2026'), lastSeen: now(), running: 0, now };
    m.handler = createMcpHandler(
      () => {
        m.lastSeen = now();
        return this.newServer(m.state, m as ModernSession);
      },
      { legacy: 'reject', maxSubscriptions },
    );
    this.modern = m as ModernSession;
    return m.handler;
  }

  /**
   * Ends the shared 2026 session when no 2026 request came for `idleMs` and none is running
   * (its stored outputs are removed); the next request starts a new one. True when it ended.
   */
  async sweepModern(idleMs: number): Promise<boolean> {
    const m = this.modern;
    if (!m || m.running > 0 || m.now() - m.lastSeen < idleMs) return false;
    const old = m.state;
    m.state = newSessionState('mcp-2026');
    await this.endSession(old);
    return true;
  }

  /** Ends a session: its stored outputs are removed. */
  async endSession(state: SessionState): Promise<void> {
    this.tasks.endSession(state.ownerId);
    await this.opts.toolOutputs.endSession(state.ownerId).catch(() => undefined);
  }

  /** Ends the shared 2026 session: its stored outputs are removed. */
  async closeModern(): Promise<void> {
    const m = this.modern;
    if (!m) return;
    this.modern = undefined;
    await m.handler.close().catch(() => undefined);
    await this.endSession(m.state);
  }

  /**
   * `modern`: a server for one 2026 request of the shared session; `tasks`: a 2025 connection,
   * where the slow tools may run as tasks. Any other is a 2026 one, which offers the tasks extension.
   */
  private newServer(state: SessionState, modern?: ModernSession, tasks = false): Server {
    const server = new TaskingServer(
      { name: 'toolsmith', title: 'Toolsmith', version: this.opts.version },
      {
        capabilities: {
          tools: { listChanged: true },
          ...(this.pages ? { resources: {} } : {}),
          ...(tasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : { extensions: { [TASKS_EXTENSION]: {} } }),
        },
        instructions: SERVER_INSTRUCTIONS + (this.served.list().search ? SEARCH_INSTRUCTIONS : ''),
      },
    );
    server.runsAsTask = tasks ? (req) => isObject((req.params as { task?: unknown } | undefined)?.task) : (req, ctx) => this.modernTaskTool(req.params?.name, ctx) !== undefined;
    server.setRequestHandler('tools/list', (_req, ctx) => ({ tools: this.listTools(state, tasks, appsOf(server, ctx)) }));
    if (this.pages) this.serveResources(server, this.pages);
    if (tasks) this.serveTasks(server, state);
    else this.serveModernTasks(server, state);
    // A search that adds tools to the list says so on the request's own channel (ctx.mcpReq.notify):
    // over HTTP that is the POST's stream, which every 2025 client reads (unlike the optional GET
    // stream); a 2026 client hears it on its subscriptions/listen stream.
    server.setRequestHandler('tools/call', (req, ctx) => {
      const token = req.params._meta?.progressToken;
      const progress =
        token === undefined
          ? undefined
          : (p: ServedProgress) =>
              void ctx.mcpReq
                .notify({ method: 'notifications/progress', params: { progressToken: token, progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) } })
                .catch(() => undefined);
      // No window to approve in: the client's own user may be asked (Settings → MCP server).
      const confirm = this.opts.settings().askClient ? clientConfirm(tasks, server.getClientCapabilities(), ctx) : undefined;
      // One shape for every call, made field by field (spreads of the session and of empty objects cost more).
      const session: McpSession = { ownerId: state.ownerId, allowed: state.allowed, found: state.found, client: () => clientOf(server, ctx), progress, confirm };
      const task = (req.params as { task?: { ttl?: unknown } }).task;
      if (tasks && task) return this.startTask(session, req.params.name, req.params.arguments, task.ttl) as unknown as Promise<CallToolResult>;
      const taskTool = tasks ? undefined : this.modernTaskTool(req.params.name, ctx);
      if (taskTool) return this.startModernTask(session, taskTool, req.params.arguments, modern, this.opts.settings().askClient && offersForms(capabilitiesOf(ctx))) as unknown as CallToolResult;
      if (!modern && tasks) return this.callTool(session, req.params.name, req.params.arguments, ctx.mcpReq.signal, (n: ServerNotification) => ctx.mcpReq.notify(n));
      if (!modern) return answeredOrAsk(this.callTool(session, req.params.name, req.params.arguments, ctx.mcpReq.signal, (n: ServerNotification) => ctx.mcpReq.notify(n))) as Promise<CallToolResult>;
      // A call still running keeps the shared session from ending; its end counts as use.
      modern.running++;
      const done = () => {
        modern.running--;
        modern.lastSeen = modern.now();
      };
      const call = answeredOrAsk(this.callTool(session, req.params.name, req.params.arguments, ctx.mcpReq.signal, async () => modern.handler.notify.toolsChanged()));
      call.then(done, done);
      return call as Promise<CallToolResult>;
    });
    return server;
  }

  /**
   * tools/call: an unknown tool is a protocol error; everything the tool itself does wrong is an
   * isError result. Any served tool runs, whether this client's list shows it or not.
   * `notify` sends the client a notification tied to this call (a search that added tools says the list changed).
   */
  callTool(session: McpSession, name: string, args: unknown, signal?: AbortSignal, notify?: (n: ServerNotification) => Promise<void>): Promise<CallToolResult> {
    try {
      if (!this.served.enabled()) return Promise.reject(new ProtocolError(ProtocolErrorCode.InvalidRequest, serverOff));
      if (name === TOOL_OUTPUT_NAME) return callToolOutput(this.deps, session, args, signal);
      const { byName, tools, search } = this.served.list();
      if (name === TOOL_USAGE_NAME && this.opts.usageStats) return Promise.resolve(callToolUsage(args, tools, byName, this.opts.usageStats));
      if (search && name === TOOL_SEARCH_NAME) return this.search(search, session, args, notify);
      const served = byName.get(name);
      if (!served) {
        const extras = this.opts.usageStats ? [TOOL_OUTPUT_NAME, TOOL_USAGE_NAME] : [TOOL_OUTPUT_NAME];
        const why = search ? unknownWhileSearching(name) : unknownTool(name, [...tools.map((t) => t.name), ...extras]);
        return Promise.reject(new ProtocolError(ProtocolErrorCode.InvalidParams, why));
      }
      return callServedTool(this.deps, session, served, args, signal);
    } catch (e) {
      // Always an answer as a promise, as an async function gives.
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /**
   * resources/list and resources/read: the pages of the served tools' apps (tool_usage's), for
   * clients that render MCP Apps; a URI not served is the SDK's resource-not-found error.
   */
  private serveResources(server: Server, pages: AppPages): void {
    server.setRequestHandler('resources/list', () => ({ resources: this.served.enabled() ? APP_RESOURCES : [] }));
    server.setRequestHandler('resources/read', async (req) => {
      if (!this.served.enabled()) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, serverOff);
      const page = await pages.read(req.params.uri);
      if (!page) throw new ResourceNotFoundError(req.params.uri, `'${String(req.params.uri).slice(0, 200)}' is not a resource this server serves: resources/list names them`);
      return page;
    });
  }

  /** tasks/get, tasks/list, tasks/result and tasks/cancel over the session's tasks. */
  private serveTasks(server: Server, state: SessionState): void {
    const owner = state.ownerId;
    // The task methods of 2025-11-25, which the SDK's types no longer name: registered with their params' schema.
    const byId = { params: z.object({ taskId: z.string() }).passthrough() };
    server.setRequestHandler('tasks/get', byId, (p) => ({ ...this.tasks.get(owner, p.taskId) }));
    server.setRequestHandler('tasks/list', { params: z.object({}).passthrough() }, () => ({ tasks: this.tasks.list(owner) }));
    server.setRequestHandler('tasks/cancel', byId, (p) => ({ ...this.tasks.cancel(owner, p.taskId) }));
    server.setRequestHandler('tasks/result', byId, async (p) => {
      const r = await this.tasks.result(owner, p.taskId);
      return { ...r, _meta: { ...r._meta, 'io.modelcontextprotocol/related-task': { taskId: p.taskId } } };
    });
  }

  /**
   * tasks/get, tasks/update and tasks/cancel of the tasks extension (2026-07-28), over the
   * session's tasks, for clients that declare the extension on the request (others are refused
   * with -32021, as the extension says). tasks/get carries a finished task's result or error, or
   * the questions a task waits on; tasks/update brings their answers.
   */
  private serveModernTasks(server: Server, state: SessionState): void {
    const owner = state.ownerId;
    const declared = (ctx: ServerContext) => {
      if (!declaresTasks(ctx)) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }, `tasks are for clients that declare the ${TASKS_EXTENSION} extension in the request's capabilities`);
    };
    const byId = { params: z.object({ taskId: z.string() }).passthrough() };
    server.setRequestHandler('tasks/get', byId, (p, ctx) => {
      declared(ctx);
      return { ...this.tasks.detailed(owner, p.taskId) };
    });
    server.setRequestHandler('tasks/cancel', byId, (p, ctx) => {
      declared(ctx);
      // A cancel is a wish: a task that already ended is acknowledged as it is.
      this.tasks.cancel(owner, p.taskId, true);
      return {};
    });
    server.setRequestHandler('tasks/update', { params: z.object({ taskId: z.string(), inputResponses: z.unknown().optional() }).passthrough() }, (p, ctx) => {
      declared(ctx);
      // The SDK takes a request's inputResponses out of its params (ctx.mcpReq.inputResponses).
      this.tasks.update(owner, p.taskId, ctx.mcpReq.inputResponses ?? p.inputResponses);
      return {};
    });
  }

  /**
   * The served tool a 2026 call runs as a task: a slow one (as at 2025), called by a client that
   * declares the tasks extension. One that asks before it runs asks in its task.
   */
  private modernTaskTool(name: unknown, ctx: ServerContext): ServedTool | undefined {
    if (typeof name !== 'string' || !declaresTasks(ctx) || !this.served.enabled()) return undefined;
    const served = this.served.list().byName.get(name);
    if (!served || !servedTaskSupport(served.tool)) return undefined;
    return served;
  }

  /**
   * A 2026 call run as a task: answered at once with the task (`resultType: "task"`); the call
   * runs as any other (approvals in the window, limits, the log), its progress becoming the
   * task's status message. A tool that asks before it runs, with no window to ask in, asks the
   * client's user in the task (`askClient`: Settings → MCP server allows it and the client offers
   * form questions): the task waits, input_required, for the answer in tasks/update.
   * Over HTTP a running task keeps the shared session from ending.
   */
  private startModernTask(session: McpSession, served: ServedTool, args: unknown, modern: ModernSession | undefined, askClient: boolean): Record<string, unknown> {
    const view = this.tasks.create(session.ownerId, undefined, (signal, report, ask) => {
      const inTask: McpSession = {
        ownerId: session.ownerId,
        allowed: session.allowed,
        found: session.found,
        client: session.client,
        progress: (p) => report(p.message ?? (p.total !== undefined ? `${p.progress} of ${p.total}` : `${p.progress}`)),
        ...(askClient ? { confirm: taskConfirm(ask) } : {}),
      };
      const call = callServedTool(this.deps, inTask, served, args, signal);
      if (modern) {
        modern.running++;
        const done = () => {
          modern.running--;
          modern.lastSeen = modern.now();
        };
        call.then(done, done);
      }
      return call;
    });
    const { ttl, pollInterval, ...rest } = view;
    return { resultType: 'task', ...rest, ttlMs: ttl, pollIntervalMs: pollInterval };
  }

  /** A call run as a task: the tool must be one that may (a slow one); the task runs as a call would. */
  private async startTask(session: McpSession, name: string, args: unknown, ttl: unknown): Promise<{ task: unknown }> {
    if (!this.served.enabled()) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, serverOff);
    const served = this.served.list().byName.get(name);
    if (!served || !servedTaskSupport(served.tool)) {
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `'${String(name).slice(0, 100)}' does not run as a task here (only tools listed with execution.taskSupport do): call it without task`);
    }
    return { task: this.tasks.create(session.ownerId, ttl, (signal) => callServedTool(this.deps, session, served, args, signal)) };
  }

  /** tool_search: the best tools for the query, added to the session's list; the client is told when it grew. */
  private async search(search: ServedSearch, session: McpSession, args: unknown, notify?: (n: ServerNotification) => Promise<void>): Promise<CallToolResult> {
    const { result, added } = await search.search(args, session.found, foundTool);
    // Best effort: a notice that cannot be sent (the client went away) does not fail the search.
    if (added.length) await notify?.({ method: 'notifications/tools/list_changed' }).catch(() => undefined);
    return result;
  }
}

/** A tool tool_search found: its short description and its input schema, so the client can call it at once. */
function foundTool(t: ServedTool): FoundTool {
  return { name: t.name, title: t.tool.displayName, description: shortDescription(t.description || t.tool.displayName), inputSchema: t.inputSchema, ...annotationsOf(t) };
}

/** What a client is told of a tool's effects (./annotations.ts). */
function annotationsOf(t: ServedTool): Pick<Tool, 'annotations'> {
  const annotations = servedAnnotations(t.tool, t.approval !== null);
  return annotations ? { annotations } : {};
}
