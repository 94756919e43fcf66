/**
 * The composition root: the platform (platform/platform.ts), then the feature modules of
 * ./modules.ts on it, and the router over their handlers. Nothing else builds services.
 */
import type { OpInput, OpName, OpOutput } from '../../shared/contract';
import type { Result } from '../../shared/errors';
import type { LocalFunctionRegistry } from './builtin-functions/registry';
import type { EventBus } from './events';
import type { InvokeDispatcher } from './invoke/dispatcher';
import type { McpAppsService } from './mcp-apps/service';
import { mcpAppsModule } from './mcp-apps/module';
import type { McpServeService } from './mcp-server/service';
import { mcpServerModule } from './mcp-server/module';
import { mcpClientModule } from './mcp-client/module';
import { MODULES } from './modules';
import type { CoreConfig } from './platform/config';
import { ModuleHost, type OpsOf } from './platform/feature-module';
import { closePlatform, openPlatform, stopPlatform } from './platform/platform';
import type { ProblemLog } from './problems';
import type { Registry } from './registry/registry';
import { createRouter, type HandlerTable, type Router } from './router';
import type { SecretStore } from './secrets/secret-store';
import type { SettingsStore } from './settings/settings-store';
import { testcasesModule } from './testcases/module';
import type { SuiteOptions, SuiteResult } from './testcases/run-suite';

export type { CoreConfig } from './platform/config';

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
  /** MCP Apps brought in: the hosts serve their frame documents (setFrameHost, frameDocument). */
  readonly mcpApps: McpAppsService;
  /**
   * A window (the Electron window, or a browser on the headless host) is open and can answer
   * what waits for the user: served tools' approvals and MCP servers' questions. The answer
   * detaches it.
   */
  attachWindow(): () => void;
  /** Saved test cases run as a suite over bundles (`toolsmith test`; testcases/run-suite.ts). */
  runTestSuite(options: SuiteOptions): Promise<SuiteResult>;
  workspaceDir(): string;
  close(): Promise<void>;
}

/**
 * Every operation of the contract has a handler in a module: one missing is a compile error
 * here naming it ("'tools.usageStats' is not assignable to type 'never'"). One handled by two
 * modules stops the core at start (ModuleHost).
 */
type MustBeNever<T extends never> = T;
export type UnhandledOperations = MustBeNever<Exclude<OpName, OpsOf<(typeof MODULES)[number]>>>;

export async function createCore(config: CoreConfig): Promise<Core> {
  const modules = new ModuleHost(MODULES);
  const platform = await openPlatform(config, (functions, basics) => modules.registerFunctions(functions, basics));
  let running;
  try {
    running = await modules.start(platform);
  } catch (e) {
    // The modules that started and the platform are closed again (a module that fails partway
    // through its own start closes what it opened itself); the start's error is the one thrown.
    try {
      await modules.closeStarted();
    } catch (closeError) {
      console.error('closing after a failed start:', closeError);
    } finally {
      await closePlatform(platform).catch((closeError: unknown) => console.error('closing the platform after a failed start:', closeError));
    }
    throw e;
  }
  const started = running;
  // What a module keeps for a conversation goes with it.
  platform.events.on('conversations.changed', (c) => {
    if (c.kind === 'deleted') void started.conversationDeleted(c.conversationId);
  });
  const router = createRouter(started.handlers as HandlerTable);
  const { use } = modules;
  let closing: Promise<void> | undefined;
  return {
    router,
    call: (name, input) => router.call(name, input) as Promise<Result<OpOutput<typeof name>>>,
    events: platform.events,
    dataDir: platform.dataDir,
    settings: platform.settings,
    problems: platform.problems,
    registry: platform.registry,
    secrets: platform.secrets,
    dispatcher: platform.dispatcher,
    functions: platform.functions,
    mcpServer: use(mcpServerModule),
    mcpApps: use(mcpAppsModule),
    attachWindow: () => {
      const approvals = use(mcpServerModule).queue.attachWindow();
      const questions = use(mcpClientModule).elicitations.attachWindow();
      return () => {
        approvals();
        questions();
      };
    },
    runTestSuite: (options) => use(testcasesModule).runTestSuite(options),
    workspaceDir: platform.workspaceDir,
    close() {
      closing ??= (async () => {
        // Every module stops (in reverse order), the platform's own calls are cancelled, and
        // only then does anything close.
        try {
          await started.stop(() => stopPlatform(platform));
          await started.close();
        } finally {
          await closePlatform(platform);
        }
      })();
      return closing;
    },
  };
}
