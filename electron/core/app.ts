import fs from 'node:fs/promises';
import path from 'node:path';
import pkg from '../../package.json';
import type { AppInfo } from '../../shared/model/app-info';
import { EventBus } from './events';
import { ProblemLog } from './problems';
import { createRouter, defineHandlers, type Router } from './router';
import { invokeHandlers } from './handlers/invoke-handlers';
import { registryHandlers } from './handlers/registry-handlers';
import { secretsHandlers } from './handlers/secrets-handlers';
import { testcaseHandlers } from './handlers/testcase-handlers';
import { transferHandlers } from './handlers/transfer-handlers';
import { bufferHandlers } from './handlers/buffer-handlers';
import { chatHandlers } from './handlers/chat-handlers';
import { usageHandlers } from './handlers/usage-handlers';
import { workflowHandlers } from './handlers/workflow-handlers';
import { agentProfileHandlers } from './handlers/agent-profile-handlers';
import { AgentProfileStore } from './agent-profiles/profile-store';
import { DocumentStore } from './documents/document-store';
import { documentHandlers } from './handlers/document-handlers';
import { registerDocumentTool } from './documents/document-tool';
import { DocumentSummarizer } from './documents/summarizer';
import { MemoryService } from './memory/memory-service';
import { MEMORY_BUNDLE_ID, MEMORY_CALL_TIMEOUT_MS, registerMemoryTools } from './memory/memory-tools';
import { loadedBlockNote, pinnedContext } from './memory/memory-context';
import type { ToolCard } from '../../shared/model/conversation';
import { actorFor } from './memory/actors';
import { ChatConsent } from './memory/consent-cards';
import { memoryHandlers } from './handlers/memory-handlers';
import { memorySourceHandlers } from './handlers/memory-source-handlers';
import { SourceManager } from './memory/sources/source-manager';
import { createSourceTools, SOURCE_FUNCTION_ID } from './memory/sources/source-tools';
import { taskHandlers } from './handlers/task-handlers';
import { ConversationStore } from './timeline/conversation-store';
import { createBufferStore, createRoutingServices } from './routing';
import { registerBufferOps } from './routing/buffer-ops';
import { WorkflowRunner } from './workflows/workflow-runner';
import { agentStepTurns } from './workflows/model-steps';
import { ApprovalStore } from './agent/approvals';
import { createAgentLoop } from './agent/loop';
import { ChatService } from './chat/chat-service';
import { toolOutputHandlers } from './handlers/tool-output-handlers';
import { mcpClientHandlers } from './handlers/mcp-client-handlers';
import { McpClientManager } from './mcp-client/manager';
import { mcpServerHandlers } from './handlers/mcp-server-handlers';
import { McpServeService } from './mcp-server/service';
import { ToolOutputService } from './tool-output/service';
import { ProviderClients } from './agent/providers/client-factory';
import { ProviderStore } from './agent/providers/provider-store';
import { agentHandlers } from './handlers/agent-handlers';
import { providerHandlers } from './handlers/provider-handlers';
import { TestCaseStore } from './testcases/test-case-store';
import { runSuite, type SuiteOptions, type SuiteResult } from './testcases/run-suite';
import { SuiteRuns } from './testcases/suite-runs';
import { InvokeDispatcher } from './invoke/dispatcher';
import { httpBackend } from './invoke/http-backend';
import { RateLimiter } from './invoke/http/rate-limit';
import { HttpTransport } from './invoke/http/transport';
import { InvocationLog } from './invoke/invocation-log';
import type { LocalToolContext, Transport } from './invoke/types';
import type { Settings } from '../../shared/model/settings';
import { KeyFileCipher, type SecretCipher } from './secrets/cipher';
import { createRedactor } from './secrets/redact';
import { SecretStore } from './secrets/secret-store';
import { builtinRegistry, type LocalFunctionRegistry } from './builtin-functions/registry';
import { Registry } from './registry/registry';
import { SettingsStore } from './settings/settings-store';
import type { OpInput, OpName, OpOutput } from '../../shared/contract';
import { AppError, type Result } from '../../shared/errors';

