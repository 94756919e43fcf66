/**
 * Starting a worker thread whose code is a TypeScript module beside the module that starts it
 * (./safe-regex-worker.ts, ../routing/buffer-search-worker.ts). The caller passes its own
 * `import.meta.url` and the worker's name:
 *
 * - Bundled (the app's dist-electron/, the benchmarks' .bench-dist/): the caller's URL is the
 *   bundle's, and the worker is the CommonJS file `<name>.cjs` the build emits beside it
 *   (scripts/worker-bundles.mjs). In a packaged app it is taken from app.asar.unpacked when
 *   there (electron-builder.yml unpacks the workers), where Node's loader reads it as a plain file.
 * - From sources (vitest, tsx: the caller's URL ends in .ts): `<name>.ts` beside the caller is
 *   bundled once per process with esbuild (a development dependency, never loaded by the
 *   bundled app) into one CommonJS script run with `eval: true`. No TypeScript loader runs in
 *   the worker, so it starts as fast as the bundled one.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

const compiled = new Map<string, string>();

/** Whether a module URL is a TypeScript source (run by vitest or tsx) rather than a bundle. */
export function isSourceUrl(callerUrl: string): boolean {
  return /\.[cm]?tsx?$/.test(new URL(callerUrl).pathname);
}

/** The bundled worker `<name>.cjs` beside the bundle at callerUrl (in app.asar.unpacked when it is there). */
export function bundledWorkerPath(callerUrl: string, name: string): string {
  const file = fileURLToPath(new URL(`./${name}.cjs`, callerUrl));
  const unpacked = file.replace(/\.asar([\\/])/, '.asar.unpacked$1');
  return unpacked !== file && fs.existsSync(unpacked) ? unpacked : file;
}

/** The worker module `<name>.ts` beside callerUrl, bundled into one CommonJS script (cached per process). */
export function compileWorkerSource(callerUrl: string, name: string): string {
  const file = fileURLToPath(new URL(`./${name}.ts`, callerUrl));
  let code = compiled.get(file);
  if (code === undefined) {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
    const out = esbuild.buildSync({
      entryPoints: [file],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      write: false,
      logLevel: 'silent',
    });
    code = out.outputFiles[0]!.text;
    compiled.set(file, code);
  }
  return code;
}

/** Starts the worker `name` that lives beside the caller (see the file comment). */
export function startWorker(callerUrl: string, name: string, resourceLimits: ResourceLimits): Worker {
  if (isSourceUrl(callerUrl)) return new Worker(compileWorkerSource(callerUrl, name), { eval: true, resourceLimits });
  return new Worker(bundledWorkerPath(callerUrl, name), { resourceLimits });
}
