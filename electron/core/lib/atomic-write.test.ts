import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AlreadyExists, linkExclusive, markedTempPath, tempPathFor, writeFileAtomic, writeTemp, type AtomicFs } from './atomic-write';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => fsp.rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const d = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolsmith-lib-'));
  made.push(d);
  return d;
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/** Node's fs, with the calls made logged and one kind of call failing where `fail` says. */
function loggingFs(fail?: { op: 'link' | 'rename' | 'write'; code: string }): AtomicFs & { calls: string[] } {
  const calls: string[] = [];
  const fs: AtomicFs & { calls: string[] } = {
    calls,
    open: (async (file: string, flags: string | number, mode?: number) => {
      calls.push(`open ${path.basename(file)}`);
      const handle = await fsp.open(file, flags, mode);
      if (fail?.op !== 'write') return handle;
      return Object.assign(Object.create(handle) as object, {
        writeFile: async () => {
          await handle.writeFile('half');
          throw errno(fail.code);
        },
      });
    }) as AtomicFs['open'],
    rename: async (from, to) => {
      calls.push(`rename ${path.basename(String(from))} ${path.basename(String(to))}`);
      if (fail?.op === 'rename') throw errno(fail.code);
      return fsp.rename(from, to);
    },
    link: async (from, to) => {
      calls.push(`link ${path.basename(String(from))} ${path.basename(String(to))}`);
      if (fail?.op === 'link') throw errno(fail.code);
      return fsp.link(from, to);
    },
    unlink: async (file) => {
      calls.push(`unlink ${path.basename(String(file))}`);
      return fsp.unlink(file);
    },
    stat: ((file: string) => fsp.stat(file)) as AtomicFs['stat'],
  };
  return fs;
}

