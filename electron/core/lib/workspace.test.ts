import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { appError } from '../builtin-functions/test-context';
import { openFileInWorkspace, resolveInWorkspace } from './workspace';

const tempDir = useTempDirs();

async function setup() {
  const base = await tempDir();
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  await fs.mkdir(path.join(ws, 'docs'), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(ws, 'docs', 'a.md'), 'a');
  await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
  return { base, ws: await fs.realpath(ws), outside: await fs.realpath(outside) };
}

describe('resolveInWorkspace', () => {
  it('resolves relative paths inside the workspace, normalised', async () => {
    const { ws } = await setup();
    expect(await resolveInWorkspace(ws, 'docs/a.md')).toEqual({ root: ws, abs: path.join(ws, 'docs', 'a.md'), rel: 'docs/a.md' });
    expect((await resolveInWorkspace(ws, './docs//x/../a.md')).rel).toBe('docs/a.md');
    expect((await resolveInWorkspace(ws, 'new/folder/file.txt')).abs).toBe(path.join(ws, 'new', 'folder', 'file.txt'));
    expect((await resolveInWorkspace(ws, '.', { allowRoot: true })).rel).toBe('.');
    expect(await appError(resolveInWorkspace(ws, '.'))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('workspace folder itself') });
  });

  it('refuses absolute paths in every spelling', async () => {
    const { ws } = await setup();
    for (const p of ['/etc/passwd', path.join(ws, 'docs', 'a.md'), 'C:\\Windows\\win.ini', 'c:/x', 'C:x', '\\\\server\\share\\x', '\\x']) {
      const e = await appError(resolveInWorkspace(ws, p));
      expect(e.code, p).toBe('FORBIDDEN');
      expect(e.message).toMatch(/is an absolute path: give a path relative to the workspace folder/);
      expect(e.details).toMatchObject({ rule: 'absolute-path' });
    }
  });

  it("refuses '..' that leaves the workspace", async () => {
    const { ws } = await setup();
    for (const p of ['..', '../outside/secret.txt', 'docs/../../outside', 'docs/../..', './docs/../../x']) {
      const e = await appError(resolveInWorkspace(ws, p));
      expect(e.code, p).toBe('FORBIDDEN');
      expect(e.message).toMatch(/leads outside the workspace folder \('\.\.' may not leave it\)/);
    }
    // '..' that stays inside is fine.
    expect((await resolveInWorkspace(ws, 'docs/../docs/a.md')).rel).toBe('docs/a.md');
  });

  it('refuses a symlink to /etc, a symlinked file and a symlinked folder that lead outside', async () => {
    const { ws, outside } = await setup();
    await fs.symlink('/etc', path.join(ws, 'etc'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'secret.txt'));
    await fs.symlink(outside, path.join(ws, 'docs', 'out'));
    for (const p of ['etc', 'etc/passwd', 'etc/does-not-exist', 'secret.txt', 'docs/out', 'docs/out/secret.txt', 'docs/out/new/deep/file.txt']) {
      const e = await appError(resolveInWorkspace(ws, p, { allowRoot: true }));
      expect(e.code, p).toBe('FORBIDDEN');
      expect(e.message).toMatch(/leads outside the workspace folder through a symbolic link/);
      expect(e.details).toMatchObject({ rule: 'symlink-outside' });
    }
  });

  it('refuses a dangling symlink whose target (which a write would create) is outside', async () => {
    const { ws, outside } = await setup();
    await fs.symlink(path.join(outside, 'created-by-write.txt'), path.join(ws, 'dangling'));
    await fs.symlink('../outside/nope/deeper', path.join(ws, 'relative-dangling'));
    expect(await appError(resolveInWorkspace(ws, 'dangling'))).toMatchObject({ code: 'FORBIDDEN' });
    expect(await appError(resolveInWorkspace(ws, 'relative-dangling'))).toMatchObject({ code: 'FORBIDDEN' });
    // A chain of links that ends outside.
    await fs.symlink('dangling', path.join(ws, 'hop'));
    expect(await appError(resolveInWorkspace(ws, 'hop'))).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('follows symlinks that stay inside, and returns the real path', async () => {
    const { ws } = await setup();
    await fs.symlink('docs', path.join(ws, 'docs-link'));
    await fs.symlink(path.join(ws, 'docs', 'a.md'), path.join(ws, 'a-link.md'));
    await fs.symlink('docs/not-yet.md', path.join(ws, 'pending.md'));
    expect(await resolveInWorkspace(ws, 'docs-link/a.md')).toMatchObject({ abs: path.join(ws, 'docs', 'a.md'), rel: 'docs-link/a.md' });
    expect((await resolveInWorkspace(ws, 'a-link.md')).abs).toBe(path.join(ws, 'docs', 'a.md'));
    expect((await resolveInWorkspace(ws, 'pending.md')).abs).toBe(path.join(ws, 'docs', 'not-yet.md'));
  });

  it('refuses a symlink loop clearly', async () => {
    const { ws } = await setup();
    await fs.symlink('loop-b', path.join(ws, 'loop-a'));
    await fs.symlink('loop-a', path.join(ws, 'loop-b'));
    expect(await appError(resolveInWorkspace(ws, 'loop-a/x'))).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/symbolic links/) });
  });

  it('works when the workspace folder itself is reached through a symlink', async () => {
    const { base, ws } = await setup();
    const link = path.join(base, 'ws-link');
    await fs.symlink(ws, link);
    expect(await resolveInWorkspace(link, 'docs/a.md')).toMatchObject({ root: ws, abs: path.join(ws, 'docs', 'a.md') });
  });

  it('refuses odd values and a missing workspace with clear errors', async () => {
    const { base, ws } = await setup();
    for (const p of [undefined, null, 42, {}, '', 'a\0b', 'x'.repeat(5000)]) {
      expect((await appError(resolveInWorkspace(ws, p))).code).toBe('VALIDATION_FAILED');
    }
    expect(await appError(resolveInWorkspace(path.join(base, 'missing'), 'a'))).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/does not exist/) });
    expect(await appError(resolveInWorkspace('', 'a'))).toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe('openFileInWorkspace', () => {
  it('opens the file the path resolved to, and refuses a folder with the caller\'s message', async () => {
    const { ws } = await setup();
    const { fh, stat } = await openFileInWorkspace(await resolveInWorkspace(ws, 'docs/a.md'));
    try {
      expect((await fh.readFile()).toString()).toBe('a');
      expect(stat.size).toBe(1);
    } finally {
      await fh.close();
    }
    expect(await appError(openFileInWorkspace(await resolveInWorkspace(ws, 'docs'), { folder: 'docs is a folder: list it' }))).toMatchObject({ code: 'VALIDATION_FAILED', message: 'docs is a folder: list it' });
  });

  for (const procFd of [true, false]) {
    it(`opens a file reached through a file link or a folder link that stays inside (${procFd ? '/proc/self/fd' : 'device and inode'})`, async () => {
      if (procFd && process.platform !== 'linux') return;
      const { ws } = await setup();
      await fs.symlink(path.join('docs', 'a.md'), path.join(ws, 'a-link.md'));
      await fs.symlink('docs', path.join(ws, 'docs-link'));
      for (const rel of ['a-link.md', 'docs-link/a.md']) {
        const p = await resolveInWorkspace(ws, rel);
        expect(p.abs, rel).toBe(path.join(ws, 'docs', 'a.md'));
        const { fh } = await openFileInWorkspace(p, { procFd });
        try {
          expect((await fh.readFile()).toString(), rel).toBe('a');
        } finally {
          await fh.close();
        }
      }
    });

    it(`never reads outside when a parent folder or the file became a symbolic link after the path was resolved (${procFd ? '/proc/self/fd' : 'device and inode'})`, async () => {
      if (procFd && process.platform !== 'linux') return;
      const { ws, outside } = await setup();
      await fs.writeFile(path.join(outside, 'a.md'), 'OUTSIDE');
      const p = await resolveInWorkspace(ws, 'docs/a.md');
      // The parent folder swapped for a link out: the open follows it, the check after it refuses.
      await fs.rename(path.join(ws, 'docs'), path.join(ws, 'docs-moved'));
      await fs.symlink(outside, path.join(ws, 'docs'));
      expect(await appError(openFileInWorkspace(p, { procFd }))).toMatchObject({ code: 'FORBIDDEN', details: { rule: 'changed-while-opened' } });
      // The file itself swapped for a link out: not followed (O_NOFOLLOW: ELOOP, for the caller to word).
      await fs.rm(path.join(ws, 'docs'));
      await fs.rename(path.join(ws, 'docs-moved'), path.join(ws, 'docs'));
      await fs.rm(path.join(ws, 'docs', 'a.md'));
      await fs.symlink(path.join(outside, 'a.md'), path.join(ws, 'docs', 'a.md'));
      await expect(openFileInWorkspace(p, { procFd })).rejects.toMatchObject({ code: 'ELOOP' });
      // Back to a file: it opens.
      await fs.rm(path.join(ws, 'docs', 'a.md'));
      await fs.writeFile(path.join(ws, 'docs', 'a.md'), 'a');
      const { fh } = await openFileInWorkspace(p, { procFd });
      await fh.close();
    });
  }
});
