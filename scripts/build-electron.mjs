// Bundles the main process, the preload and the headless entry with esbuild.
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' };

await Promise.all([
  build({ ...common, entryPoints: ['electron/main.ts'], outfile: 'dist-electron/main.mjs', format: 'esm', packages: 'external' }),
  build({ ...common, entryPoints: ['electron/host/serve.ts'], outfile: 'dist-electron/serve.mjs', format: 'esm', packages: 'external' }),
  // A sandboxed preload must be one CommonJS file that requires nothing but 'electron'.
  build({ ...common, entryPoints: ['electron/preload.ts'], outfile: 'dist-electron/preload.cjs', format: 'cjs', external: ['electron'] }),
]);
