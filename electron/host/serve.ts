/**
 * `npm run serve` (`node dist-electron/serve.mjs`): the headless host (serve-host.ts).
 * Usage: serve [--port N] [--data-dir DIR] [--static DIR] [--resources DIR]
 */
import { serve } from './serve-host';

serve(process.argv.slice(2), process.env).catch((e: unknown) => {
  console.error(`Toolsmith could not start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
