/**
 * The headless host: the core with the HTTP host on 127.0.0.1, for a browser, scripts and tests.
 * Started by `npm run serve` (serve.ts) and by `toolsmith serve`.
 * Usage: serve [--port N] [--data-dir DIR] [--static DIR] [--resources DIR]
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from '../core/app';
import { argValue, resolveDataDir } from '../core/data-dir';
import type { CliHost } from './cli-mode';
import { startHttpHost } from './http';
import { headlessOpenPath } from './open-path';
import { restRoutes } from './rest';

/** `host`: what the app's binary lends `toolsmith serve` when it runs it (cli-mode.ts). */
export async function serve(argv: readonly string[], env: NodeJS.ProcessEnv, host: CliHost = {}): Promise<void> {
  const dataDir = resolveDataDir({ argv, env, platform: process.platform, homedir: os.homedir(), exists: existsSync });
  const portArg = argValue(argv, '--port') ?? env.TOOLSMITH_PORT ?? '0';
  const port = Number(portArg);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be a number from 0 to 65535: got '${portArg}'`);
  }
  const here = path.dirname(fileURLToPath(import.meta.url));
  const staticDir = path.resolve(argValue(argv, '--static') ?? path.join(here, '..', 'dist', 'renderer'));

  const resourcesDir = path.resolve(argValue(argv, '--resources') ?? path.join(here, '..', 'resources'));
  const core = await createCore({ dataDir, resourcesDir, host: 'headless', openPath: headlessOpenPath(), ...(host.secretCipher ? { secretCipher: host.secretCipher } : {}) });
  const http = await startHttpHost({ core, port, staticDir, routes: restRoutes(core) });
  // Settings → MCP server shows the command that serves this data folder over stdio.
  const cli = path.join(here, 'toolsmith.mjs');
  if (host.cliCommand) core.mcpServer.setEndpoints({ stdioCommand: [...host.cliCommand, 'mcp'] });
  else if (existsSync(cli)) core.mcpServer.setEndpoints({ stdioCommand: [process.execPath, cli, 'mcp'] });
  const lines = [
    `Toolsmith is running at ${http.url}`,
    `Sign in by opening this one-time link: ${http.loginUrl()}`,
    `Data folder: ${core.dataDir}`,
    `API token (for scripts): ${http.tokenFile}`,
    `MCP token (for MCP clients at ${http.url}mcp): ${http.mcpTokenFile}`,
    'Press Ctrl+C to stop.',
  ];
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await http.close();
    await core.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
