/**
 * One MCP server's connection: started on demand, with a deadline on start and on each call;
 * after a crash (or a failed start) started again on the next call after a back-off that grows,
 * at most `maxRestarts` times until a person restarts it; stopped on request with its process
 * ended (stdin closed, then SIGTERM, then SIGKILL; on POSIX to its whole process group, so the
 * children of a wrapper such as npx end too). Its stderr and what happened to it go to
 * a bounded log; its status (stopped, starting, connected, failed and why) is kept for the
 * Tools screen.
 */
import {
  auth,
  Client,
  extractWWWAuthenticateParams,
  InsufficientScopeError,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { AppError } from '../../../shared/errors';
import { parseTemplate } from '../../../shared/model/http-spec';
import type { McpServerConfig, McpServerStatus } from '../../../shared/model/mcp-client';
import { PROGRESS_TIMEOUT_FACTOR, type ProgressReport } from '../invoke/progress';
import type { SecretResolver } from '../secrets/types';
import { isHttpDropped, limitedFetch, requestIds, type FetchLike } from './http-limits';
import { LogRing } from './log-ring';
import { SecretOAuthProvider, SIGN_IN_TIMEOUT_MS, type OAuthSecrets } from './oauth';
import type { McpCallResult } from './results';
import { isTooLarge, observed, type ObservedTransport } from './observed-transport';
import { OrderedClient, taskAnswer, TASKS_EXTENSION } from './ordered-client';
import { callHeaders, HEADER_MISMATCH } from './param-headers';
import { StdioTransport } from './stdio-transport';

export interface ConnectionOptions {
  bundleId: string;
  /**
   * Asks the user a question of the server (elicitation: a form or a page to open) and answers
   * with what they chose; none: the client does not offer elicitation.
   */
  elicit?: (params: unknown, signal: AbortSignal, tool?: string, invocationId?: string) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean | string[]> }>;
  config: McpServerConfig;
  /** The working folder of a stdio server without its own. */
  defaultCwd: () => string;
  secrets: SecretResolver & OAuthSecrets;
  now: () => Date;
  clientVersion: string;
  /** The largest message a server may send (stdio line, HTTP response body, one event of an HTTP event stream). */
  maxMessageBytes: number;
  /** First back-off after a failure; doubles each time, at most maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A connection that stayed up this long before it failed starts its restart count afresh. */
  stableMs: number;
  /** Opens an OAuth sign-in page in the person's browser. */
  openUrl?: (url: string) => void | Promise<void>;
  /** How long a sign-in may take (default 5 minutes). */
  signInTimeoutMs?: number;
  /** How long a call runs before its cancel is watched for (default CANCEL_WATCH_AFTER_MS). */
  cancelWatchAfterMs?: number;
  onStatus: () => void;
  /** The server said its tools changed: list them again. */
  onToolsChanged: () => void;
  /** A (re)connection: the tools may have changed while it was down. */
  onConnected: () => void;
}

const ListToolsPageSchema = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).passthrough();
/** How long a stdio server has to answer the 2026 probe before it is taken for a 2025 server (which then gets initialize). */
const STDIO_PROBE_MS = 5_000;

/**
 * A task as the server reports it: MCP 2025-11-25 tasks (`pollInterval`), or the tasks extension
 * of 2026-07-28 (`pollIntervalMs`; once done, its `result` or `error`; while it waits for the
 * client, its `inputRequests`).
 */
const TaskSchema = z
  .object({
    taskId: z.string().min(1).max(512),
    status: z.string(),
    statusMessage: z.string().optional(),
    pollInterval: z.number().optional(),
    pollIntervalMs: z.number().optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).passthrough().optional(),
    inputRequests: z.record(z.string(), z.object({ method: z.string(), params: z.unknown().optional() }).passthrough()).optional(),
  })
  .passthrough();
type TaskState = z.infer<typeof TaskSchema>;
const CreateTaskSchema = z.object({ task: TaskSchema }).passthrough();
const EmptyResultSchema = z.object({}).passthrough();
/** Statuses after which a 2025 task is not asked after again (input_required: its result carries the server's questions). */
const TASK_SETTLED = new Set(['completed', 'failed', 'cancelled', 'input_required']);
/** Statuses a task of the 2026 extension ends in (input_required: answered with tasks/update, then asked after again). */
const TASK_ENDED = new Set(['completed', 'failed', 'cancelled']);
/** How often a task is asked after: its server's pollInterval, within these bounds. */
const TASK_POLL_MS = { min: 100, default: 1_000, max: 5_000 };
/** A tools/call answer: checked entry by entry later (./results.ts), so only its shape here. */
const CallToolPageSchema = z.object({ content: z.array(z.unknown()).optional(), structuredContent: z.unknown().optional(), isError: z.boolean().optional() }).passthrough();
/** A resources/read answer; its items are checked by whoever reads them (an app's page: mcp-apps/resource.ts). */
const ReadResourcePageSchema = z.object({ contents: z.array(z.object({ uri: z.string() }).passthrough()) }).passthrough();
/** The MCP Apps extension: the client shows a tool's `ui://` page (mcp-apps). */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** How long the SDK waits before resuming a POST event stream the server closed without its own `retry` (its first back-off). */
const RESUME_DEFAULT_RETRY_MS = 1_000;
/** A server's `retry` is waited for at most this long. */
const RESUME_MAX_RETRY_MS = 30_000;
/** What a resumed stream has to bring the answer, past its `retry`, before the request is given up. */
const RESUME_GRACE_MS = 5_000;
/** Pages of tools/list read at most. */
const MAX_LIST_PAGES = 50;

/** What an HTTP server said with its last 401 or 403 (WWW-Authenticate, RFC 6750 §3). */
interface Challenge {
  status: number;
  scope?: string;
  error?: string;
  resourceMetadataUrl?: URL;
}

/**
 * Sign-ins one request may ask for: one for a missing (or dead) token, one for more scope. A
 * server that refuses again after that would refuse forever: the request fails, no loop.
 */
const MAX_SIGN_INS = 2;

/** A stderr line that names an error: `Error: …`, `TypeError: …`, Python's `ModuleNotFoundError: …`, `error: …`. */
const ERROR_LINE = /(^|\b)([A-Z]\w*(Error|Exception)\b|error:|fatal:|panic:)/i;
/** How many of the process's last stderr lines are searched for one that names an error. */
const ERROR_SEARCH_LINES = 50;

/** How much of a stdout line that is not an MCP message is quoted in the log. */
const JUNK_QUOTE_CHARS = 200;

/**
 * The SDK's stdio transport (on Windows, where our own, StdioTransport, is not used: cross-spawn
 * finds npx.cmd and the like), remembering its process id: the SDK forgets it as soon as it
 * starts closing.
 */
class TrackedStdioTransport extends StdioClientTransport {
  startedPid: number | undefined;
  onStarted?: (pid: number) => void;

  constructor(params: ConstructorParameters<typeof StdioClientTransport>[0]) {
    super(params);
    quoteUnreadLines(this);
  }

  override async start(): Promise<void> {
    await super.start();
    this.startedPid = this.pid ?? undefined;
    if (this.startedPid !== undefined) this.onStarted?.(this.startedPid);
  }

  /** SIGKILL to its process now; true when it was sent. */
  kill(): boolean {
    return this.startedPid !== undefined && killIfAlive(this.startedPid);
  }
}

type StdioLike = StdioTransport | TrackedStdioTransport;

function isStdio(t: Transport): t is StdioLike {
  return t instanceof StdioTransport || t instanceof TrackedStdioTransport;
}

function pidOf(t: StdioLike): number | undefined {
  return t instanceof StdioTransport ? t.pid : t.startedPid;
}

/**
 * The SDK's read buffer throws a parse error for a stdout line that is not an MCP message,
 * without the line; the error is given the line's start, so the log shows what the server
 * printed. Relies on the buffer's shape (`_readBuffer` with `readMessage` and `_buffer`);
 * when that is not there, errors are left as they are.
 */
