import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { lockKey } from './path-lock';

const tempDir = useTempDirs();

describe('lockKey', () => {
  it('is the real path, lower-cased only where the file system ignores case', async () => {
    const dir = await fs.realpath(await tempDir());
    await fs.writeFile(path.join(dir, 'Real.txt'), 'x');
    await fs.symlink(path.join(dir, 'Real.txt'), path.join(dir, 'link.txt'));
    expect(await lockKey(path.join(dir, 'link.txt'), 'linux')).toBe(path.join(dir, 'Real.txt'));
    expect(await lockKey(path.join(dir, 'Missing.txt'), 'linux')).toBe(path.join(dir, 'Missing.txt'));
    expect(await lockKey(path.join(dir, 'Missing.txt'), 'darwin')).toBe(path.join(dir, 'Missing.txt').toLowerCase());
  });
});