describe('writeFileAtomic', () => {
  it('replaces a file through an fsynced temp file in the same folder, then fsyncs the folder; no call is wasted', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.json');
    await fsp.writeFile(file, 'old');
    const fs = loggingFs();
    await writeFileAtomic(file, 'new', { fs });
    expect(await fsp.readFile(file, 'utf8')).toBe('new');
    expect(await fsp.readdir(dir)).toEqual(['a.json']);
    const temp = fs.calls[0]!.slice('open '.length);
    expect(temp).toMatch(/^\.a\.json\.tmp-\d+-[0-9a-f]{12}$/);
    expect(fs.calls).toEqual([`open ${temp}`, `rename ${temp} a.json`, `open ${path.basename(dir)}`]);
  });

  it('writes bytes and streamed content as given', async () => {
    const dir = await tempDir();
    await writeFileAtomic(path.join(dir, 'b.bin'), Buffer.from([0, 1, 2]));
    expect([...(await fsp.readFile(path.join(dir, 'b.bin')))]).toEqual([0, 1, 2]);
    await writeFileAtomic(path.join(dir, 'c.txt'), async (fh) => {
      await fh.write('one ');
      await fh.write('two');
    });
    expect(await fsp.readFile(path.join(dir, 'c.txt'), 'utf8')).toBe('one two');
  });

  it('a failed write keeps the old file and leaves no temp file', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.json');
    await fsp.writeFile(file, 'old');
    await expect(writeFileAtomic(file, 'new', { fs: loggingFs({ op: 'write', code: 'ENOSPC' }) })).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(writeFileAtomic(file, 'new', { fs: loggingFs({ op: 'rename', code: 'EACCES' }) })).rejects.toMatchObject({ code: 'EACCES' });
    expect(await fsp.readFile(file, 'utf8')).toBe('old');
    expect(await fsp.readdir(dir)).toEqual(['a.json']);
  });

  it('a check that throws right before the commit commits nothing', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.json');
    const stop = () => {
      throw new Error('lock lost');
    };
    await expect(writeFileAtomic(file, 'new', { beforeCommit: stop })).rejects.toThrow('lock lost');
    await expect(writeFileAtomic(file, 'new', { beforeCommit: stop, exclusive: true })).rejects.toThrow('lock lost');
    expect(await fsp.readdir(dir)).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')('mode 0600 exactly, whatever the umask; keepMode keeps a replaced file’s bits', async () => {
    const dir = await tempDir();
    const secret = path.join(dir, 'secret');
    const old = process.umask(0);
    try {
      await writeFileAtomic(secret, 'k', { mode: 0o600, exactMode: true });
    } finally {
      process.umask(old);
    }
    expect((await fsp.stat(secret)).mode & 0o777).toBe(0o600);
    const script = path.join(dir, 'run.sh');
    await fsp.writeFile(script, 'echo 1', { mode: 0o755 });
    await fsp.chmod(script, 0o755);
    await writeFileAtomic(script, 'echo 2', { keepMode: true });
    expect((await fsp.stat(script)).mode & 0o777).toBe(0o755);
    await writeFileAtomic(script, 'echo 3');
    expect((await fsp.stat(script)).mode & 0o777).not.toBe(0o755);
  });

  it('exclusive: creates with a link, and refuses a taken name with AlreadyExists, keeping the file', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.json');
    const fs = loggingFs();
    await writeFileAtomic(file, 'first', { exclusive: true, fs });
    expect(fs.calls.some((c) => c.startsWith('link '))).toBe(true);
    const e = await writeFileAtomic(file, 'second', { exclusive: true }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AlreadyExists);
    expect(await fsp.readFile(file, 'utf8')).toBe('first');
    expect(await fsp.readdir(dir)).toEqual(['a.json']);
  });

  it.each(['claim', 'rename'] as const)('exclusive without hard links (%s): still creates once, then AlreadyExists', async (noLinks) => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.json');
    const fs = loggingFs({ op: 'link', code: 'EPERM' });
    await writeFileAtomic(file, 'first', { exclusive: true, noLinks, fs });
    await expect(writeFileAtomic(file, 'second', { exclusive: true, noLinks, fs })).rejects.toBeInstanceOf(AlreadyExists);
    expect(await fsp.readFile(file, 'utf8')).toBe('first');
    expect(await fsp.readdir(dir)).toEqual(['a.json']);
  });

  it('a temp file in another folder: EXDEV on the link is passed on, not taken for a file system without links', async () => {
    const dir = await tempDir();
    const other = await tempDir();
    const fs = loggingFs({ op: 'link', code: 'EXDEV' });
    await expect(writeFileAtomic(path.join(dir, 'a.json'), 'x', { exclusive: true, dir: other, fs })).rejects.toMatchObject({ code: 'EXDEV' });
    expect(await fsp.readdir(dir)).toEqual([]);
    expect(await fsp.readdir(other)).toEqual([]);
  });
});

describe('writeTemp and linkExclusive', () => {
  it('one temp file committed under the first free of several names', async () => {
    const dir = await tempDir();
    await fsp.writeFile(path.join(dir, 'out.md'), 'taken');
    const temp = await writeTemp(path.join(dir, 'out.md'), 'body', { tempPath: markedTempPath });
    expect(path.basename(temp)).toMatch(/^\.out\.md\.[0-9a-f]{12}\.toolsmith-tmp$/);
    await expect(linkExclusive(temp, path.join(dir, 'out.md'), 'body')).rejects.toBeInstanceOf(AlreadyExists);
    await linkExclusive(temp, path.join(dir, 'out-2.md'), 'body');
    await fsp.unlink(temp);
    expect(await fsp.readFile(path.join(dir, 'out-2.md'), 'utf8')).toBe('body');
    expect((await fsp.readdir(dir)).sort()).toEqual(['out-2.md', 'out.md']);
  });

  it('temp names stay short for long file names', () => {
    const long = `/d/${'x'.repeat(250)}`;
    expect(path.basename(tempPathFor(long)).length).toBeLessThan(140);
    expect(path.basename(markedTempPath(long)).length).toBeLessThan(140);
  });
});
