/** What electron-builder needs from the project's files before it can make every installer. */
import Ajv from 'ajv';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import picomatch from 'picomatch';
import YAML from 'yaml';
// @ts-expect-error -- a plain .mjs build script without types
import { WORKERS, workerBundles } from './worker-bundles.mjs';
// @ts-expect-error -- a plain .mjs build script without types
import { FUSES, afterPack, fuseConfig, packedExecutable } from './after-pack.mjs';
// @ts-expect-error -- a plain .mjs build script without types
import { ICO_SIZES, PNG_SIZES, renderIcon } from './make-icons.mjs';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { author?: { name?: string; email?: string }; main: string };
const builderText = fs.readFileSync(path.join(root, 'electron-builder.yml'), 'utf8');
interface FileSet {
  from: string;
  to: string;
}
interface Builder {
  productName?: string;
  linux?: { target?: string[]; maintainer?: string; icon?: string; executableName?: string; extraResources?: FileSet[] };
  deb?: { afterInstall?: string; afterRemove?: string };
  mac?: { target?: string[]; icon?: string; extraResources?: FileSet[] };
  win?: { target?: string[]; icon?: string; extraResources?: FileSet[] };
  nsis?: { installerIcon?: string };
  extraMetadata?: { main?: string };
  files?: string[];
  asarUnpack?: string[];
  npmRebuild?: boolean;
  afterPack?: string;
}
const builder = YAML.parse(builderText) as Builder;

/** electron-builder's configuration schema, as it ships it (`typeof` is its own keyword). */
function builderSchema() {
  const schema = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8')) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addKeyword({ keyword: 'typeof', validate: (type: string, data: unknown) => typeof data === type });
  return ajv.compile(schema);
}

