// `npm run bench`: bundles the benchmarks with esbuild (as the app itself is bundled, so the
// figures are those of shipped code, not of an on-the-fly TypeScript loader), then runs them.
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';

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
const r = spawnSync(process.execPath, ['--expose-gc', '.bench-dist/run.mjs', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
