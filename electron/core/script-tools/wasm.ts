/**
 * The QuickJS engine's WebAssembly file (quickjs-emscripten's release build), compiled once per
 * process and handed to each sandbox worker, which then reads no file of its own.
 *
 * It is found next to the package that ships it, from quickjs-emscripten's own folder. In a
 * packaged app that folder is inside app.asar; electron-builder.yml unpacks the file, and the
 * unpacked copy is read when it is there (the main process could read it from the archive too).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

/** The package that holds the engine quickjs-emscripten's RELEASE_SYNC variant runs. */
export const QUICKJS_WASM_PACKAGE = '@jitl/quickjs-wasmfile-release-sync';

export function quickjsWasmPath(): string {
  const fromHere = createRequire(import.meta.url);
  const fromPackage = createRequire(fromHere.resolve('quickjs-emscripten'));
  const file = fromPackage.resolve(`${QUICKJS_WASM_PACKAGE}/wasm`);
  const unpacked = file.replace(/\.asar([\\/])/, '.asar.unpacked$1');
  return unpacked !== file && fs.existsSync(unpacked) ? unpacked : file;
}

/** The global WebAssembly object: Node has it, the core's TypeScript lib (no DOM) types only its module type. */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }).WebAssembly;

let compiled: Promise<WebAssembly.Module> | undefined;

/** The compiled module, made on first use. */
export function quickjsWasm(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const bytes = await fs.promises.readFile(quickjsWasmPath());
    return wasmApi.compile(bytes);
  })();
  compiled.catch(() => (compiled = undefined));
  return compiled;
}