export interface CoreConfig {
  dataDir: string;
  /** The app's shipped files; built-in bundles are read from `<resourcesDir>/bundles`. */
  resourcesDir: string;
  host: AppInfo['host'];
  /** Watch the data folder for other processes' writes (default true). */
  watch?: boolean;
  /** Run stream sources (memory folder watchers) in this process (default true; the CLI passes false). */
  streams?: boolean;
  /** How secrets are encrypted at rest; default: AES-GCM with a key file in the data folder. */
  secretCipher?: SecretCipher;
  /** The transport HTTP tools use (tests may pass one with a custom DNS lookup). */
  transport?: Transport;
  /** Injectable for tests. */
  now?: () => Date;
  /** False in a process beside a running app on the same data folder (`toolsmith mcp`): leave its running calls and tasks alone. */
  recoverInterrupted?: boolean;
  /** MCP servers' back-off after a failure and largest message (tests shorten and shrink them). */
  mcpClient?: { backoffMs?: number; maxMessageBytes?: number; openUrl?: (url: string) => void | Promise<void>; cancelWatchAfterMs?: number };
  /** How documents' model summaries wait and run (tests shorten the wait). */
  documentSummaries?: { debounceMs?: number; concurrency?: number };
  /** Opens a file with the system's application (Electron's shell.openPath, xdg-open); absent: UNAVAILABLE. */
  openPath?: (absPath: string) => Promise<void>;
}

export interface Core {
  readonly router: Router;
  /** A typed call through the router, as a transport would make it. */
  call<N extends OpName>(name: N, input: OpInput<N>): Promise<Result<OpOutput<N>>>;
  readonly events: EventBus;
  readonly dataDir: string;
  readonly settings: SettingsStore;
  readonly problems: ProblemLog;
  readonly registry: Registry;
  readonly secrets: SecretStore;
  readonly dispatcher: InvokeDispatcher;
  /** The local functions tools of type `local` run. */
  readonly functions: LocalFunctionRegistry;
  /** The registry served over MCP (the hosts connect transports to it). */
  readonly mcpServer: McpServeService;
  /** Saved test cases run as a suite over bundles (`toolsmith test`; testcases/run-suite.ts). */
  runTestSuite(options: SuiteOptions): Promise<SuiteResult>;
  workspaceDir(): string;
  close(): Promise<void>;
}

/** How long close() waits for stopped model turns to end. */
const TURNS_SETTLE_MS = 2_000;

