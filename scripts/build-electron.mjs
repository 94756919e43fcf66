// Bundles the main process, the preload, the headless entry and the core's worker threads with esbuild.
import { build } from 'esbuild';
import { electronBundles } from './electron-bundles.mjs';
import { workerBundles } from './worker-bundles.mjs';

const outDir = 'dist-electron';
await Promise.all([...Object.values(electronBundles(outDir)), ...Object.values(workerBundles(outDir))].map((options) => build(options)));
