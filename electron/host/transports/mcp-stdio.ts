/**
 * `toolsmith mcp`: the registry served over MCP on stdin/stdout, for Claude Desktop, Cursor,
 * VS Code and any other client that starts a server as a child process. The same core over
 * the same data folder as the app (another process may run the app at the same time: the
 * registry is watched, and Settings and the remembered approvals are read again when they change).
 * A tool that requires approval is asked in that app's window (host-approvals.ts).
 * Usage: toolsmith mcp [--data-dir DIR] [--resources DIR]
 *
 * stdout carries protocol messages only: everything else is written to stderr.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createCore } from '../../core/app';
import { newSessionState, type ConnectedServer } from '../../core/mcp-server/service';
import { argValue, resolveDataDir } from '../../core/data-dir';
import type { CliHost } from '../cli-host';
import { watchDataFiles } from './data-file-watch';
import { askApprovalsInRunningHost } from './host-approvals';
import { LineStdioServerTransport } from './mcp-stdio-transport';

export const SERVER_OFF_EXIT = 3;

/** The app's resources folder: `--resources`, else the nearest `resources/bundles` above this file (source or bundle). */
export function findResourcesDir(argv: readonly string[], from = path.dirname(fileURLToPath(import.meta.url))): string {
  const given = argValue(argv, '--resources');
  if (given) return path.resolve(given);
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'resources', 'bundles'))) return path.join(dir, 'resources');
    if (path.dirname(dir) === dir) throw new Error(`cannot find Toolsmith's resources folder above ${from}: pass --resources DIR`);
  }
}

/** `host`: what the app's binary lends `toolsmith mcp` when it runs it (cli-mode.ts). */
export async function runMcpStdio(argv: readonly string[], env: NodeJS.ProcessEnv, host: CliHost = {}): Promise<void> {
  // Nothing but protocol messages on stdout: a stray log line would break the client.
  for (const level of ['log', 'info', 'debug'] as const) console[level] = (...args: unknown[]) => console.error(...args);

  const dataDir = resolveDataDir({ argv, env, platform: process.platform, homedir: os.homedir(), exists: existsSync });
  // The app may be running on this data folder: its running calls and tasks are live, not interrupted.
  const core = await createCore({
    dataDir,
    resourcesDir: findResourcesDir(argv),
    host: 'headless',
    recoverInterrupted: false,
    ...(host.secretCipher ? { secretCipher: host.secretCipher } : {}),
  });
  if (!core.settings.get().mcpServer.enabled) {
    console.error(`Toolsmith: the MCP server is switched off for the data folder ${core.dataDir}. Switch it on and pick the bundles to serve in Settings → MCP server, then restart this server.`);
    await core.close();
    process.exit(SERVER_OFF_EXIT);
  }

  // The settings are followed by the core (settings.changed, which the served registry listens to).
  const approvalsWatch = watchDataFiles(core.dataDir, {
    'approvals.json': () => core.mcpServer.reloadApprovals(),
  });
  // This process has no window: approvals are asked in the app's, when one runs on this data folder.
  const stopAsking = askApprovalsInRunningHost(core);
  // Either revision: the client's first message pins the connection to its era (serveStdio asks
  // the factory once for a server/discover probe too). All of them serve this connection's one session.
  const state = newSessionState();
  const made: ConnectedServer[] = [];
  const transport = new LineStdioServerTransport();
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    approvalsWatch?.close();
    stopAsking();
    await handle.close().catch(() => undefined);
    for (const conn of made) await conn.close();
    await core.mcpServer.endSession(state);
    await core.close();
    process.exit(code);
  };
  const handle = serveStdio(
    ({ era }) => {
      const conn = core.mcpServer.createServer(state, era);
      made.push(conn);
      return conn.server;
    },
    { transport, onerror: (e) => console.error(`Toolsmith MCP server: ${e.message}`) },
  );
  // The client closed our stdin (it quit, or stopped the server): end cleanly.
  process.stdin.on('end', () => void stop(0));
  process.stdin.on('close', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  console.error(`Toolsmith MCP server on stdio: data folder ${core.dataDir}, ${core.mcpServer.served.list().tools.length} tools served`);
}
