import fs from 'node:fs/promises';
import path from 'node:path';
import pkg from '../../package.json';
import type { AppInfo } from '../../shared/model/app-info';
import { EventBus } from './events';
import { ProblemLog } from './problems';
import { createRouter, defineHandlers, type Router } from './router';
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
  /** Injectable for tests. */
  now?: () => Date;
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
  workspaceDir(): string;
  close(): Promise<void>;
}

/** The composition root: every service is built here from the config, nowhere else. */
export async function createCore(config: CoreConfig): Promise<Core> {
  const now = config.now ?? (() => new Date());
  const dataDir = path.resolve(config.dataDir);
  await fs.mkdir(dataDir, { recursive: true });

  const events = new EventBus();
  const problems = new ProblemLog(events, now);
  const settings = new SettingsStore(dataDir, events, problems, now);
  await settings.load();

  const workspaceDir = () => {
    const w = settings.get().workspaceDir;
    return w ? path.resolve(w) : path.join(dataDir, 'workspace');
  };
  await fs.mkdir(workspaceDir(), { recursive: true });
  const startedAt = now().toISOString();

  const registry = new Registry({ dataDir, resourcesDir: config.resourcesDir, events, problems, now, watch: config.watch });
  await registry.open();
  const store = registry.store;

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

    'bundles.list': (q) => store.listBundles(q),
    'bundles.get': ({ bundleId }) => store.getBundle(bundleId),
    'bundles.put': ({ bundleId, body }) => store.putBundle(bundleId, body),
    'bundles.patch': ({ bundleId, isEnabled }) => store.patchBundle(bundleId, { isEnabled }),
    'bundles.delete': ({ bundleId }) => store.deleteBundle(bundleId),
    'tools.list': (q) => store.listTools(q),
    'tools.search': (q) => registry.search(q),
    'tools.get': ({ bundleId, slug, version }) => store.getTool(bundleId, slug, version),
    'tools.put': ({ bundleId, slug, version, body }) => store.putTool(bundleId, slug, version, body),
    'tools.patch': ({ bundleId, slug, version, isEnabled }) => store.patchTool(bundleId, slug, version, { isEnabled }),
    'tools.delete': async ({ bundleId, slug, version }) => {
      await store.deleteTool(bundleId, slug, version);
      return { deleted: true as const };
    },
    'tools.usage': ({ bundleId, slug, version }) => store.usage(store.getTool(bundleId, slug, version).id),
    'tools.invoke': ({ bundleId, slug, version }) => {
      const tool = store.getTool(bundleId, slug, version);
      throw new AppError('NOT_IMPLEMENTED', `invoking tools is not available yet: '${tool.slug}' version '${tool.version}' exists but there is no dispatcher to run it`);
    },
  });

  const router = createRouter(handlers);
  return {
    router,
    call: (name, input) => router.call(name, input) as Promise<Result<OpOutput<typeof name>>>,
    events,
    dataDir,
    settings,
    problems,
    registry,
    workspaceDir,
    async close() {
      await registry.close();
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
