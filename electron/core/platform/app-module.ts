/** The app's own operations: what it is, a ping, the problems seen, and the settings. */
import fs from 'node:fs/promises';
import path from 'node:path';
import pkg from '../../../package.json';
import { AppError } from '../../../shared/errors';
import { DROP_IN_FOLDER } from '../../../shared/model/script-tool';
import { defineModule } from './feature-module';

export const appModule = defineModule({
  name: 'app',
  start: ({ config, dataDir, now, startedAt, problems, settings, workspaceDir }) => ({
    api: undefined,
    handlers: {
      'app.info': () => ({
        name: 'Toolsmith' as const,
        version: pkg.version,
        host: config.host,
        dataDir,
        workspaceDir: workspaceDir(),
        dropInDir: path.join(dataDir, DROP_IN_FOLDER),
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
    },
  }),
});

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
