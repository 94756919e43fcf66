/**
 * The engine's files: the .wasm the core compiles and the JavaScript the worker bundles are one
 * release of quickjs-emscripten's (the worker takes its core and release build directly, so they
 * must be the ones the declared package depends on, at its version).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUICKJS_WASM_PACKAGE, quickjsWasm, quickjsWasmPath } from './wasm';

const here = createRequire(import.meta.url);
/** The version of the package `name` as `from` resolves it (its package.json, found above its entry). */
function version(from: NodeJS.Require, name: string): string {
  for (let dir = path.dirname(from.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (pkg.name === name) return pkg.version;
  }
  throw new Error(`no package.json of ${name}`);
}

describe("the script tools' engine", () => {
  it('is the release build that quickjs-emscripten itself depends on, at its version', () => {
    const declared = version(here, 'quickjs-emscripten');
    const fromPackage = createRequire(here.resolve('quickjs-emscripten'));
    for (const name of ['quickjs-emscripten-core', QUICKJS_WASM_PACKAGE]) {
      expect(version(here, name), name).toBe(declared);
      // What the worker bundles (resolved from here) is what quickjs-emscripten uses.
      expect(here.resolve(name)).toBe(fromPackage.resolve(name));
    }
  });

  it('finds the .wasm as a plain file and compiles it once', async () => {
    const file = quickjsWasmPath();
    expect(path.basename(file)).toBe('emscripten-module.wasm');
    expect(fs.statSync(file).size).toBeGreaterThan(100_000);
    const [a, b] = await Promise.all([quickjsWasm(), quickjsWasm()]);
    expect(a).toBe(b);
  });
});
