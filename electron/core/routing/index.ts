/** Builds the routing services (buffers, the output router, the directive runner) for the core. */
import type { EventBus } from '../events';
import type { Registry } from '../registry/registry';
import type { Transport, AllowedHosts, LocalFunction } from '../invoke/types';
import { FileBufferStore } from './buffer-store';
import { DirectiveRunnerImpl, registryToolDirectory } from './directive-runner';
import { FileInputSource, UrlInputSource, VariableInputSource, inputSourceMap } from './input-sources';
import { WorkspaceOutputRouter } from './router';
import type { BufferStore, DirectiveRunner, OutputRouter } from './types';

export interface RoutingDeps {
  dataDir: string;
  workspaceDir: () => string;
  events: EventBus;
  registry: Registry;
  transport: Transport;
  allowedHosts: () => AllowedHosts;
  /** What `@input url:` reads with: the built-in fetch_url (routing does not import the built-ins). */
  fetchUrl: LocalFunction;
  now: () => Date;
  /** The time limit of one buffer search (Settings' regexTimeLimitMs). */
  regexTimeLimitMs?: () => number;
  /** Told of each workspace file a route wrote (documents record it). */
  wrote?: (relPath: string, by: string | undefined) => void | Promise<void>;
}

/** The conversations' and workflow runs' buffers: built first, so buffer_ops can be registered before the registry opens. */
export function createBufferStore(deps: Pick<RoutingDeps, 'dataDir' | 'workspaceDir' | 'events' | 'now' | 'regexTimeLimitMs'>): BufferStore {
  return new FileBufferStore({ dataDir: deps.dataDir, workspaceDir: deps.workspaceDir, now: deps.now, events: deps.events, searchTimeoutMs: deps.regexTimeLimitMs });
}

export interface RoutingServices {
  buffers: BufferStore;
  router: OutputRouter;
  directives: DirectiveRunner;
}

export function createRoutingServices(deps: RoutingDeps & { buffers?: BufferStore }): RoutingServices {
  const { workspaceDir, now, transport, allowedHosts } = deps;
  const buffers = deps.buffers ?? createBufferStore(deps);
  const router = new WorkspaceOutputRouter({ buffers, workspaceDir, now, ...(deps.wrote ? { wrote: deps.wrote } : {}) });
  const sources = inputSourceMap([
    new FileInputSource({ workspaceDir }),
    new VariableInputSource(buffers),
    new UrlInputSource({ fetchUrl: deps.fetchUrl, transport, allowedHosts, workspaceDir, now }),
  ]);
  const directives = new DirectiveRunnerImpl({ router, sources, tools: registryToolDirectory(deps.registry), now });
  return { buffers, router, directives };
}
