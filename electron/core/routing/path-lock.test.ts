import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { KeyedMutex, lockKey } from './path-lock';

const tempDir = useTempDirs();

describe('KeyedMutex', () => {
  it('runs holders of one key one at a time, other keys freely, and releases after a failure', async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const step = (name: string, fail = false) => async () => {
      log.push(`${name}:start`);
      await new Promise((r) => setTimeout(r, 5));
      log.push(`${name}:end`);
      if (fail) throw new Error(name);
    };
    const a = m.run('k', step('a', true));
    const b = m.run('k', step('b'));
    const c = m.run('other', step('c'));
    await expect(a).rejects.toThrow('a');
    await Promise.all([b, c]);
    expect(log.indexOf('a:end')).toBeLessThan(log.indexOf('b:start'));
    expect(log.indexOf('c:start')).toBeLessThan(log.indexOf('a:end'));
    expect(m.size).toBe(0);
  });
});

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