function quoteUnreadLines(transport: object): void {
  const rb = (transport as { _readBuffer?: { readMessage?: () => unknown; _buffer?: Buffer } })._readBuffer;
  if (!rb || typeof rb.readMessage !== 'function') return;
  const read = rb.readMessage.bind(rb);
  rb.readMessage = () => {
    const buf = rb._buffer;
    const nl = Buffer.isBuffer(buf) ? buf.indexOf(10) : -1;
    try {
      return read();
    } catch (e) {
      if (e instanceof Error && nl >= 0 && buf) {
        const line = buf.toString('utf8', 0, Math.min(nl, JUNK_QUOTE_CHARS * 4)).replace(/\r$/, '');
        const quoted = line.length > JUNK_QUOTE_CHARS ? `${line.slice(0, JUNK_QUOTE_CHARS)}…` : line;
        e.message = `${firstLineOf(e.message)} — the line: ${JSON.stringify(quoted)}`;
      }
      throw e;
    }
  };
}

function firstLineOf(message: string): string {
  const first = message.split('\n')[0] ?? '';
  return first.length > 300 ? `${first.slice(0, 300)}…` : first;
}

export class McpServerConnection {
  readonly log: LogRing;
  private state: McpServerStatus['state'] = 'stopped';
  private reason: string | undefined;
  private since: string;
  private restarts = 0;
  private pid: number | undefined;
  private serverInfo: McpServerStatus['serverInfo'];
  private client: Client | undefined;
  private transport: ObservedTransport | undefined;
  /** Transports of sessions the server forgot, closed once no request of theirs is on its way. */
  private readonly retiring = new Set<ObservedTransport>();
  private starting: Promise<Client> | undefined;
  /** Bumped on every start and stop: events of an older connection are ignored. */
  private generation = 0;
  private connectedAt = 0;
  private failedAt = 0;
  /** The last failure was ours to count toward maxRestarts (a crash, a failed start). */
  private failures = 0;
  /** Why the transport failed, when it said so before closing (a message too large, junk). */
  private transportError: string | undefined;
  /** Resumed answer streams (Last-Event-ID) open now, on this generation's transport. */
  private resumedOpen = 0;
  /** Where the log was when the current process started: its stderr is what follows. */
  private stderrMark = 0;
  private stopped = true;
  /** Ids of requests sent on the current transport and still waited for (a set per transport). */
  private pending = new Set<string | number>();
  /** The id of the last request sent (for a cancel of the call that sent it). */
  private lastRequestId: string | number = -1;
  /** The process of a stdio server still starting (this.pid is set once it is connected). */
  private rawPid: number | undefined;
  /** Clients whose session the server forgot, replaced by a new session. */
  private readonly renewed = new WeakSet<Client>();
  /** An HTTP server's OAuth sign-in: its saved tokens go with every request. */
  private oauth: SecretOAuthProvider | undefined;
  /** The last 401/403 challenge of the HTTP server: what a sign-in asks for. */
  private challenge: Challenge | undefined;
  /** The sign-in under way, which every request refused meanwhile waits for. */
  private authorizing: Promise<void> | undefined;
  /** Calls of this connection running now; the server's questions waiting in the app. */
  private runningCalls = 0;
  /** The tools of the calls running, by name and how many of each. */
  private readonly running = new Map<string, number>();
  /** The app's ids of the calls running (a question is shown with its call when only one runs). */
  private readonly runningInvocations = new Set<string>();
  private readonly questions = new Set<AbortController>();
  /** The connected server declares no tools capability (its last list found out). */
  offersNoTools = false;
  /**
   * The connected server runs tools/call as tasks: at 2025-11-25 it declares
   * capabilities.tasks.requests.tools.call, at 2026-07-28 the tasks extension (its last list found out).
   */
  offersTasks = false;
  /** A stdio server that ended at the 2026 probe (server/discover): it is started with initialize only. */
  private legacyOnly = false;
  /** The connected server speaks 2026-07-28 over HTTP, where tools may ask for their arguments as headers (its last list found out). */
  mirrorsParams = false;

  constructor(private readonly opts: ConnectionOptions) {
    this.log = new LogRing(opts.now);
    this.since = opts.now().toISOString();
  }

  get config(): McpServerConfig {
    return this.opts.config;
  }

  status(): Omit<McpServerStatus, 'skipped' | 'missing'> {
    return {
      state: this.state,
      ...(this.reason !== undefined ? { reason: this.reason } : {}),
      since: this.since,
      restarts: this.restarts,
      ...(this.pid !== undefined ? { pid: this.pid } : {}),
      ...(this.serverInfo ? { serverInfo: this.serverInfo } : {}),
    };
  }

  /** The process id of a running stdio server. */
  processId(): number | undefined {
    return this.pid;
  }

  private setState(state: McpServerStatus['state'], reason?: string): void {
    this.state = state;
    this.reason = reason;
    this.since = this.opts.now().toISOString();
    if (reason) this.log.event(`${state}: ${reason}`);
    else this.log.event(state);
    this.opts.onStatus();
  }

  /** Its bundle was switched on again: a server stopped for being off no longer says so (it starts on the next call). */
  switchedOn(): void {
    if (this.state === 'stopped' && this.reason !== undefined) this.setState('stopped', 'it starts when one of its tools is called');
  }

  /** A connected client: started now if need be (after the back-off a failure asks for). */
  async ready(signal?: AbortSignal): Promise<Client> {
    if (this.client && this.state === 'connected') return this.client;
    if (this.starting) return this.starting;
    // A server that was stopped (switched off, or never started) starts afresh.
    if (this.state === 'stopped') this.resetFailures();
    const name = this.opts.config.name;
    if (this.failures > 0 && this.restarts >= this.opts.config.maxRestarts) {
      throw new AppError('UNAVAILABLE', `the MCP server '${name}' failed ${this.failures} time(s) and was restarted ${this.restarts} time(s), the most allowed (${this.reason ?? 'see its log'}); restart it on the Tools screen`);
    }
    if (this.failures > 0) {
      const wait = this.failedAt + this.backoff() - Date.now();
      if (wait > 0) await sleep(wait, signal);
      this.restarts++;
      this.log.event(`restart ${this.restarts} of at most ${this.opts.config.maxRestarts}`);
    }
    return this.begin();
  }

  /** Starts a connection that the calls arriving meanwhile share. */
  private begin(): Promise<Client> {
    const started = this.start();
    this.starting = started;
    const clear = () => {
      if (this.starting === started) this.starting = undefined;
    };
    started.then(clear, clear);
    return started;
  }

  /**
   * Runs `run` on `client`; when the server answers that it no longer knows the session (HTTP 404
   * for a request carrying its session id, as a server that restarted answers), a new session is
   * started (initialize again) and `run` is sent once more, as MCP asks. The request was refused,
   * not run, so sending it again does not run it twice.
   */
  private async onSession<T>(client: Client, what: string, signal: () => AbortSignal | undefined, run: (c: Client) => Promise<T>): Promise<T> {
    try {
      return await run(client);
    } catch (e) {
      if (this.stopped) throw e;
      // Another call found the session gone and started a new one (this request was refused, or not sent).
      if (this.renewed.has(client) && (sessionLost(e) || (e instanceof Error && e.message === 'Not connected'))) return run(await this.ready(signal()));
      if (!sessionLost(e) || client.transport?.sessionId === undefined) throw e;
      return run(await this.renewSession(client, what, e, signal));
    }
  }

