// The esbuild bundles of the main process, the preload and the headless entry, for
// build-electron.mjs and for the tests that check what a bundle holds.
export const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' };

/** @param {string} outDir */
export function electronBundles(outDir = 'dist-electron') {
  return {
    main: { ...common, entryPoints: ['electron/main.ts'], outfile: `${outDir}/main.mjs`, format: 'esm', packages: 'external' },
    serve: { ...common, entryPoints: ['electron/host/transports/serve.ts'], outfile: `${outDir}/serve.mjs`, format: 'esm', packages: 'external' },
    // The `toolsmith` command (bin/toolsmith.mjs runs it): `toolsmith mcp` serves the registry on stdio.
    toolsmith: { ...common, entryPoints: ['electron/host/cli/toolsmith-cli.ts'], outfile: `${outDir}/toolsmith.mjs`, format: 'esm', packages: 'external' },
    // A sandboxed preload must be one CommonJS file that requires nothing but 'electron'.
    // It carries the contract's names only (shared/contract-names.ts), not its schemas.
    preload: { ...common, entryPoints: ['electron/preload.ts'], outfile: `${outDir}/preload.cjs`, format: 'cjs', external: ['electron'] },
  };
}

/** The preload's size budget: names and a bridge, no schema library. */
export const PRELOAD_MAX_BYTES = 20 * 1024;
