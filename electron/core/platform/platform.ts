/**
 * The platform: what every feature module stands on, built once per core before any module
 * starts (docs/architecture.md, "Feature modules"). It holds the clock, events, problems,
 * settings, secrets, the registry, the dispatcher, routing and the timeline, and the points
 * where modules plug in: built-in functions, invoke back-ends and hooks, written-file
 * recording, and what each model turn is given.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import type { Settings } from '../../../shared/model/settings';
import { EventBus } from '../events';
import { ProblemLog } from '../problems';
import { SettingsStore } from '../settings/settings-store';
import { createBufferStore, createRoutingServices, type RoutingServices } from '../routing';
import { registerBufferOps } from '../routing/buffer-ops';
import type { BufferStore } from '../routing/types';
import { builtinRegistry, type LocalFunctionRegistry } from '../builtin-functions/registry';
import { createWebFunctions } from '../builtin-functions/web';
import { Registry } from '../registry/registry';
import { KeyFileCipher } from '../secrets/cipher';
import { createRedactor } from '../secrets/redact';
import { SecretStore } from '../secrets/secret-store';
import { InvokeDispatcher, type Backend } from '../invoke/dispatcher';
import { httpBackend } from '../invoke/http-backend';
import { RateLimiter } from '../invoke/http/rate-limit';
import { HttpTransport } from '../invoke/http/transport';
import { InvocationLog } from '../invoke/invocation-log';
import type { HandleResolver } from '../invoke/handle-args';
import type { LocalToolContext, Transport } from '../invoke/types';
import type { ResponseSpill } from '../invoke/stored-ref';
import { ConversationStore } from '../timeline/conversation-store';
import type { Redact } from '../timeline/render';
import type { CoreConfig } from './config';
import type { TurnContribution } from './turn-contributions';

/** Where modules plug into the platform; each point is set by one module while it starts. */
export interface PlatformHooks {
  /** Pass by handle: `{"$handle": …}` arguments resolved to a stored output's text (the tool-outputs module). */
  resolveHandle?: HandleResolver;
  /** Where an oversized HTTP response goes for a conversation (the tool-outputs module). */
  spillFor?: (ownerId: string, meta: { toolName: string; toolId: string; argsJson: string }) => ResponseSpill | undefined;
  /** Records a workspace file a tool or a route wrote (the documents module); awaited by the writer. */
  wrote?: (rel: string, by: string) => Promise<void>;
}

export interface Platform {
  readonly config: CoreConfig;
  readonly dataDir: string;
  readonly now: () => Date;
  readonly startedAt: string;
  readonly events: EventBus;
  readonly problems: ProblemLog;
  readonly settings: SettingsStore;
  workspaceDir(): string;
  regexTimeLimitMs(): number;
  allowedHosts(): string[];
  /** The local functions tools of type `local` run; modules register theirs before the registry opens. */
  readonly functions: LocalFunctionRegistry;
  readonly secrets: SecretStore;
  readonly redact: Redact;
  readonly transport: Transport;
  readonly registry: Registry;
  readonly log: InvocationLog;
  readonly dispatcher: InvokeDispatcher;
  /** Back-ends other than `local` and `http`, by tool type (the MCP client module adds `mcp`, the script tools module `script`). */
  readonly backends: Partial<Record<'mcp' | 'script', Backend>>;
  readonly hooks: PlatformHooks;
  readonly buffers: BufferStore;
  readonly routing: RoutingServices;
  /** The timeline: conversations and their messages. */
  readonly conversations: ConversationStore;
  /** What feature modules add to every model turn, in module order. */
  readonly turnContributions: TurnContribution[];
}

/**
 * Builds the platform. `beforeRegistryOpens` registers the modules' built-in functions: the
 * registry reads which local functions exist when it indexes its tools.
 */
