import fs from 'node:fs/promises';
import path from 'node:path';
import pkg from '../../package.json';
import type { AppInfo } from '../../shared/model/app-info';
import { EventBus } from './events';
import { ProblemLog } from './problems';
import { createRouter, defineHandlers, type Router } from './router';
import { SettingsStore } from './settings/settings-store';
import type { OpInput, OpName, OpOutput } from '../../shared/contract';
import { AppError, type Result } from '../../shared/errors';

export interface CoreConfig {
  dataDir: string;
  host: AppInfo['host'];
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
  });

  const router = createRouter(handlers);
  return {
    router,
    call: (name, input) => router.call(name, input) as Promise<Result<OpOutput<typeof name>>>,
    events,
    dataDir,
    settings,
    problems,
    workspaceDir,
    async close() {
      // Services with open handles (index, watchers) are closed here as they are added.
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
