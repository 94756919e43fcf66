/**
 * `npm run serve` (`node dist-electron/serve.mjs`): the headless host (serve-host.ts).
 * Usage: serve [--port N] [--data-dir DIR] [--static DIR] [--resources DIR] [--help]
 * Exit codes: 0 stopped (or --help), 1 could not start, 2 bad usage (nothing was opened).
 */
import { SERVE_USAGE, ServeUsageError, serve } from './serve-host';

serve(process.argv.slice(2), process.env).catch((e: unknown) => {
  if (e instanceof ServeUsageError) {
    console.error(`serve: ${e.message}\n\n${SERVE_USAGE}`);
    // Nothing is open yet: the process ends once stderr is written.
    process.exitCode = 2;
    return;
  }
  console.error(`Toolsmith could not start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