  /** A new session in place of the one the server forgot (once, however many calls found it gone). */
  private async renewSession(old: Client, what: string, e: SdkHttpError, signal: () => AbortSignal | undefined): Promise<Client> {
    if (this.client !== old || this.state !== 'connected') return this.ready(signal());
    this.renewed.add(old);
    this.log.event(`the server no longer knows our session (HTTP ${e.status} to ${what}; it restarted?): a new session is started and ${what} sent again`);
    const t = this.transport;
    this.client = undefined;
    this.transport = undefined;
    // The old transport's events belong to a session that is over. Other requests on their way in
    // it are refused too and sent again on the new session (closing it now would fail them);
    // it is closed once none is left. The server forgot the session: it is not ended there.
    this.generation++;
    if (t) {
      this.retiring.add(t);
      t.closeWhenIdle(() => this.retiring.delete(t));
    }
    return this.begin();
  }

  /** A server on this machine: over stdio, or at a loopback address. */
  private isLocal(): boolean {
    const c = this.opts.config.connection;
    if (c.transport === 'stdio') return true;
    const host = new URL(c.url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  }

  /** The folder a stdio server runs in (its own, else the workspace); a local HTTP server's roots are the workspace. */
  private workingFolder(): string {
    const c = this.opts.config.connection;
    return (c.transport === 'stdio' && c.cwd) || this.opts.defaultCwd();
  }

  private backoff(): number {
    return Math.min(this.opts.maxBackoffMs, this.opts.backoffMs * 2 ** Math.max(0, this.restarts));
  }

  private async start(): Promise<Client> {
    const gen = ++this.generation;
    this.resumedOpen = 0;
    this.stopped = false;
    this.setState('starting');
    const { config } = this.opts;
    let client: Client;
    try {
      // Saved tokens go with the first request; a server that asks for OAuth gets a sign-in (in the browser) and a new connection.
      client = await this.withSignIn('initialize', () => undefined, () => this.connectEither(gen), () => gen === this.generation);
    } catch (e) {
      throw this.startFailed(gen, e);
    }
    if (gen !== this.generation) {
      await this.transport?.close().catch(() => undefined);
      throw new AppError('CANCELLED', `the MCP server '${config.name}' was stopped while it started`);
    }
    this.client = client;
    this.pid = this.rawPid;
    this.log.event(`MCP ${client.getNegotiatedProtocolVersion() ?? 'version unknown'} (${client.getProtocolEra() === 'modern' ? 'stateless' : 'with initialize'})`);
    const info = client.getServerVersion();
    this.serverInfo = info ? { name: String(info.name).slice(0, 200), version: String(info.version).slice(0, 100) } : undefined;
    this.connectedAt = Date.now();
    this.setState('connected');
    this.opts.onConnected();
    return client;
  }

  private startFailed(gen: number, e: unknown): AppError {
    const why = e instanceof AppError ? e.message : this.startError(e);
    this.failed(gen, why);
    return new AppError(e instanceof AppError ? e.code : /did not answer/.test(why) ? 'TIMEOUT' : 'UNAVAILABLE', `the MCP server '${this.opts.config.name}' could not be started: ${why}`);
  }

  /**
   * A connection in the revision the server speaks. Some 2025 servers end their process at a
   * request they do not know, before initialize (the 2026 probe, server/discover): such a stdio
   * server is started again with initialize alone, and kept so.
   */
  private async connectEither(gen: number): Promise<Client> {
    const stdio = this.opts.config.connection.transport === 'stdio';
    try {
      const client = await this.connect(gen, this.legacyOnly);
      // A stdio server that spoke 2025 is not asked server/discover again (a silent one would cost a probe's wait each start).
      if (stdio && client.getProtocolEra() !== 'modern') this.legacyOnly = true;
      return client;
    } catch (e) {
      // Only a server that closed during the probe itself is tried again the 2025 way.
      if (!stdio || this.legacyOnly || gen !== this.generation || !(e instanceof SdkError) || e.code !== SdkErrorCode.EraNegotiationFailed) throw e;
      this.log.event(`the server closed during server/discover (${firstLineOf(e.message)}): starting it again with initialize (MCP 2025-11-25)`);
      const client = await this.connect(gen, true);
      this.legacyOnly = true;
      return client;
    }
  }

  /** One attempt: a transport and a client, connected (server/discover or initialize answered); on failure both are closed. */
  private async connect(gen: number, legacyOnly: boolean): Promise<Client> {
    this.transportError = undefined;
    const pending = new Set<string | number>();
    this.pending = pending;
    const raw = this.makeTransport(gen, pending);
    // Either revision: server/discover first (2026-07-28), initialize for a server that does not know it.
    // What the server sends is handled in its order: a progress report before the answer reaches the caller.
    // It offers what it answers: the folder it works in (roots), and the user's answers to questions (elicitation).
    // And it shows a tool's own page (MCP Apps): servers that check for it list their app tools.
    const capabilities = {
      roots: { listChanged: false },
      ...(this.opts.elicit ? { elicitation: { form: {}, url: {} } } : {}),
      // And it follows a call the server answers with a task (the tasks extension of 2026-07-28).
      extensions: { [APPS_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] }, [TASKS_EXTENSION]: {} },
    };
    const stdioProbe = this.opts.config.connection.transport === 'stdio' ? { probe: { timeoutMs: Math.min(this.opts.config.timeouts.startMs, STDIO_PROBE_MS) } } : {};
    const client = new OrderedClient({ name: 'Toolsmith', version: this.opts.clientVersion }, { capabilities, versionNegotiation: { mode: legacyOnly ? 'legacy' : 'auto', ...stdioProbe } });
    // A remote server gets no path of this machine: the folder means nothing there.
    client.setRequestHandler('roots/list', () => ({ roots: this.isLocal() ? [{ uri: pathToFileURL(this.workingFolder()).href, name: 'Workspace' }] : [] }));
    const elicit = this.opts.elicit;
    if (elicit) {
      // At 2026-07-28 the same handler answers a question embedded in an input_required answer.
      client.setRequestHandler('elicitation/create', async (req, ctx) => {
        // A 2025 question is tied to the server's request only: it also ends once no call of this connection runs.
        const ask = new AbortController();
        const onAbort = () => ask.abort(ctx.mcpReq.signal.reason);
        ctx.mcpReq.signal.addEventListener('abort', onAbort, { once: true });
        this.questions.add(ask);
        try {
          // The call it belongs to, when only one is running (a 2025 question names none).
          const only = this.running.size === 1 && [...this.running.values()][0] === 1 ? [...this.running.keys()][0] : undefined;
          const invocation = this.runningInvocations.size === 1 ? [...this.runningInvocations][0] : undefined;
          return await elicit(req.params, ask.signal, only, only ? invocation : undefined);
        } catch (e) {
          // A form the window cannot show: the server is told why.
          if (e instanceof AppError && e.code === 'VALIDATION_FAILED') throw new ProtocolError(ProtocolErrorCode.InvalidParams, e.message);
          throw e;
        } finally {
          ctx.mcpReq.signal.removeEventListener('abort', onAbort);
          this.questions.delete(ask);
        }
      });
    }
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (gen === this.generation) this.opts.onToolsChanged();
    });
    // The server's log messages go to its log, with their level and logger.
    client.setNotificationHandler('notifications/message', (n) => {
      if (gen === this.generation) this.log.message(n.params.level, n.params.logger, n.params.data);
    });
    // What the transport reports is logged as it happens, also while the SDK negotiates the
    // revision (when the client's own handler is not yet the one told); the client reports it again.
    const fromTransport = new WeakSet<Error>();
    let negotiating = true;
    const logError = (e: Error) => {
      // A request of ours that our own close aborted says nothing about the server.
      if (gen !== this.generation || e.name === 'AbortError') return;
      // A 2025 server refusing the 2026 probe (server/discover) over HTTP is expected: initialize follows.
      if (negotiating && e instanceof SdkHttpError) return;
      // A late answer dropped, a session the server forgot: their own lines are in the log.
      if (isHttpDropped(e) || sessionLost(e)) return;
      const msg = e.message;
      // The first reason holds: the event stream's own words are set before its error arrives here.
      if (isTooLarge(e)) this.transportError ??= `the server sent a message larger than ${mb(this.opts.maxMessageBytes)}`;
      const junk = this.opts.config.connection.transport === 'stdio' && /JSON|Unexpected token|is not valid|invalid_/i.test(msg);
      this.log.add('stdout', junk ? `not an MCP message on stdout: ${msg}` : msg);
    };
    client.onerror = (e) => {
      if (!fromTransport.has(e)) logError(e);
    };
    client.onclose = () => this.closed(gen);
    this.rawPid = undefined;
    if (isStdio(raw)) {
      raw.onStarted = (pid) => {
        this.log.event(`process ${pid} started`);
        if (gen === this.generation) this.rawPid = pid;
      };
    }
    const transport = observed(
      raw,
      pending,
      (id) => (this.lastRequestId = id),
      (e) => {
        fromTransport.add(e);
        logError(e);
      },
    );
    this.transport = transport;
    try {
      await client.connect(transport, { timeout: this.opts.config.timeouts.startMs });
      negotiating = false;
      // A 2025 server that offers logging is asked for info and above (2026-07-28 has no logging/setLevel: the server chooses).
      if (client.getProtocolEra() !== 'modern' && client.getServerCapabilities()?.logging) {
        void client.setLoggingLevel('info', { timeout: this.opts.config.timeouts.callMs }).catch((e: unknown) => {
          if (gen === this.generation) this.log.event(`logging/setLevel info was refused: ${firstLineOf((e as Error).message ?? String(e))}`);
        });
      }
      return client;
    } catch (e) {
      // A close ends the process gently (up to 4 s); a server that failed to start is ended now.
      if (isStdio(raw) && raw.kill()) this.log.event(`process ${pidOf(raw)} ended (SIGKILL)`);
      await transport.close().catch(() => undefined);
      throw e;
    }
  }

  /** The HTTP server's sign-in (made once; nothing is read or started until it is used). */
  private provider(): SecretOAuthProvider {
    const c = this.opts.config.connection;
    if (c.transport !== 'http') throw new AppError('UNAUTHORIZED', 'only HTTP servers sign in');
    const pre = c.oauthClient;
    this.oauth ??= new SecretOAuthProvider({
      bundleId: this.opts.bundleId,
      host: new URL(c.url).hostname.toLowerCase(),
      secrets: this.opts.secrets,
      ...(pre
        ? {
            preRegistered: {
              clientId: pre.clientId,
              ...(pre.clientSecret ? { secret: pre.clientSecret.slice('${secret:'.length, -1) } : {}),
              ...(pre.redirectPort ? { redirectPort: pre.redirectPort } : {}),
            },
          }
        : {}),
      openUrl: this.opts.openUrl,
      onSignIn: (url) => {
        this.reason = `waiting for you to sign in: ${url}`;
        this.log.event(`sign-in needed: ${url}`);
        this.opts.onStatus();
      },
    });
    return this.oauth;
  }

  /** The challenge of an HTTP server's refusal that a sign-in may answer: 401, or 403 insufficient_scope (RFC 6750 §3.1). */
  private challengeOf(e: unknown): Challenge | undefined {
    if (this.opts.config.connection.transport !== 'http') return undefined;
    // The transport names a 403 insufficient_scope itself (it signs in for none: that is ours).
    if (e instanceof InsufficientScopeError) return { status: 403, error: 'insufficient_scope', ...(e.requiredScope !== undefined ? { scope: e.requiredScope } : {}), ...(e.resourceMetadataUrl ? { resourceMetadataUrl: e.resourceMetadataUrl } : {}) };
    const status = httpStatus(e);
    if (status === undefined) return undefined;
    const last = this.challenge?.status === status ? this.challenge : undefined;
    if (status === 401) return last ?? { status: 401 };
    if (status === 403 && last?.error === 'insufficient_scope') return last;
    return undefined;
  }

  /**
   * Runs `run`; when the HTTP server refuses it for want of a token (401) or of scope (403
   * insufficient_scope), whether at initialize or at a later request, signs in and runs it
   * again, at most MAX_SIGN_INS times.
   */
  private async withSignIn<T>(what: string, signal: () => AbortSignal | undefined, run: () => Promise<T>, current: () => boolean = () => true): Promise<T> {
    for (let signIns = 0; ; signIns++) {
      try {
        return await run();
      } catch (e) {
        const challenge = this.challengeOf(e);
        if (!challenge || this.stopped || !current()) throw e;
        if (signIns >= MAX_SIGN_INS) {
          throw new AppError('UNAUTHORIZED', `the MCP server '${this.opts.config.name}' refused ${what} with HTTP ${challenge.status}${challengeWords(challenge)} after ${signIns} sign-ins; it wants what the sign-in does not grant (see its log)`);
        }
        await this.authorize(challenge, signal());
      }
    }
  }

  /** One sign-in at a time: requests refused meanwhile wait for it and are sent again. */
  private authorize(challenge: Challenge, signal?: AbortSignal): Promise<void> {
    if (!this.authorizing) {
      const p = this.signIn(challenge, signal);
      this.authorizing = p;
      const clear = () => {
        if (this.authorizing === p) this.authorizing = undefined;
      };
      p.then(clear, clear);
    }
    return this.authorizing;
  }

  /**
   * OAuth: the SDK discovers, registers a client, and sends the person to sign in (or refreshes
   * the tokens, when that can give what is asked for); the code comes back to a loopback listener.
   */
  private async signIn(challenge: Challenge, signal?: AbortSignal): Promise<void> {
    const c = this.opts.config.connection;
    const provider = this.provider();
    const moreScope = challenge.error === 'insufficient_scope';
    this.log.event(moreScope ? `the server asks for more scope (${challenge.scope ?? 'unnamed'}): OAuth sign-in` : `the server asks for OAuth sign-in${challenge.scope ? ` (scope ${challenge.scope})` : ''}`);
    const serverUrl = c.transport === 'http' ? c.url : '';
    // The issuer checks are ours (oauth.ts: the metadata's issuer where a resource named its
    // authorization server, and the answer's iss), with our words: the SDK's are switched off.
    const step = (more: object) =>
      provider.run(moreScope, () => auth(provider, { serverUrl, ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}), skipIssuerMetadataValidation: true, ...more }));
    let stage = 'could not start';
    try {
      const callback = await provider.listen();
      callback.reset();
      if ((await step({ scope: challenge.scope })) === 'AUTHORIZED') {
        this.log.event('the sign-in was renewed');
        return;
      }
      const answer = await callback.nextCode(this.opts.signInTimeoutMs ?? SIGN_IN_TIMEOUT_MS, signal);
      stage = 'failed';
      await step({ authorizationCode: answer.code, ...(answer.iss !== undefined ? { iss: answer.iss } : {}) });
      this.log.event('signed in');
    } catch (e) {
      await provider.signInFailed(e).catch(() => undefined);
      if (e instanceof AppError || signal?.aborted) throw e;
      throw new AppError('UNAUTHORIZED', `it asks for authorization (HTTP ${challenge.status}) and an OAuth sign-in ${stage}: ${(e as Error).message || (e as Error).name}`);
    } finally {
      // What discovery found served this sign-in only: the next one discovers again (the server may name another authorization server).
      await provider.invalidateCredentials('discovery');
      // A connected server waited for a sign-in (a request asked for it): it no longer does.
      if (this.state === 'connected' && this.reason?.startsWith('waiting for you to sign in')) {
        this.reason = undefined;
        this.opts.onStatus();
      }
    }
  }

  private makeTransport(gen: number, pending: ReadonlySet<string | number>): Transport {
    const c = this.opts.config.connection;
    if (c.transport === 'stdio' && process.platform !== 'win32') {
      this.stderrMark = this.log.mark();
      return new StdioTransport({
        command: c.command,
        args: c.args,
        env: c.env,
        cwd: c.cwd || this.opts.defaultCwd(),
        maxMessageBytes: this.opts.maxMessageBytes,
        onStderr: (chunk) => this.log.addChunk('stderr', chunk.toString('utf8')),
        // A message over the limit that answers no waiting call is dropped, not fatal.
        pending,
        onDropped: (words) => {
          if (gen === this.generation) this.log.event(words);
        },
      });
    }
    if (c.transport === 'stdio') {
      const t = new TrackedStdioTransport({
        command: c.command,
        args: c.args,
        env: c.env,
        cwd: c.cwd || this.opts.defaultCwd(),
        stderr: 'pipe',
        maxBufferSize: this.opts.maxMessageBytes,
      } as ConstructorParameters<typeof StdioClientTransport>[0]);
      this.stderrMark = this.log.mark();
      t.stderr?.on('data', (chunk: Buffer) => this.log.addChunk('stderr', chunk.toString('utf8')));
      return t;
    }
    const url = new URL(c.url);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.headers)) headers[k] = this.resolveSecrets(v, url.hostname.toLowerCase().replace(/^\[|\]$/g, ''), k);
    return new StreamableHTTPClientTransport(url, {
      requestInit: { headers },
      fetch: limitedFetch(this.opts.maxMessageBytes, {
        onTooLarge: (what) => {
          if (gen !== this.generation) return;
          const words = what === 'event' ? `the server sent an event larger than ${mb(this.opts.maxMessageBytes)} on its event stream (HTTP GET)` : `the server sent a message larger than ${mb(this.opts.maxMessageBytes)}`;
          this.transportError ??= words;
        },
        // This transport's own generation and requests: a session's late answers never judge the next one's (ids restart at 0).
        onPostEnd: (body, resume) => this.postEnded(body, gen, pending, resume),
        onResumed: (open) => {
          if (gen === this.generation) this.resumedOpen += open ? 1 : -1;
        },
        waited: (body) => requestIds(body).some((id) => pending.has(id)),
        onDropped: () => {
          if (gen === this.generation) this.log.event(`an answer over the ${mb(this.opts.maxMessageBytes)} limit to a request no call waits for any more (it timed out or was cancelled) was dropped; the connection stays up`);
        },
      }, this.authorizedFetch()),
      reconnectionOptions: { maxRetries: 2, initialReconnectionDelay: 1_000, maxReconnectionDelay: 10_000, reconnectionDelayGrowFactor: 2 },
    });
  }

  /**
   * fetch to the HTTP server with the saved access token, noting its 401/403 challenges. The
   * sign-in is ours, not the transport's (it gets no authProvider): a refusal at any request, not
   * only at initialize, starts it, with the scope the server named plus those granted.
   */
  private authorizedFetch(): FetchLike {
    return async (url, init) => {
      const token = this.provider().tokens()?.access_token;
      const headers = new Headers(init?.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      const res = await fetch(url, { ...init, headers });
      if (res.status === 401 || res.status === 403) this.challenge = { status: res.status, ...extractWWWAuthenticateParams(res) };
      return res;
    };
  }

  private resolveSecrets(value: string, host: string, header: string): string {
    let parts;
    try {
      parts = parseTemplate(value);
    } catch (e) {
      throw new AppError('VALIDATION_FAILED', `header ${header}: ${(e as Error).message}`);
    }
    return parts
      .map((p) => {
        if ('text' in p) return p.text;
        if (p.placeholder.kind !== 'secret') throw new AppError('VALIDATION_FAILED', `header ${header}: only \${secret:NAME} may be used in a server's headers, not ${p.raw}`);
        return this.opts.secrets.resolve(p.placeholder.name, host);
      })
      .join('');
  }

  private startError(e: unknown): string {
    const c = this.opts.config;
    if (e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout) return `it did not answer initialize within ${c.timeouts.startMs} ms`;
    const code = (e as NodeJS.ErrnoException).code;
    if (c.connection.transport === 'stdio' && code === 'ENOENT') return `the command '${c.connection.command}' was not found (is it installed and on PATH?)`;
    if (c.connection.transport === 'stdio' && code === 'EACCES') return `the command '${c.connection.command}' cannot be run (permission denied)`;
    if (e instanceof SdkError && e.code === SdkErrorCode.ConnectionClosed) return this.transportError ?? `it exited before answering initialize${this.stderrTail()}`;
    if (e instanceof SdkHttpError) return `the server answered HTTP ${e.status}: ${e.message.slice(0, 300)}`;
    return this.networkWords(e);
  }

  private networkWords(e: unknown): string {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const cause = err.cause?.code ?? err.cause?.message;
    const c = this.opts.config.connection;
    if (c.transport === 'http' && /fetch failed/i.test(err.message)) return `could not reach ${new URL(c.url).origin}${cause ? ` (${cause})` : ''}`;
    return (err.message || String(e)).slice(0, 500);
  }

  /**
   * What the current process said on stderr, for an error: the first of its last lines that
   * names an error (a stack's "Error: Cannot find module …" comes before the stack) and its
   * last non-blank lines. An earlier process's lines are not this one's.
   */
  private stderrTail(): string {
    const lines = this.log
      .since(this.stderrMark)
      .filter((l) => l.stream === 'stderr' && l.text.trim() !== '')
      .map((l) => l.text.trim());
    if (lines.length === 0) return '';
    // Among its last lines only: a process that ran for hours may have logged an error long ago.
    const named = lines.slice(-ERROR_SEARCH_LINES).find((t) => ERROR_LINE.test(t));
    const last = lines.slice(-2);
    const shown = named && !last.includes(named) ? [named, '…', ...last] : last;
    return `; its stderr ended with: ${shown.join(' | ').slice(0, 400)}`;
  }

  private failed(gen: number, reason: string): void {
    if (gen !== this.generation) return;
    this.client = undefined;
    this.transport = undefined;
    this.pid = undefined;
    this.failures++;
    this.failedAt = Date.now();
    this.setState('failed', reason);
  }

  /** The transport closed: by our stop, or on its own (a crash, a message too large). */
  private closed(gen: number): void {
    if (gen !== this.generation || this.stopped) return;
    if (this.state !== 'connected') return;
    // A connection that was up for a good while starts its restart count afresh.
    if (Date.now() - this.connectedAt >= this.opts.stableMs) this.restarts = 0;
    const what = this.opts.config.connection.transport === 'stdio' ? 'the server process ended' : 'the connection closed';
    this.failed(gen, this.transportError ? `${this.transportError}; the connection was closed` : `${what}${this.stderrTail()}`);
  }

  /**
   * An HTTP answer stream ended (or broke). A request it carried that got no answer never will
   * (the server went away mid-call): the connection is dropped, which fails the request now
   * rather than at its timeout. A stream whose events carried ids is resumed by the SDK (a GET
   * with Last-Event-ID after the server's `retry`): the answer is waited for that long and a
   * little more before the request is given up.
   */
  private postEnded(body: unknown, gen: number, pending: ReadonlySet<string | number>, resume?: { retryMs?: number }): void {
    const ids = requestIds(body);
    if (ids.length === 0 || gen !== this.generation) return;
    const wait = resume ? Math.min(resume.retryMs ?? RESUME_DEFAULT_RETRY_MS, RESUME_MAX_RETRY_MS) + RESUME_GRACE_MS : 100;
    const check = (): void => {
      // A resumed stream is open: its calls are waited for (their own time limits still apply).
      if (resume && gen === this.generation && this.resumedOpen > 0 && ids.some((id) => pending.has(id))) {
        setTimeout(check, wait).unref?.();
        return;
      }
      if (gen === this.generation && ids.some((id) => pending.has(id))) this.dropConnection('the connection closed before the server answered');
    };
    setTimeout(check, wait).unref?.();
  }

  /**
   * Lists every page of tools/list; the entries are checked one by one by the caller. A list
   * that fails (too large, no answer in time, an error, a sign-in that fails) fails the
   * connection, so the server shows why rather than "connected" with no tools.
   */
  async listTools(signal?: AbortSignal): Promise<unknown[]> {
    let client = await this.ready(signal);
    // A server that offers no tools is not asked for them (it would answer "method not found").
    this.offersNoTools = !client.getServerCapabilities()?.tools;
    const caps = client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } }; extensions?: Record<string, unknown> } | undefined;
    this.offersTasks = client.getProtocolEra() === 'modern' ? caps?.extensions?.[TASKS_EXTENSION] !== undefined : caps?.tasks?.requests?.tools?.call !== undefined;
    this.mirrorsParams = client.getProtocolEra() === 'modern' && this.opts.config.connection.transport === 'http';
    if (this.offersNoTools) {
      this.log.event('the server offers no tools (no tools capability)');
      return [];
    }
    try {
      // Refused for want of a token or scope: signed in, and listed again. A session the server forgot: listed again from the first page on a new one.
      return await this.withSignIn('tools/list', () => signal, () =>
        this.onSession(client, 'tools/list', () => signal, (c) => {
          client = c;
          return this.listPages(c, signal);
        }),
      );
    } catch (e) {
      const err = this.callError(e, 'tools/list', signal);
      if (!signal?.aborted && client === this.client) this.dropConnection(`tools/list failed: ${(err as Error).message}`);
      throw err;
    }
  }

  private async listPages(client: Client, signal?: AbortSignal): Promise<unknown[]> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const r = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsPageSchema, { timeout: this.opts.config.timeouts.callMs, ...(signal ? { signal } : {}) });
      tools.push(...r.tools);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /**
   * `cancel.signal` is read only when it is needed (the server is not connected yet, the call
   * runs past CANCEL_WATCH_AFTER_MS, or it fails): a caller may make the signal on first read.
   * `cancel.progress` is told of each progress report of the server for this call. `argSchema`:
   * the tool's, whose `x-mcp-header` annotations a 2026 server over HTTP gets as headers
   * (./param-headers.ts); a server that finds them wrong answers HEADER_MISMATCH (see isHeaderMismatch).
   * A 2026 server that answers with a task (the tasks extension) has it followed as a 2025 task
   * is (followTask): the call ends when the task does.
   */
  async callTool(name: string, args: Record<string, unknown>, cancel: CallerSide, argSchema?: unknown): Promise<McpCallResult> {
    let client = this.client && this.state === 'connected' ? this.client : await this.ready(cancel.signal);
    const what = `tools/call ${name}`;
    this.runningCalls++;
    this.running.set(name, (this.running.get(name) ?? 0) + 1);
    if (cancel.invocationId) this.runningInvocations.add(cancel.invocationId);
    try {
      let task: TaskState | undefined;
      try {
        const answer = await this.withSignIn(what, () => cancel.signal, () =>
          this.onSession(client, what, () => cancel.signal, (c) => {
            client = c;
            return this.sendCall(c, name, args, cancel, argSchema);
          }),
        );
        if (!(answer instanceof CreatedTask)) return answer;
        task = answer.task;
      } catch (e) {
        throw this.callError(e, what, cancel.signal);
      }
      // The task is followed outside the sign-in and session retries: a created task is never created twice.
      try {
        return await this.followTask(client, name, task, cancel);
      } catch (e) {
        throw this.callError(e, `${what} (as a task)`, cancel.signal);
      }
    } finally {
      if (cancel.invocationId) this.runningInvocations.delete(cancel.invocationId);
      this.callEnded(name);
    }
  }

  /**
   * Reads one resource of the server (resources/read), e.g. the page of a tool's app: with the
   * call's limit, signing in and re-opening a session as a call does.
   */
  async readResource(uri: string, signal?: AbortSignal): Promise<z.infer<typeof ReadResourcePageSchema>> {
    const client = this.client && this.state === 'connected' ? this.client : await this.ready(signal);
    const what = `resources/read ${uri.slice(0, 200)}`;
    try {
      return await this.withSignIn(what, () => signal, () =>
        this.onSession(client, what, () => signal, (c) =>
          c.request({ method: 'resources/read', params: { uri } }, ReadResourcePageSchema, { timeout: this.opts.config.timeouts.callMs, ...(signal ? { signal } : {}) }),
        ),
      );
    } catch (e) {
      throw this.callError(e, what, signal);
    }
  }

  /** A call ended: with none left running, the server's questions waiting in the app end too (their call is gone). */
  private callEnded(name: string): void {
    const n = (this.running.get(name) ?? 1) - 1;
    if (n > 0) this.running.set(name, n);
    else this.running.delete(name);
    if (--this.runningCalls > 0) return;
    this.endQuestions();
  }

  private endQuestions(): void {
    for (const q of this.questions) q.abort(new Error('no call of the server is running any more'));
  }

  /**
   * A tool its server runs only as a task (MCP 2025-11-25): the call creates the task, which is
   * asked after at the server's pace (each status a progress report to the caller, which keeps
   * the call's limit from running out, up to PROGRESS_TIMEOUT_FACTOR times the limit), and its
   * result is fetched once it is done (tasks/result, which also carries the server's questions
   * of a task that needs input). A cancel cancels the task on the server (tasks/cancel).
   */
  async callToolAsTask(name: string, args: Record<string, unknown>, cancel: CallerSide, argSchema?: unknown): Promise<McpCallResult> {
    const client = this.client && this.state === 'connected' ? this.client : await this.ready(cancel.signal);
    // At 2026-07-28 the server decides which calls become tasks (the tasks extension): a plain call, followed when it does.
    if (client.getProtocolEra() === 'modern') return this.callTool(name, args, cancel, argSchema);
    const what = `tools/call ${name} (as a task)`;
    this.runningCalls++;
    this.running.set(name, (this.running.get(name) ?? 0) + 1);
    if (cancel.invocationId) this.runningInvocations.add(cancel.invocationId);
    try {
      return await this.runTaskCall(client, name, args, cancel, what);
    } finally {
      if (cancel.invocationId) this.runningInvocations.delete(cancel.invocationId);
      this.callEnded(name);
    }
  }

  private async runTaskCall(first: Client, name: string, args: Record<string, unknown>, cancel: CallerSide, what: string): Promise<McpCallResult> {
    let client = first;
    let task: TaskState;
    try {
      // Only the task's creation is sent again after a sign-in or on a new session: a created task is never created twice.
      task = await this.withSignIn(what, () => cancel.signal, () =>
        this.onSession(client, what, () => cancel.signal, (c) => {
          client = c;
          return this.createTask(c, name, args);
        }),
      );
    } catch (e) {
      throw this.callError(e, what, cancel.signal);
    }
    try {
      return await this.followTask(client, name, task, cancel);
    } catch (e) {
      throw this.callError(e, what, cancel.signal);
    }
  }

  private async createTask(client: Client, name: string, args: Record<string, unknown>): Promise<TaskState> {
    const limitMs = this.opts.config.timeouts.callMs;
    const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: limitMs * PROGRESS_TIMEOUT_FACTOR } } }, CreateTaskSchema, { timeout: limitMs });
    this.log.event(`task ${created.task.taskId} of '${name}' created (${created.task.status})`);
    return created.task;
  }

  /**
   * Asks after a created task until it is done (each status a progress report to the caller),
   * then gives its result: at 2025-11-25 fetched with tasks/result (which also carries the
   * server's questions of a task that needs input); at 2026-07-28 carried by tasks/get itself,
   * where a task that needs input names its questions (`inputRequests`), answered with
   * tasks/update. Whatever ends it early (a cancel, the time cap, an error) cancels the task on
   * the server (tasks/cancel), unless it already ended.
   */
  private async followTask(client: Client, name: string, created: TaskState, cancel: CallerSide): Promise<McpCallResult> {
    const server = this.opts.config.name;
    const modern = client.getProtocolEra() === 'modern';
    const limitMs = this.opts.config.timeouts.callMs;
    const capMs = limitMs * PROGRESS_TIMEOUT_FACTOR;
    const taskId = created.taskId;
    const ended = Date.now() + capMs;
    const timedOut = () => new AppError('TIMEOUT', `the MCP server '${server}' did not finish the task of '${name}' within ${capMs} ms (${PROGRESS_TIMEOUT_FACTOR} times its limit of ${limitMs} ms)`);
    const settled = modern ? TASK_ENDED : TASK_SETTLED;
    /** The keys of the questions of a 2026 task answered so far (a poll names them until the server has them). */
    const answered = new Set<string>();
    let task = created;
    let polls = 0;
    try {
      // working, or a status this client does not know: asked after again.
      while (!settled.has(task.status)) {
        if (modern && task.status === 'input_required') await this.answerTask(client, name, task, answered, cancel);
        cancel.progress?.({ progress: ++polls, message: task.statusMessage ?? `the task is ${task.status}` });
        const wait = Math.min(TASK_POLL_MS.max, Math.max(TASK_POLL_MS.min, (modern ? task.pollIntervalMs : task.pollInterval) ?? TASK_POLL_MS.default));
        await sleep(wait, cancel.signal);
        if (Date.now() > ended) throw timedOut();
        task = await client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema, { timeout: limitMs, signal: cancel.signal });
      }
      this.log.event(`task ${taskId} of '${name}': ${task.status}${task.statusMessage ? ` (${task.statusMessage.slice(0, 200)})` : ''}`);
      if (task.status === 'cancelled') throw new AppError('CANCELLED', `the MCP server '${server}' cancelled the task of '${name}'${task.statusMessage ? `: ${task.statusMessage.slice(0, 500)}` : ''}`);
      if (modern) {
        // failed: the JSON-RPC error the call met; completed: the call's result (isError included).
        if (task.status === 'failed') throw new ProtocolError(task.error?.code ?? ProtocolErrorCode.InternalError, task.error?.message ?? task.statusMessage ?? 'the task failed', task.error?.data);
        const result = CallToolPageSchema.safeParse(task.result);
        if (!task.result || !result.success) throw new AppError('UNAVAILABLE', `the MCP server '${server}' finished the task of '${name}' without a valid tools/call result`);
        return result.data as McpCallResult;
      }
      // completed, failed, or input_required: the result comes (after the server's questions) from tasks/result.
      try {
        const result = (await client.request({ method: 'tasks/result', params: { taskId } }, CallToolPageSchema, { timeout: Math.max(1, ended - Date.now()), signal: cancel.signal })) as McpCallResult;
        task = { ...task, status: 'completed' };
        return result;
      } catch (e) {
        throw e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout ? timedOut() : e;
      }
    } catch (e) {
      if (task.status !== 'completed' && task.status !== 'failed' && task.status !== 'cancelled') {
        void client.request({ method: 'tasks/cancel', params: { taskId } }, EmptyResultSchema, { timeout: limitMs }).catch(() => undefined);
        this.log.event(`task ${taskId} of '${name}' cancelled (${firstLineOf((e as Error)?.message ?? String(e))})`);
      }
      throw e;
    }
  }

  /**
   * A 2026 task that waits for its client: its questions not answered yet are answered as the
   * same requests outside a task would be (a question to the user through `elicit`; the roots),
   * and the answers sent with tasks/update. A request Toolsmith does not answer (sampling) ends
   * the call, which cancels the task.
   */
  private async answerTask(client: Client, name: string, task: TaskState, answered: Set<string>, cancel: CallerSide): Promise<void> {
    const inputResponses: Record<string, unknown> = {};
    for (const [key, req] of Object.entries(task.inputRequests ?? {})) {
      if (answered.has(key)) continue;
      if (req.method === 'elicitation/create' && this.opts.elicit) {
        inputResponses[key] = await this.opts.elicit(req.params, cancel.signal, name, cancel.invocationId);
      } else if (req.method === 'roots/list') {
        inputResponses[key] = { roots: this.isLocal() ? [{ uri: pathToFileURL(this.workingFolder()).href, name: 'Workspace' }] : [] };
      } else {
        throw new AppError('UNAVAILABLE', `the task of '${name}' on the MCP server '${this.opts.config.name}' asks for ${String(req.method).slice(0, 100)}, which Toolsmith does not answer`);
      }
      answered.add(key);
    }
    if (Object.keys(inputResponses).length === 0) return;
    await client.request({ method: 'tasks/update', params: { taskId: task.taskId, inputResponses } } as never, EmptyResultSchema, { timeout: this.opts.config.timeouts.callMs, signal: cancel.signal });
    this.log.event(`task ${task.taskId} of '${name}': answered ${Object.keys(inputResponses).join(', ').slice(0, 200)}`);
  }

  private async sendCall(client: Client, name: string, args: Record<string, unknown>, cancel: CallerSide, argSchema?: unknown): Promise<McpCallResult | CreatedTask> {
    // At 2026-07-28 a cancel is the SDK's own (over HTTP it ends the request's stream, which is
    // how the server hears of it); at 2025 it is our notifications/cancelled, sent without a
    // signal on every call (a listener per call costs more than a quick call takes).
    const abort = client.getProtocolEra() === 'modern' ? new AbortController() : undefined;
    const limitMs = this.opts.config.timeouts.callMs;
    const progress = cancel.progress ? (p: ProgressReport) => cancel.progress?.(p) : undefined;
    // At 2026-07-28 a server that offers logging sends log messages for a request that names a level: info and above.
    const logLevel = abort && client.getServerCapabilities()?.logging ? { _meta: { [LOG_LEVEL_META_KEY]: 'info' } } : undefined;
    // At 2026-07-28 over HTTP the arguments the tool names go into Mcp-Param-* headers too.
    const headers = abort && this.opts.config.connection.transport === 'http' ? callHeaders(argSchema, args) : undefined;
    const pending = client.request({ method: 'tools/call', params: { name, arguments: args, ...logLevel } }, CallToolPageSchema, {
      timeout: limitMs,
      ...(headers ? { headers } : {}),
      // Progress is asked for (a progressToken): each report goes to the caller and starts the
      // call's limit again, up to PROGRESS_TIMEOUT_FACTOR times the limit in all.
      ...(progress ? { onprogress: progress, resetTimeoutOnProgress: true, maxTotalTimeout: limitMs * PROGRESS_TIMEOUT_FACTOR } : {}),
      ...(abort ? { signal: abort.signal } : {}),
    });
    // The request was sent inside request(): its id is the last one the transport saw.
    const requestId = this.lastRequestId;
    const tellCancelled = (id: string | number, reason: unknown) =>
      void client.notification({ method: 'notifications/cancelled', params: { requestId: id, reason: String((reason as Error)?.message ?? reason) } }).catch(() => undefined);
    const stop = watchCancel(cancel, this.opts.cancelWatchAfterMs ?? CANCEL_WATCH_AFTER_MS, requestId, (id, reason) => {
      if (abort) abort.abort(reason);
      else tellCancelled(id, reason);
      // A 2025 server's questions are tied to no call: the only call running was cancelled, so they end with it.
      if (this.runningCalls <= 1) this.endQuestions();
    });
    try {
      return (await pending) as McpCallResult;
    } catch (e) {
      // A 2026 server that runs the call as a task (the tasks extension) answers the task.
      const answer = taskAnswer(e);
      if (answer) {
        const task = TaskSchema.safeParse(answer);
        if (!task.success) throw new AppError('UNAVAILABLE', `the MCP server '${this.opts.config.name}' answered tools/call ${name} with a task that is not valid: ${task.error.issues[0]?.message ?? 'no taskId or status'}`);
        this.log.event(`task ${task.data.taskId} of '${name}' created (${task.data.status})`);
        return new CreatedTask(task.data);
      }
      // Past the cap the SDK gives the call up without telling the server: it is told, as of a cancel.
      if (!(e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout && (e.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout !== undefined)) throw e;
      tellCancelled(requestId, e);
      const capMs = limitMs * PROGRESS_TIMEOUT_FACTOR;
      throw new AppError('TIMEOUT', `the MCP server '${this.opts.config.name}' did not finish tools/call ${name} within ${capMs} ms (its limit of ${limitMs} ms starts again at each progress report, up to ${PROGRESS_TIMEOUT_FACTOR} times that in all)`);
    } finally {
      stop();
    }
  }

  private callError(e: unknown, what: string, signal?: AbortSignal): unknown {
    if (signal?.aborted) return signal.reason;
    const name = this.opts.config.name;
    // The server's answer did not fit (a malformed result, input asked for too many rounds): the connection stays.
    if (e instanceof SdkError && !(e instanceof SdkHttpError) && e.code !== SdkErrorCode.RequestTimeout && e.code !== SdkErrorCode.ConnectionClosed && e.code !== SdkErrorCode.SendFailed && e.code !== SdkErrorCode.NotConnected) {
      const words = e.code === SdkErrorCode.InvalidResult ? `sent an answer to ${what} that is not a valid MCP result` : `answered ${what} in a way Toolsmith cannot use`;
      return new AppError('UNAVAILABLE', `the MCP server '${name}' ${words}: ${firstLineOf(e.message)}`);
    }
    if (e instanceof SdkError && !(e instanceof SdkHttpError) && (e.code === SdkErrorCode.RequestTimeout || e.code === SdkErrorCode.ConnectionClosed)) {
      switch (e.code) {
        case SdkErrorCode.RequestTimeout:
          return new AppError('TIMEOUT', `the MCP server '${name}' did not answer ${what} within ${this.opts.config.timeouts.callMs} ms`);
        case SdkErrorCode.ConnectionClosed: {
          const why = this.transportError;
          return why
            ? new AppError('PAYLOAD_TOO_LARGE', `the MCP server '${name}' failed during ${what}: ${why}; the connection was closed and restarts on the next call`)
            : new AppError('UNAVAILABLE', `the MCP server '${name}' ${this.opts.config.connection.transport === 'stdio' ? 'process ended' : 'connection closed'} during ${what}${this.stderrTail()}; it restarts on the next call`);
        }
      }
    }
    if (e instanceof ProtocolError) {
      if (e.code === HEADER_MISMATCH) {
        return new AppError('VALIDATION_FAILED', `the MCP server '${name}' refused the HTTP headers of ${what} (the Mcp-Param-* headers its tool list asks for): ${e.message.slice(0, 1000)}`, { headerMismatch: true });
      }
      switch (e.code) {
        case ProtocolErrorCode.InvalidParams:
          return new AppError('VALIDATION_FAILED', `the MCP server '${name}' refused the arguments of ${what}: ${e.message}`);
        case ProtocolErrorCode.MethodNotFound:
          return new AppError('NOT_FOUND', `the MCP server '${name}' does not know ${what}: ${e.message}`);
        default:
          return new AppError('UNAVAILABLE', `the MCP server '${name}' answered ${what} with an error: ${e.message.slice(0, 1000)}`);
      }
    }
    if (e instanceof AppError) return e;
    if (e instanceof z.ZodError || (e as Error).name === 'ZodError') {
      return new AppError('UNAVAILABLE', `the MCP server '${name}' sent an answer to ${what} that is not a valid MCP result: ${(e as Error).message.slice(0, 300)}`);
    }
    if (httpStatus(e) === 401) return new AppError('UNAUTHORIZED', `the MCP server '${name}' asks for authorization (HTTP 401)`);
    if (sessionLost(e)) {
      // Refused on a new session too (or the server keeps none): a new connection on the next call.
      this.dropConnection();
      return new AppError('UNAVAILABLE', `the MCP server '${name}' refused ${what} with HTTP ${e.status} (it does not know the session), also on a new session; it reconnects on the next call`);
    }
    // The connection itself is broken (a network error): drop it so the next call reconnects.
    const words = this.transportError ?? this.networkWords(e);
    this.dropConnection(words);
    return new AppError(this.transportError ? 'PAYLOAD_TOO_LARGE' : 'UNAVAILABLE', `the MCP server '${name}' failed during ${what}: ${words}`);
  }

  /** Closes a broken connection; the next call starts a new one (counted as a restart). */
  private dropConnection(reason?: string): void {
    if (this.state !== 'connected') return;
    const t = this.transport;
    this.failed(this.generation, reason ?? 'the connection was lost');
    // The closing transport's own close event belongs to a connection that is over.
    this.generation++;
    void t?.close().catch(() => undefined);
  }

  /** Stops the server (its process ended for good) and leaves it stopped until the next call. */
  async stop(reason = 'stopped'): Promise<void> {
    this.stopped = true;
    this.generation++;
    const t = this.transport;
    const pid = this.pid ?? this.rawPid;
    this.client = undefined;
    this.transport = undefined;
    this.pid = undefined;
    this.starting = undefined;
    if (t) await t.close().catch(() => undefined);
    for (const r of this.retiring) void r.close().catch(() => undefined);
    this.retiring.clear();
    if (pid !== undefined) killIfAlive(pid);
    this.oauth?.close();
    if (this.state !== 'stopped') this.setState('stopped', reason === 'stopped' ? undefined : reason);
  }

  /** A person's restart: the restart count and the failures are forgotten. */
  resetFailures(): void {
    this.failures = 0;
    this.restarts = 0;
  }
}

