// The worker-thread entries of the core, each bundled with esbuild into `<name>.cjs` beside the
// bundle that starts it (electron/core/lib/worker-entry.ts looks for it there): for
// build-electron.mjs (dist-electron/), run-bench.mjs (.bench-dist/) and the tests.
import { common } from './electron-bundles.mjs';

/** Each worker's name (its file is `<name>.cjs`: CommonJS, which a worker starts faster than an ES module) and its source module. */
export const WORKERS = {
  'buffer-search-worker': 'electron/core/routing/buffer-search-worker.ts',
  'safe-regex-worker': 'electron/core/lib/safe-regex-worker.ts',
  'sync-regex-worker': 'electron/core/lib/sync-regex-worker.ts',
  'script-worker': 'electron/core/script-tools/script-worker.ts',
};

/**
 * Workers whose packages are bundled in rather than required at run time: a packaged app starts
 * its workers from app.asar.unpacked, where no node_modules is. The script tools' sandbox needs
 * quickjs-emscripten's JavaScript (its WebAssembly comes from the core: electron/core/script-tools/wasm.ts).
 */
const SELF_CONTAINED = new Set(['script-worker']);

/** @param {string} outDir */
export function workerBundles(outDir) {
  return Object.fromEntries(
    Object.entries(WORKERS).map(([name, entry]) => [
      name,
      { ...common, entryPoints: [entry], outfile: `${outDir}/${name}.cjs`, format: 'cjs', ...(SELF_CONTAINED.has(name) ? {} : { packages: 'external' }) },
    ]),
  );
}
