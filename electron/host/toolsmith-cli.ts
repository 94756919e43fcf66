/**
 * The `toolsmith` command (bin/toolsmith.mjs runs this, bundled to dist-electron/toolsmith.mjs):
 * the registry, calls, saved test cases, the headless host and the MCP server on the command
 * line, over the same core and data folder as the app. The commands are in cli/ (docs/cli.md).
 */
import { runCli } from './cli/program';

// Results go to stdout; the core's own log lines must not mix with them (`toolsmith mcp` speaks the protocol there).
const isServe = process.argv[2] === 'serve';
if (!isServe) for (const level of ['log', 'info', 'debug'] as const) console[level] = (...args: unknown[]) => console.error(...args);

/** Ends the process once stdout and stderr have written everything (a pipe may still hold a large JSON answer). */
function exit(code: number): void {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

runCli(process.argv.slice(2)).then(
  (code) => {
    // -1: a server (serve, mcp) keeps running and ends itself.
    if (code >= 0) exit(code);
  },
  (e: unknown) => {
    console.error(`toolsmith: ${e instanceof Error ? e.message : String(e)}`);
    exit(1);
  },
);