/** SIGKILL to a process still running; true when it was sent. */
function killIfAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    // gone in between
    return false;
  }
}

function mb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${bytes} bytes`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The server no longer knows the session a request carried: HTTP 404, as MCP says a server
 * answers for a session it ended or forgot; or HTTP 400 naming the session, as servers built on
 * the SDK's examples answer ("No valid session ID provided").
 */
function sessionLost(e: unknown): e is SdkHttpError {
  return e instanceof SdkHttpError && (e.status === 404 || (e.status === 400 && /session/i.test(e.message)));
}

/** The HTTP status of a refusal the transport reports. */
function httpStatus(e: unknown): number | undefined {
  return e instanceof SdkHttpError ? e.status : undefined;
}

/** A challenge's error and scope, for an error message: ` (insufficient_scope, scope "a b")`. */
function challengeWords(c: Challenge): string {
  const parts = [c.error, c.scope !== undefined ? `scope "${c.scope}"` : undefined].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** How long a call runs before its cancel is watched for (a listener on a fresh AbortSignal costs more than a quick call). */
export const CANCEL_WATCH_AFTER_MS = 20;

/** A call the server refused for its Mcp-Param-* headers: its tool list may have changed since it was read. */
export function isHeaderMismatch(e: unknown): boolean {
  return e instanceof AppError && (e.details as { headerMismatch?: unknown } | undefined)?.headerMismatch === true;
}

/** A tools/call the server answered with a task to ask after (the tasks extension of MCP 2026-07-28). */
class CreatedTask {
  constructor(readonly task: TaskState) {}
}

/** The caller of a tools/call: its cancel (a signal it may make on first read), and where the server's progress reports go. */
interface CallerSide {
  /** The app's id of the call (its card waits for the server's questions to it). */
  readonly invocationId?: string;
  readonly signal: AbortSignal;
  progress?(report: ProgressReport): void;
}

/**
 * Tells the server a call was cancelled (notifications/cancelled) when `from.signal` aborts.
 * The signal is read, and its listener added, only once the call has run `afterMs`
 * (CANCEL_WATCH_AFTER_MS by default); a cancel before then is seen at that moment. Returns the function
 * that stops watching.
 */
function watchCancel(from: { readonly signal: AbortSignal }, afterMs: number, id: string | number, cancel: (id: string | number, reason: unknown) => void): () => void {
  let signal: AbortSignal | undefined;
  const onAbort = () => cancel(id, signal!.reason);
  const timer = setTimeout(() => {
    signal = from.signal;
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
  }, afterMs);
  return () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
}
