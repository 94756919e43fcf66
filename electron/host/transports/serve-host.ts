/**
 * The headless host: the core with the HTTP host on 127.0.0.1, for a browser, scripts and tests.
 * Started by `npm run serve` (serve.ts) and by `toolsmith serve`. Its command line (SERVE_USAGE)
 * is read strictly: a misspelt option must not start the host on the desktop app's own folder.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from '../../core/app';
import { resolveDataDir } from '../../core/data-dir';
import type { CliHost } from '../cli-host';
import { startHttpHost } from './http';
import { headlessOpenPath } from './open-path';
import { restRoutes } from './rest';

export const SERVE_USAGE = [
  'Usage: npm run serve -- [options]    (or: node dist-electron/serve.mjs [options])',
  '',
  'Starts Toolsmith headless on 127.0.0.1: the app in your browser, the REST API and /mcp.',
  '',
  'Options:',
  '  --port N          the port (default: TOOLSMITH_PORT, else any free one)',
  '  --frame-port N    the port MCP Apps\' pages are served from, 127.0.0.1 only (default: any free one)',
  '  --data-dir DIR    the data folder (default: TOOLSMITH_DATA_DIR, then the desktop app’s own)',
  '  --static DIR      the built UI to serve (default: dist/renderer)',
  '  --resources DIR   the app’s resources folder (the built-in bundles)',
  '  -h, --help        print this help',
  '',
  'Exit codes: 0 stopped, 1 could not start, 2 bad usage. Docs: docs/headless.md',
].join('\n');

/** A command line serve does not take: the message says what is wrong; SERVE_USAGE says what it takes. */
export class ServeUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServeUsageError';
  }
}

export interface ServeOptions {
  port?: number;
  framePort?: number;
  dataDir?: string;
  static?: string;
  resources?: string;
  help: boolean;
}

const VALUE_OPTIONS = { '--port': 'port', '--frame-port': 'framePort', '--data-dir': 'dataDir', '--static': 'static', '--resources': 'resources' } as const;
type ValueOption = keyof typeof VALUE_OPTIONS;
const isValueOption = (name: string): name is ValueOption => Object.hasOwn(VALUE_OPTIONS, name);

/** Edits (insert, delete, replace) from a to b. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

function suggestion(name: string): string {
  const near = [...Object.keys(VALUE_OPTIONS), '--help'].find((known) => distance(name, known) <= 2);
  return near ? ` (did you mean ${near}?)` : '';
}

/**
 * serve's command line: `--name VALUE` or `--name=VALUE` for each option at most once, and
 * `--help`. Anything else (an unknown option, an argument that is not an option's value, an
 * option without its value) is a ServeUsageError, before anything is opened.
 */
export function parseServeArgv(argv: readonly string[]): ServeOptions {
  const o: ServeOptions = { help: false };
  const seen = new Set<string>();
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k]!;
    if (arg === '--help' || arg === '-h') {
      o.help = true;
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!isValueOption(name)) {
      if (name.startsWith('-')) throw new ServeUsageError(`unknown option '${name}'${suggestion(name)}`);
      throw new ServeUsageError(`unexpected argument '${arg}': serve takes options only`);
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (argv[k + 1] !== undefined && !argv[k + 1]!.startsWith('-')) value = argv[++k];
    const placeholder = name === '--port' || name === '--frame-port' ? 'N' : 'DIR';
    if (!value) throw new ServeUsageError(`option '${name}' needs a value: ${name} ${placeholder} (or ${name}=${placeholder})`);
    if (seen.has(name)) throw new ServeUsageError(`option '${name}' is given twice`);
    seen.add(name);
    const key = VALUE_OPTIONS[name];
    if (key === 'port') o.port = parsePort(value, '--port');
    else if (key === 'framePort') o.framePort = parsePort(value, '--frame-port');
    else o[key] = value;
  }
  return o;
}

function parsePort(text: string, from: string): number {
  const port = Number(text);
  if (text.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ServeUsageError(`${from} must be a number from 0 to 65535: got '${text}'`);
  }
  return port;
}

/**
 * Starts the host and keeps it running until SIGINT or SIGTERM; with `--help`, prints SERVE_USAGE
 * and returns. A bad command line throws ServeUsageError before anything is opened.
 * `host`: what the app's binary lends `toolsmith serve` when it runs it (cli-mode.ts).
 */
export async function serve(argv: readonly string[], env: NodeJS.ProcessEnv, host: CliHost = {}): Promise<void> {
  const o = parseServeArgv(argv);
  if (o.help) {
    console.log(SERVE_USAGE);
    return;
  }
  const port = o.port ?? (env.TOOLSMITH_PORT ? parsePort(env.TOOLSMITH_PORT, 'TOOLSMITH_PORT') : 0);
  const dataDir = resolveDataDir({ argv: o.dataDir ? ['--data-dir', o.dataDir] : [], env, platform: process.platform, homedir: os.homedir(), exists: existsSync });
  const here = path.dirname(fileURLToPath(import.meta.url));
  const staticDir = path.resolve(o.static ?? path.join(here, '..', 'dist', 'renderer'));

  const resourcesDir = path.resolve(o.resources ?? path.join(here, '..', 'resources'));
  const core = await createCore({ dataDir, resourcesDir, host: 'headless', openPath: headlessOpenPath(), ...(host.secretCipher ? { secretCipher: host.secretCipher } : {}) });
  const http = await startHttpHost({ core, port, staticDir, routes: restRoutes(core), ...(o.framePort !== undefined ? { framePort: o.framePort } : {}) });
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