/** The composition root: every service is built here from the config, nowhere else. */
export async function createCore(config: CoreConfig): Promise<Core> {
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
  // The buffers come first: buffer_ops, a built-in tool, works on them.
  const buffers = createBufferStore({ dataDir, workspaceDir, events, now, regexTimeLimitMs });
  // Documents (seed 003): every workspace file a tool or a route writes is recorded with its metadata.
  const documents = DocumentStore.open({
    file: path.join(dataDir, 'documents.sqlite'),
    workspaceDir,
    now,
    problems: (p) => problems.report(p),
    onChange: (paths) => events.emit('documents.changed', { paths }),
    onTextVersion: (v) => summaries.schedule(v),
  });
  // A document's summary is written by Settings' document summary model when one is set (in the background).
  const summaries = new DocumentSummarizer({
    store: documents,
    model: () => {
      const ref = settings.get().documentSummaryModel;
      if (!ref) return undefined;
      return { ref, client: () => clients.forProvider(ref.providerId), contextTokens: toolOutputs.windowFor(ref).contextTokens };
    },
    ...config.documentSummaries,
  });
  // Awaited by the writer, so each write's content is the version recorded (record never throws).
  const wrote = (rel: string, by: string | undefined) => documents.record(rel, by ?? 'user');
  const functions = builtinRegistry();
  registerBufferOps(functions, buffers);
  registerDocumentTool(functions, () => documents);
  // Memory (seed 002): blocks and recall entries; a task's memory and grant come from its agent profile.
  const memoryChanged = (owner: string, label?: string) => events.emit('memory.changed', { owner, ...(label !== undefined ? { label } : {}) });
  // Partner and Human blocks ask the user with a consent card on the call's card in the chat.
  const memory = MemoryService.open({ file: path.join(dataDir, 'memory.sqlite'), now, problems: (p) => problems.report(p), onChange: memoryChanged, consent: () => chatConsent });
  const memoryActor = (ownerId: string) =>
    actorFor(ownerId, {
      agentOf: (cid) => {
        const task = conversations.has(cid) ? conversations.taskOf(cid) : undefined;
        if (task?.kind !== 'agent') return undefined;
        const profile = agentProfiles.list().find((v) => v.profile.name === task.agent)?.profile;
        return { name: task.agent, memory: profile?.memory };
      },
    });
  registerMemoryTools(functions, { memory: () => memory, actorOf: memoryActor });
  // Data sources: FileSources (the `file` tool, registered while one exists) and folder watchers.
  const sourceTools = createSourceTools({ sources: () => sources, actorOf: memoryActor });
  functions.register(SOURCE_FUNCTION_ID, sourceTools.source);
  const sources: SourceManager = new SourceManager({
    file: path.join(dataDir, 'memory-sources.json'),
    memory,
    now,
    functions,
    // Its consent cards wait as long as the block tools' do (not the dispatcher's default minute).
    fileFunction: Object.assign(sourceTools.file, { timeoutMs: MEMORY_CALL_TIMEOUT_MS }),
    ...(config.streams === false ? { streams: false } : {}),
    changed: memoryChanged,
    // The file tool comes and goes with FileSources: the search index learns it before the UI asks.
    sourcesChanged: async () => {
      await registry.syncAll();
      events.emit('memory.sources.changed', {});
    },
    problems: (p) => problems.report(p),
  });
  memory.sources = sources;
  await sources.open();
  // What a model is given of the memory on every step: its pinned blocks; an unpinned block only in the batch that loaded it.
  const memoryForModel = {
    context: (cid: string) => pinnedContext(memory.blocks, memoryActor(cid).owner),
    earlierLoad: (card: ToolCard) => loadedBlockNote(card, (id) => id === MEMORY_BUNDLE_ID),
  };
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
  const allowedHosts = () => settings.get().allowedHosts;
  const log = InvocationLog.open(path.join(dataDir, 'invocations.sqlite'));
  // Oversized tool outputs (seed 001): folders a crashed run left are swept at start. A
  // `buffer` choice routes through the routing services (built below, used only at call time).
  const toolOutputs = new ToolOutputService({
    settings: () => settings.get().toolOutputs,
    now,
    redact,
    onProblem: (message) => problems.report({ kind: 'io-error', path: settings.get().toolOutputs.baseDir || 'the temp folder', message }),
    router: { route: (r) => routing.router.route(r) },
  });
  await toolOutputs.sweep();
  // MCP servers as bundles: configs read now, servers started when a tool of theirs is called.
  const mcpClient = new McpClientManager({
    dataDir,
    store: registry.store,
    secrets,
    now,
    workspaceDir,
    clientVersion: pkg.version,
    ...config.mcpClient,
    onChange: (bundleId) => events.emit('mcpServers.changed', { bundleId }),
    onProblem: (p) => problems.report({ kind: 'io-error', path: p.path, message: p.message }),
  });
  await mcpClient.open();
  // What every local function's context shares, made again only when the settings change (a
  // call does not resolve the workspace path).
  const makeContextBase = (s: Settings) => ({ of: s, base: { workspaceDir: workspaceDir(), now, transport, allowedHosts, regexTimeLimitMs: s.regexTimeLimitMs, wrote } });
  let contextBase = makeContextBase(settings.get());
  const localContext = (): Omit<LocalToolContext, 'signal'> => {
    if (contextBase.of !== settings.get()) contextBase = makeContextBase(settings.get());
    return contextBase.base;
  };
  const dispatcher = new InvokeDispatcher({
    store: registry.store,
    log,
    redact,
    localFunctions: functions,
    localContext,
    resolveHandle: (handle, ownerId) => toolOutputs.resolveHandle(handle, ownerId),
    backends: {
      http: httpBackend({ transport, allowedHosts, secrets, redact, rateLimiter: new RateLimiter(), spillFor: (ownerId, meta) => toolOutputs.spillFor(ownerId, meta) }),
      mcp: mcpClient.backend(),
    },
    // Only an injected clock (tests): otherwise a call reads Date.now() rather than make a Date.
    ...(config.now ? { now: config.now } : {}),
  });

  const routing = createRoutingServices({ dataDir, workspaceDir, events, registry, transport, allowedHosts, now, regexTimeLimitMs, buffers, wrote });
  const conversations = ConversationStore.open({
    file: path.join(dataDir, 'conversations.sqlite'),
    now,
    problems: (p) => problems.report(p),
    onChange: (c) => events.emit('conversations.changed', c),
    onTasks: (rootId) => events.emit('tasks.changed', { rootId }),
    ...(config.recoverInterrupted === false ? { recoverInterrupted: false } : {}),
  });

  const chatConsent = new ChatConsent({
    cardOf: (cid, invocationId) => {
      const rows = conversations.messages(cid);
      for (let i = rows.length - 1; i >= 0; i--) {
        const m = rows[i]!;
        if (m.role === 'tool' && m.tool?.invocationId === invocationId) return { card: m.tool, turnId: m.turnId };
      }
      return undefined;
    },
    append: (cid, row) => void conversations.addMessages(cid, [{ role: 'tool', text: row.text, tool: row.card, ...(row.turnId ? { turnId: row.turnId } : {}) }]),
  });

  const providers = await ProviderStore.open({ dataDir, secrets, now, problems: (p) => problems.report(p), onChange: (ids) => events.emit('providers.changed', { ids }) });
  const clients = new ProviderClients({ providers, secrets });
  const approvals = await ApprovalStore.open({ dataDir, now, problems: (p) => problems.report(p), onChange: () => events.emit('approvals.changed', {}) });
  // A conversation's remembered approvals and its memory (blocks, recall entries) go with it.
  events.on('conversations.changed', (c) => {
    if (c.kind === 'deleted') void approvals.forgetConversation(c.conversationId);
    if (c.kind === 'deleted') memory.deleteConversation(c.conversationId);
  });
  toolOutputs.store.onChange((conversationId) => events.emit('toolOutputs.changed', { conversationId }));
  events.on('conversations.changed', (c) => {
    if (c.kind === 'deleted') {
      toolOutputs.endSession(c.conversationId).catch((e: unknown) => problems.report({ kind: 'io-error', path: c.conversationId, message: `could not remove the stored outputs of a deleted conversation: ${(e as Error).message}` }));
    }
  });
  // Agent profiles (seed 003): the agents a conversation's model may delegate to.
  const tasks = {
    agents: { enabled: (name: string) => agentProfiles.enabled(name), list: () => agentProfiles.list().filter((v) => v.enabled).map((v) => v.profile) },
    workspaceDir,
    maxDepth: () => settings.get().maxDelegationDepth,
  };
  const agent = createAgentLoop({ conversations, clients, dispatcher, registry, routing, approvals, settings, events, now, redact, toolOutputs, tasks, memory: memoryForModel });
  // A workflow step for a model runs a turn of the agent loop; workflows get it as a function.
  const runTurn = agentStepTurns({ agent, conversations, events });
  const workflows = new WorkflowRunner({ workspaceDir, routing, conversations, events, now, runTurn, defaultModel: () => settings.get().defaultModel });

  // The registry served over MCP: tool_output extracts with Settings' default model, if one is set.
  const mcpServer = new McpServeService({
    store: registry.store,
    dispatcher,
    toolOutputs,
    approvals,
    settings: () => settings.get().mcpServer,
    events,
    now,
    version: pkg.version,
    dataDir,
    maxResultBytes: () => settings.get().toolOutputs.maxResultBytes,
    extractionModel: () => {
      const model = settings.get().defaultModel;
      if (!model) return undefined;
      try {
        return toolOutputs.extractionModel(clients.forProvider(model.providerId), model);
      } catch {
        return undefined;
      }
    },
  });

  const chat = new ChatService({ conversations, routing, dispatcher, registry, now, agent, toolOutputs });

  const testCases = new TestCaseStore({ dataDir, now, problems: (p) => problems.report(p) });
  const runTestSuite = (options: SuiteOptions) => runSuite({ cases: testCases, tools: registry.store, invoke: (r) => dispatcher.invoke({ ...r, source: 'tester' }), now }, options);
  const suites = new SuiteRuns(runTestSuite, now);
  const agentProfiles = await AgentProfileStore.open({ dataDir, resourcesDir: config.resourcesDir, now, report: (p) => problems.report(p), onChange: () => events.emit('agents.changed', {}) });

  const handlers = defineHandlers({
    'app.info': () => ({
      name: 'Toolsmith' as const,
      version: pkg.version,
      host: config.host,
      dataDir,
      workspaceDir: workspaceDir(),
      platform: process.platform,
      nodeVersion: process.versions.node,
      startedAt,
    }),
    'app.ping': (input) => ({ echo: input.echo ?? 'pong', at: now().toISOString() }),
    'app.problems': () => problems.list(),
    'settings.get': () => settings.get(),
    'settings.set': async (patch) => {
      if (patch.workspaceDir) await prepareWorkspace(patch.workspaceDir);
      return settings.set(patch);
    },

    ...registryHandlers(registry),
    ...invokeHandlers(dispatcher, log, events, redact),
    ...secretsHandlers(secrets),
    ...testcaseHandlers({ store: testCases, dispatcher, toolStore: registry.store, suites, events }),
    ...transferHandlers({ store: registry.store, testCases }),
    ...chatHandlers({ conversations, routing, dispatcher, registry, events, now, settings, agent, toolOutputs, chat }),
    ...bufferHandlers({ routing, workspaceDir, openPath: config.openPath }),
    ...workflowHandlers(workflows),
    ...agentProfileHandlers(agentProfiles),
    ...taskHandlers({ conversations, loop: agent }),
    ...documentHandlers(documents),
    ...memoryHandlers(memory, memoryChanged, chatConsent),
    ...memorySourceHandlers(sources),
    ...providerHandlers({ providers, clients }),
    ...agentHandlers({ conversations, loop: agent, approvals, providers }),
    ...toolOutputHandlers({ toolOutputs, conversations, clients, settings }),
    ...mcpClientHandlers(mcpClient),
    ...mcpServerHandlers(mcpServer),
    ...usageHandlers({ log, registry, conversations, now, storedText: (h) => toolOutputs.inlineText(h) }),
  });

  const router = createRouter(handlers);
  let closing: Promise<void> | undefined;
  return {
    router,
    call: (name, input) => router.call(name, input) as Promise<Result<OpOutput<typeof name>>>,
    events,
    dataDir,
    settings,
    problems,
    registry,
    secrets,
    dispatcher,
    functions,
    mcpServer,
    runTestSuite,
    workspaceDir,
    close() {
      closing ??= (async () => {
        // Questions still open are answered deny before the turns stop.
        chatConsent.close();
        agent.stopAll();
        workflows.cancelAll();
        suites.cancelAll();
        for (const id of dispatcher.runningIds()) dispatcher.cancel(id);
        // Stopped turns append their last rows (cancelled calls, the stop notice) before the
        // store closes; one that does not end in time is closed when the store next opens.
        await agent.settledAll(TURNS_SETTLE_MS);
        // No MCP server process outlives the app.
        await mcpClient.close();
        await registry.close();
        await settings.close();
        log.close();
        conversations.close();
        await documents.idle();
        await summaries.close();
        documents.close();
        // No watcher outlives the app.
        await sources.close();
        memory.close();
        await toolOutputs.close();
      })();
      return closing;
    },
  };
}

/** A workspace folder must be absolute and creatable before it is saved. */
async function prepareWorkspace(dir: string): Promise<void> {
  if (!path.isAbsolute(dir)) {
    throw new AppError('VALIDATION_FAILED', `workspace folder must be an absolute path: got '${dir}'`, { field: 'workspaceDir' });
  }
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (e) {
    throw new AppError('VALIDATION_FAILED', `cannot use '${dir}' as the workspace folder: ${(e as Error).message}`, {
      field: 'workspaceDir',
    });
  }
}
