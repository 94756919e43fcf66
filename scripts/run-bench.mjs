// `npm run bench`: bundles the benchmarks with esbuild (as the app itself is bundled, so the
// figures are those of shipped code, not of an on-the-fly TypeScript loader), with the core's
// worker threads beside the bundle as in the app, then runs them.
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { workerBundles } from './worker-bundles.mjs';

await build({
  entryPoints: ['bench/run.ts'],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  outfile: '.bench-dist/run.mjs',
  logLevel: 'warning',
});
await Promise.all(Object.values(workerBundles('.bench-dist')).map((options) => build(options)));
const r = spawnSync(process.execPath, ['--expose-gc', '.bench-dist/run.mjs', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
