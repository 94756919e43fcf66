/**
 * The `toolsmith` command as a whole process: results on stdout, everything else on stderr, and
 * the process ended with the command's exit code once both streams have written everything.
 * Run by toolsmith-cli.ts under Node and by main.ts when the app's binary is started with --cli.
 */
import type { CliHost } from '../cli-host';
import { runCli } from './program';

export interface CliProcess {
  /** Ends the process with this code (process.exit under Node, app.exit in the app). */
  exit(code: number): void;
  host?: CliHost;
}

export function runCliProcess(argv: readonly string[], proc: CliProcess): Promise<void> {
  // Results go to stdout; the core's own log lines must not mix with them (`toolsmith mcp` speaks the protocol there).
  if (argv[0] !== 'serve') for (const level of ['log', 'info', 'debug'] as const) console[level] = (...args: unknown[]) => console.error(...args);

  /** Ends the process once stdout and stderr have written everything (a pipe may still hold a large JSON answer). */
  const exit = (code: number) => {
    let pending = 2;
    const done = () => {
      if (--pending === 0) proc.exit(code);
    };
    process.stdout.write('', done);
    process.stderr.write('', done);
  };

  return runCli(argv, proc.host).then(
    (code) => {
      // -1: a server (serve, mcp) keeps running and ends itself.
      if (code >= 0) exit(code);
    },
    (e: unknown) => {
      console.error(`toolsmith: ${e instanceof Error ? e.message : String(e)}`);
      exit(1);
    },
  );
}
