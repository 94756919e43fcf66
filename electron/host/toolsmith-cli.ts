/**
 * The `toolsmith` command. This version understands one command:
 *   toolsmith mcp [--data-dir DIR]   serve the registry over MCP on stdio (see docs/mcp.md, "Serving the registry out")
 */
import { runMcpStdio } from './mcp-stdio';

export const USAGE = [
  'Usage: toolsmith mcp [--data-dir DIR]',
  '',
  '  mcp    Serve the bundles chosen in Settings → MCP server to an MCP client over stdio.',
  '         --data-dir DIR   the data folder (default: TOOLSMITH_DATA_DIR, then the app’s own)',
  '',
  'Other commands come in a later version.',
].join('\n');

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const [command, ...rest] = argv;
  if (command === 'mcp') {
    await runMcpStdio(rest, env);
    return undefined;
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  process.stderr.write(`toolsmith: '${command}' is not a command of this version.\n\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (e: unknown) => {
    console.error(`Toolsmith could not start: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
