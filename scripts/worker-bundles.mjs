// The worker-thread entries of the core, each bundled with esbuild into `<name>.cjs` beside the
// bundle that starts it (electron/core/lib/worker-entry.ts looks for it there): for
// build-electron.mjs (dist-electron/), run-bench.mjs (.bench-dist/) and the tests.
import { common } from './electron-bundles.mjs';

/** Each worker's name (its file is `<name>.cjs`: CommonJS, which a worker starts faster than an ES module) and its source module. */
export const WORKERS = {
  'buffer-search-worker': 'electron/core/routing/buffer-search-worker.ts',
  'safe-regex-worker': 'electron/core/lib/safe-regex-worker.ts',
  'sync-regex-worker': 'electron/core/lib/sync-regex-worker.ts',
};

/** @param {string} outDir */
export function workerBundles(outDir) {
  return Object.fromEntries(
    Object.entries(WORKERS).map(([name, entry]) => [
      name,
      { ...common, entryPoints: [entry], outfile: `${outDir}/${name}.cjs`, format: 'cjs', packages: 'external' },
    ]),
  );
}
