// Bundles the main process, the preload and the headless entry with esbuild.
import { build } from 'esbuild';
import { electronBundles } from './electron-bundles.mjs';

await Promise.all(Object.values(electronBundles()).map((options) => build(options)));
