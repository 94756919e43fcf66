/** What electron-builder needs from the project's files before it can make every installer. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import picomatch from 'picomatch';
import YAML from 'yaml';
// @ts-expect-error -- a plain .mjs build script without types
import { WORKERS } from './worker-bundles.mjs';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { author?: { name?: string; email?: string }; main: string };
const builder = YAML.parse(fs.readFileSync(path.join(root, 'electron-builder.yml'), 'utf8')) as {
  linux?: { target?: string[]; maintainer?: string };
  extraMetadata?: { main?: string };
  files?: string[];
  asarUnpack?: string[];
};

describe('packaging', () => {
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

  it('packages the worker threads beside the main process, unpacked from app.asar so they start from plain files', () => {
    const packaged = picomatch(builder.files!.filter((f) => !f.startsWith('!')));
    const unpacked = picomatch(builder.asarUnpack ?? []);
    for (const name of Object.keys(WORKERS as Record<string, string>)) {
      const file = `${path.posix.dirname(pkg.main)}/${name}.cjs`;
      expect(packaged(file), file).toBe(true);
      expect(unpacked(file), file).toBe(true);
    }
  });
});
