/**
 * Script tools (docs/script-tools.md): the `script` back-end of the dispatcher, the sandbox
 * workers it runs on, the source and trust operations, and the drop-in folder (scanned at start
 * and when it changes, by the process that owns the data folder: the app or the headless host).
 */
import { watch, type FSWatcher } from 'chokidar';
import fs from 'node:fs';
import { ReloadDebounce } from '../lib/reload-debounce';
import { defineModule } from '../platform/feature-module';
import { DropIn } from './drop-in';
import { SandboxPool } from './sandbox-pool';
import { scriptBackend } from './script-backend';
import { withScriptLeave } from './script-leave';
import { scriptToolsHandlers } from './script-tools-handlers';

export interface ScriptToolsApi {
  pool: SandboxPool;
  dropIn: DropIn;
}

export const scriptToolsModule = defineModule({
  name: 'script-tools',
  start: ({ registry, settings, transport, allowedHosts, secrets, redact, backends, config, dataDir, problems }) => {
    const { dropInDebounceMs = 300, ...poolOptions } = config.scriptTools ?? {};
    const pool = new SandboxPool(poolOptions);
    // A call an MCP client's user confirmed runs its script once without trusting it (./script-leave.ts).
    backends.script = withScriptLeave(registry.store, (store) =>
      scriptBackend({
        store,
        pool,
        settings: () => settings.get().scriptTools,
        fetch: { transport, allowedHosts, secrets, redact },
      }),
    );
    const dropIn = new DropIn({ dataDir, store: registry.store, problems });
    let watcher: FSWatcher | undefined;
    let debounce: ReloadDebounce | undefined;
    // Only the process that owns the data folder registers dropped files (not the CLI, not `toolsmith mcp` beside the app).
    if (config.watch !== false && config.recoverInterrupted !== false) {
      const scan = () => void dropIn.scan().catch((e: unknown) => problems.report({ kind: 'io-error', path: dropIn.dir, message: `the drop-in folder could not be read: ${(e as Error).message}` }));
      fs.mkdirSync(dropIn.dir, { recursive: true });
      debounce = new ReloadDebounce(scan, dropInDebounceMs, dropInDebounceMs * 4);
      watcher = watch(dropIn.dir, { ignoreInitial: true, depth: 0, ignored: (p) => /(^|[\\/])\.[^\\/]*$/.test(p) && p !== dropIn.dir });
      watcher.on('all', () => debounce!.trigger());
      watcher.on('error', (e) => console.warn('drop-in watcher:', e));
      scan();
    }
    const api: ScriptToolsApi = { pool, dropIn };
    return {
      api,
      handlers: scriptToolsHandlers(registry.store),
      stop: async () => {
        debounce?.cancel();
        await watcher?.close();
        await dropIn.idle();
      },
      // Running scripts end with their calls (the platform cancels them); the workers go last.
      close: () => pool.close(),
    };
  },
});
