import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../core/testing/temp-dir';
import { headlessOpenPath, systemOpener } from './open-path';

describe('the headless host opens files with the system opener', () => {
  const tempDir = useTempDirs();

  it('finds xdg-open on the PATH on Linux, and none when the PATH has none', async () => {
    const bin = await tempDir();
    expect(systemOpener('linux', bin)).toBeUndefined();
    expect(headlessOpenPath('linux', bin)).toBeUndefined();
    const opener = path.join(bin, 'xdg-open');
    fs.writeFileSync(opener, '#!/bin/sh\necho "$1" > "$(dirname "$0")/opened"\n', { mode: 0o755 });
    expect(systemOpener('linux', `/nonexistent${path.delimiter}${bin}`)).toBe(opener);
    expect(systemOpener('darwin', bin)).toBeUndefined();
  });

  it('runs the opener with the file path', async () => {
    const bin = await tempDir();
    fs.writeFileSync(path.join(bin, 'xdg-open'), '#!/bin/sh\necho "$1" > "$(dirname "$0")/opened"\n', { mode: 0o755 });
    const open = headlessOpenPath('linux', bin)!;
    await open('/some/file.txt');
    const marker = path.join(bin, 'opened');
    for (let i = 0; i < 100 && !fs.existsSync(marker); i++) await new Promise((r) => setTimeout(r, 20));
    expect(fs.readFileSync(marker, 'utf8').trim()).toBe('/some/file.txt');
  });
});