export async function openPlatform(config: CoreConfig, beforeRegistryOpens: (functions: LocalFunctionRegistry, platform: { dataDir: string }) => void): Promise<Platform> {
  const now = config.now ?? (() => new Date());
  const dataDir = path.resolve(config.dataDir);
  await fs.mkdir(dataDir, { recursive: true });

  const events = new EventBus();
  const problems = new ProblemLog(events, now);
  const settings = new SettingsStore(dataDir, events, problems, now);
  // The app owns the data folder and sets an unusable settings file aside; a command on the
  // side (the CLI: no watching; `toolsmith mcp`: no recovery) leaves it to the app.
  await settings.load({ setAsideBad: config.watch !== false && config.recoverInterrupted !== false });
  // Another process on this data folder (the CLI, a second host) may change the settings.
  if (config.watch !== false) settings.watch();

  const workspaceDir = () => {
    const w = settings.get().workspaceDir;
    return w ? path.resolve(w) : path.join(dataDir, 'workspace');
  };
  await fs.mkdir(workspaceDir(), { recursive: true });
  const startedAt = now().toISOString();
  const regexTimeLimitMs = () => settings.get().regexTimeLimitMs;
  const allowedHosts = () => settings.get().allowedHosts;
  const hooks: PlatformHooks = {};
  // Awaited by the writer, so each write's content is the version recorded.
  const wrote = (rel: string, by: string | undefined) => hooks.wrote?.(rel, by ?? 'user') ?? Promise.resolve();

  // The buffers come first: buffer_ops, a built-in tool, works on them.
  const buffers = createBufferStore({ dataDir, workspaceDir, events, now, regexTimeLimitMs });
  const functions = builtinRegistry();
  registerBufferOps(functions, buffers);
  beforeRegistryOpens(functions, { dataDir });

  const registry = new Registry({
    dataDir,
    resourcesDir: config.resourcesDir,
    events,
    problems,
    now,
    watch: config.watch,
    isLocalFunctionKnown: (id) => functions.has(id),
    // Read at each new tool: a change in Settings (here or by another process) applies at once.
    maxToolsPerBundle: () => settings.get().maxToolsPerBundle,
  });
  await registry.open();

  const secrets = new SecretStore({
    dataDir,
    cipher: config.secretCipher ?? new KeyFileCipher(dataDir),
    now,
    problems: (p) => problems.report(p),
    onChange: (list) => events.emit('secrets.changed', { names: list.map((s) => s.name) }),
  });
  await secrets.open();
  const redact = createRedactor(() => secrets.values());
  const transport = config.transport ?? new HttpTransport();
  const log = InvocationLog.open(path.join(dataDir, 'invocations.sqlite'));

  // What every local function's context shares, made again only when the settings change (a
  // call does not resolve the workspace path).
  const makeContextBase = (s: Settings) => ({ of: s, base: { workspaceDir: workspaceDir(), now, transport, allowedHosts, regexTimeLimitMs: s.regexTimeLimitMs, wrote } });
  let contextBase = makeContextBase(settings.get());
  const localContext = (): Omit<LocalToolContext, 'signal'> => {
    if (contextBase.of !== settings.get()) contextBase = makeContextBase(settings.get());
    return contextBase.base;
  };
  const backends: Partial<Record<'mcp' | 'script', Backend>> = {};
  const dispatcher = new InvokeDispatcher({
    store: registry.store,
    log,
    redact,
    localFunctions: functions,
    localContext,
    resolveHandle: (handle, ownerId) => {
      if (!hooks.resolveHandle) throw new AppError('UNAVAILABLE', 'stored outputs are not available in this process');
      return hooks.resolveHandle(handle, ownerId);
    },
    backends: {
      http: httpBackend({ transport, allowedHosts, secrets, redact, rateLimiter: new RateLimiter(), spillFor: (ownerId, meta) => hooks.spillFor?.(ownerId, meta) }),
      mcp: (call) => {
        if (!backends.mcp) throw new AppError('UNAVAILABLE', `'${call.tool.slug}' cannot run: MCP servers are not available in this process`);
        return backends.mcp(call);
      },
      script: (call) => {
        if (!backends.script) throw new AppError('UNAVAILABLE', `'${call.tool.slug}' cannot run: script tools are not available in this process`);
        return backends.script(call);
      },
    },
    // Only an injected clock (tests): otherwise a call reads Date.now() rather than make a Date.
    ...(config.now ? { now: config.now } : {}),
  });

  const routing = createRoutingServices({ dataDir, workspaceDir, events, registry, transport, allowedHosts, fetchUrl: createWebFunctions()['fetch-url'], now, regexTimeLimitMs, buffers, wrote });
  const conversations = ConversationStore.open({
    file: path.join(dataDir, 'conversations.sqlite'),
    now,
    problems: (p) => problems.report(p),
    onChange: (c) => events.emit('conversations.changed', c),
    onTasks: (rootId) => events.emit('tasks.changed', { rootId }),
    ...(config.recoverInterrupted === false ? { recoverInterrupted: false } : {}),
  });

  return {
    config,
    dataDir,
    now,
    startedAt,
    events,
    problems,
    settings,
    workspaceDir,
    regexTimeLimitMs,
    allowedHosts,
    functions,
    secrets,
    redact,
    transport,
    registry,
    log,
    dispatcher,
    backends,
    hooks,
    buffers,
    routing,
    conversations,
    turnContributions: [],
  };
}

/** Cancels the calls still running (the tester's, a route's): after the modules stop their work, before they close. */
export function stopPlatform(p: Platform): void {
  for (const id of p.dispatcher.runningIds()) p.dispatcher.cancel(id);
}

/** Closes what the platform holds, after every module has closed. */
export async function closePlatform(p: Platform): Promise<void> {
  await p.registry.close();
  await p.settings.close();
  p.log.close();
  p.conversations.close();
}
