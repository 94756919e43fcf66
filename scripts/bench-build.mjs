// Builds the benchmarks into one folder: bench/run.ts bundled with esbuild (as the app itself is
// bundled, so the figures are those of shipped code, not of an on-the-fly TypeScript loader),
// the core's worker threads beside it as in the app, and the data files the bundled code reads
// beside itself (once bundled, import.meta.dirname is that folder).
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { workerBundles } from './worker-bundles.mjs';

/** Files read relative to their module, copied beside the bundle under the same name. */
export const BENCH_DATA_FILES = ['electron/core/tool-search/testing/real-registry.json.gz'];

export async function buildBench(outDir = '.bench-dist') {
  await build({
    entryPoints: ['bench/run.ts'],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    outfile: path.join(outDir, 'run.mjs'),
    logLevel: 'warning',
  });
  await Promise.all(Object.values(workerBundles(outDir)).map((options) => build(options)));
  mkdirSync(outDir, { recursive: true });
  for (const file of BENCH_DATA_FILES) copyFileSync(file, path.join(outDir, path.basename(file)));
  return path.join(outDir, 'run.mjs');
}