describe('packaging', () => {
  it('has a configuration electron-builder’s own schema accepts (and the schema refuses a misspelt key)', () => {
    const validate = builderSchema();
    expect(validate(builder), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(validate({ ...builder, linux: { ...builder.linux, targte: ['deb'] } })).toBe(false);
    expect(validate({ ...builder, afterPack: 42 })).toBe(false);
  });

  it('makes an AppImage and a .deb, a .dmg and an NSIS installer', () => {
    expect(builder.linux?.target).toEqual(['AppImage', 'deb']);
    expect(builder.mac?.target).toEqual(['dmg']);
    expect(builder.win?.target).toEqual(['nsis']);
  });

  it('gives the .deb a maintainer with an email, the same as package.json’s author', () => {
    expect(builder.linux?.target).toContain('deb');
    expect(pkg.author?.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    expect(builder.linux?.maintainer).toBe(`${pkg.author!.name} <${pkg.author!.email}>`);
  });

  it('packages the built main process, and never the development copy of the native module', () => {
    expect(builder.extraMetadata?.main).toBe(pkg.main);
    expect(builder.files).toContain('dist-electron/**');
    expect(builder.files?.some((f) => f.includes('.electron-app'))).toBe(false);
  });

  it('rebuilds better-sqlite3 for Electron’s ABI and keeps its binary out of app.asar', () => {
    expect(builder.npmRebuild).toBe(true);
    const unpacked = picomatch(builder.asarUnpack ?? []);
    expect(unpacked('node_modules/better-sqlite3/build/Release/better_sqlite3.node')).toBe(true);
    expect(unpacked('node_modules/better-sqlite3/lib/index.js')).toBe(true);
  });

  it('packages the worker threads beside the main process, unpacked from app.asar so they start from plain files', () => {
    const packaged = picomatch(builder.files!.filter((f) => !f.startsWith('!')));
    const unpacked = picomatch(builder.asarUnpack ?? []);
    for (const name of Object.keys(WORKERS as Record<string, string>)) {
      const file = `${path.posix.dirname(pkg.main)}/${name}.cjs`;
      expect(packaged(file), file).toBe(true);
      expect(unpacked(file), file).toBe(true);
    }
  });

  it('unpacks the script tools’ engine (QuickJS’s .wasm), and the sandbox worker needs no package at run time', async () => {
    const unpacked = picomatch(builder.asarUnpack ?? []);
    expect(unpacked('node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm')).toBe(true);
    // The worker starts from app.asar.unpacked, where there is no node_modules: it bundles what it uses.
    const { build } = await import('esbuild');
    const out = await build({ ...(workerBundles(path.join(os.tmpdir(), 'toolsmith-packaging')) as Record<string, object>)['script-worker'], write: false, metafile: true });
    const code = out.outputFiles!.find((f) => f.path.endsWith('.cjs'))!.text;
    const required = [...code.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(required.filter((r) => !r.startsWith('node:') && !NODE_BUILTINS.has(r))).toEqual([]);
  });
});

const NODE_BUILTINS = new Set(['fs', 'path', 'url', 'worker_threads', 'crypto', 'module', 'os', 'util']);

/** Whether electron-builder's `files` patterns put a file of the project into app.asar (the last matching pattern decides). */
function packagedInAsar(file: string): boolean {
  let packed = false;
  for (const pattern of builder.files ?? []) {
    const negated = pattern.startsWith('!');
    if (picomatch(negated ? pattern.slice(1) : pattern)(file)) packed = !negated;
  }
  return packed;
}

describe('the toolsmith command of an installed app (docs/cli.md)', () => {
  const launcher = (platform: 'linux' | 'mac' | 'win') => builder[platform]?.extraResources ?? [];

  it('ships a launcher in resources/bin on each platform: a shell script on Linux and macOS, a batch file on Windows', () => {
    expect(launcher('linux')).toContainEqual({ from: 'resources/cli/toolsmith', to: 'bin/toolsmith' });
    expect(launcher('mac')).toContainEqual({ from: 'resources/cli/toolsmith', to: 'bin/toolsmith' });
    expect(launcher('win')).toContainEqual({ from: 'resources/cli/toolsmith.cmd', to: 'bin/toolsmith.cmd' });
    for (const set of [...launcher('linux'), ...launcher('mac'), ...launcher('win')]) {
      expect(fs.existsSync(path.join(root, set.from)), set.from).toBe(true);
    }
  });

  it('keeps the launchers and the .deb’s scripts out of app.asar, and the app’s resources in it', () => {
    for (const f of ['resources/cli/toolsmith', 'resources/cli/toolsmith.cmd', 'resources/cli/deb-after-install.tpl']) {
      expect(packagedInAsar(f), f).toBe(false);
    }
    expect(packagedInAsar('resources/bundles/text/bundle.json')).toBe(true);
    expect(packagedInAsar('resources/icons/512x512.png')).toBe(true);
    expect(packagedInAsar('resources/icons/icon.ico')).toBe(false);
  });

  it.skipIf(process.platform === 'win32')('ships the shell launcher executable (electron-builder keeps a file’s mode)', () => {
    expect(fs.statSync(path.join(root, 'resources/cli/toolsmith')).mode & 0o111).toBe(0o111);
  });

  it('starts the binary electron-builder names: the launchers and the configuration agree', () => {
    expect(builder.linux?.executableName).toBe('toolsmith');
    expect(builder.productName).toBe('Toolsmith');
    const sh = fs.readFileSync(path.join(root, 'resources/cli/toolsmith'), 'utf8');
    expect(sh).toContain(`"$bin_dir/../../${builder.linux!.executableName!}"`);
    expect(sh).toContain(`"$bin_dir/../../MacOS/${builder.productName!}"`);
    const cmd = fs.readFileSync(path.join(root, 'resources/cli/toolsmith.cmd'), 'utf8');
    expect(cmd).toContain(`set "APP=%~dp0..\\..\\${builder.productName!}.exe"`);
  });

  it('links /usr/bin/toolsmith to the launcher in the .deb, through scripts electron-builder runs after install and removal', () => {
    expect(builder.deb?.afterInstall).toBe('resources/cli/deb-after-install.tpl');
    expect(builder.deb?.afterRemove).toBe('resources/cli/deb-after-remove.tpl');
    const installed = `/opt/\${sanitizedProductName}/resources/${launcher('linux')[0]!.to}`;
    expect(fs.readFileSync(path.join(root, builder.deb!.afterInstall!), 'utf8')).toContain(`LAUNCHER='${installed}'`);
    expect(fs.readFileSync(path.join(root, builder.deb!.afterRemove!), 'utf8')).toContain(`update-alternatives --remove '\${executable}' '${installed}'`);
  });
});

/** Width and height from a PNG's IHDR, and its pixels (8-bit RGBA, filter 0 rows). */
function readPng(bytes: Buffer): { width: number; height: number; rgba?: Buffer } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let at = 8; at < bytes.length; ) {
    const len = bytes.readUInt32BE(at);
    if (bytes.subarray(at + 4, at + 8).toString('latin1') === 'IDAT') idat.push(bytes.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    if (raw[y * (width * 4 + 1)] !== 0) return { width, height };
    raw.copy(rgba, y * width * 4, y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1));
  }
  return { width, height, rgba };
}

describe('icons', () => {
  const icons = path.join(root, 'resources', 'icons');

  it('give Linux a PNG per size, 16 to 1024, each the size its name says', () => {
    expect(builder.linux?.icon).toBe('resources/icons');
    for (const size of [16, 32, 48, 64, 128, 256, 512, 1024]) {
      const png = readPng(fs.readFileSync(path.join(icons, `${size}x${size}.png`)));
      expect([png.width, png.height], `${size}x${size}.png`).toEqual([size, size]);
    }
  });

  it('give Windows an .ico with a 256 entry, for the app and the installer', () => {
    expect(builder.win?.icon).toBe('resources/icons/icon.ico');
    expect(builder.nsis?.installerIcon).toBe('resources/icons/icon.ico');
    const ico = fs.readFileSync(path.join(root, builder.win!.icon!));
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
    const sizes: number[] = [];
    for (let n = 0; n < ico.readUInt16LE(4); n++) {
      const e = 6 + n * 16;
      const png = readPng(ico.subarray(ico.readUInt32LE(e + 12), ico.readUInt32LE(e + 12) + ico.readUInt32LE(e + 8)));
      sizes.push(png.width);
      expect(ico[e] || 256).toBe(png.width);
    }
    expect(sizes).toEqual(ICO_SIZES);
    expect(sizes).toContain(256);
  });

  it('give macOS an .icns up to 1024 (512@2x)', () => {
    expect(builder.mac?.icon).toBe('resources/icons/icon.icns');
    const icns = fs.readFileSync(path.join(root, builder.mac!.icon!));
    expect(icns.subarray(0, 4).toString('latin1')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const chunks = new Map<string, number>();
    for (let at = 8; at < icns.length; at += icns.readUInt32BE(at + 4)) {
      chunks.set(icns.subarray(at, at + 4).toString('latin1'), readPng(icns.subarray(at + 8, at + icns.readUInt32BE(at + 4))).width);
    }
    expect(chunks.get('ic10')).toBe(1024);
    expect(chunks.get('ic09')).toBe(512);
    expect(chunks.get('icp4')).toBe(16);
  });

  it('are what scripts/make-icons.mjs draws (run it after changing the drawing)', () => {
    for (const size of PNG_SIZES as number[]) {
      const png = readPng(fs.readFileSync(path.join(icons, `${size}x${size}.png`)));
      expect(png.rgba?.equals(renderIcon(size) as Buffer), `${size}x${size}.png`).toBe(true);
    }
  });
});

describe('fuses (scripts/after-pack.mjs)', () => {
  const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';

  it('is the afterPack hook electron-builder runs', async () => {
    expect(builder.afterPack).toBe('./scripts/after-pack.mjs');
    const hook = (await import(path.join(root, builder.afterPack!))) as { default?: unknown; afterPack?: unknown };
    expect(typeof hook.afterPack).toBe('function');
    expect(hook.default).toBe(hook.afterPack);
  });

  it('turns off running as Node, NODE_OPTIONS and --inspect; turns on cookie encryption, asar only and asar integrity', () => {
    expect(FUSES).toEqual({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      EnableCookieEncryption: true,
      OnlyLoadAppFromAsar: true,
      EnableEmbeddedAsarIntegrityValidation: true,
      GrantFileProtocolExtraPrivileges: false,
    });
  });

  it('finds the packed executable where electron-builder puts it on each platform', () => {
    const packager = { executableName: 'toolsmith', appInfo: { productFilename: 'Toolsmith' } };
    expect(packedExecutable({ electronPlatformName: 'linux', appOutDir: '/out', packager })).toBe(path.join('/out', 'toolsmith'));
    expect(packedExecutable({ electronPlatformName: 'win32', appOutDir: '/out', packager })).toBe(path.join('/out', 'Toolsmith.exe'));
    expect(packedExecutable({ electronPlatformName: 'darwin', appOutDir: '/out', packager })).toBe(path.join('/out', 'Toolsmith.app'));
    expect(() => packedExecutable({ electronPlatformName: 'beos', appOutDir: '/out', packager })).toThrow(/unknown platform/);
  });

  it('refuses a fuse name @electron/fuses does not know', async () => {
    const fuses = await import('@electron/fuses');
    expect(() => fuseConfig({ RunAsNod: false }, fuses, 'linux')).toThrow(/knows no fuse RunAsNod/);
  });

  it('flips the fuses in a binary that carries Electron’s fuse wire', async () => {
    // A stand-in for the packed binary: Electron's sentinel, wire version 1, nine fuses at their
    // shipped defaults ('1' on, '0' off), in the middle of other bytes.
    const defaults = '101100011';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-fuses-'));
    try {
      const file = path.join(dir, 'toolsmith');
      fs.writeFileSync(file, Buffer.concat([Buffer.alloc(4096, 7), Buffer.from(FUSE_SENTINEL), Buffer.from([1, defaults.length]), Buffer.from(defaults), Buffer.alloc(4096, 7)]));
      await afterPack({ electronPlatformName: 'linux', appOutDir: dir, packager: { executableName: 'toolsmith', appInfo: { productFilename: 'Toolsmith' } } });
      const { getCurrentFuseWire, FuseV1Options, FuseState } = await import('@electron/fuses');
      const wire = (await getCurrentFuseWire(file)) as unknown as Record<number, number>;
      const state = (name: keyof typeof FuseV1Options) => wire[FuseV1Options[name] as unknown as number];
      for (const [name, on] of Object.entries(FUSES as Record<string, boolean>)) {
        expect(state(name as keyof typeof FuseV1Options), name).toBe(on ? FuseState.ENABLE : FuseState.DISABLE);
      }
      // Fuses it does not set keep Electron's default.
      expect(state('WasmTrapHandlers')).toBe(FuseState.ENABLE);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
