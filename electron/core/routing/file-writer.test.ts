import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appError } from '../builtin-functions/test-context';
import { useTempDirs } from '../testing/temp-dir';
import { numberedName, PIECE_CHARS, writeWorkspaceFile } from './file-writer';

const tempDir = useTempDirs();

async function workspace(): Promise<string> {
  return tempDir();
}

const read = (ws: string, rel: string) => fs.readFile(path.join(ws, rel), 'utf8');

describe('numberedName', () => {
  it('numbers before the extension, or at the end when there is none', () => {
    expect(numberedName('out.md', 2)).toBe('out-2.md');
    expect(numberedName('results', 3)).toBe('results-3');
    expect(numberedName('archive.tar.gz', 2)).toBe('archive.tar-2.gz');
    expect(numberedName('.env', 2)).toBe('.env-2');
  });
});

describe('writeWorkspaceFile', () => {
  it('appends by default semantics: creates the file and its folders, then adds a single "\\n" only when the file does not end with one', async () => {
    const ws = await workspace();
    expect(await writeWorkspaceFile(ws, 'a/b/log.md', 'one', 'append')).toEqual({ path: 'a/b/log.md', chars: 3 });
    await writeWorkspaceFile(ws, 'a/b/log.md', 'two\n', 'append');
    await writeWorkspaceFile(ws, 'a/b/log.md', 'three', 'append');
    expect(await read(ws, 'a/b/log.md')).toBe('one\ntwo\nthree');
    // Empty content writes nothing, not even the separator.
    await writeWorkspaceFile(ws, 'a/b/log.md', '', 'append');
    expect(await read(ws, 'a/b/log.md')).toBe('one\ntwo\nthree');
    // An empty existing file gets no separator.
    await fs.writeFile(path.join(ws, 'empty.txt'), '');
    await writeWorkspaceFile(ws, 'empty.txt', 'x', 'append');
    expect(await read(ws, 'empty.txt')).toBe('x');
  });

  it('replaces atomically and leaves no temp file behind', async () => {
    const ws = await workspace();
    await writeWorkspaceFile(ws, 'r.txt', 'old content', 'replace');
    expect(await writeWorkspaceFile(ws, 'r.txt', 'new', 'replace')).toEqual({ path: 'r.txt', chars: 3 });
    expect(await read(ws, 'r.txt')).toBe('new');
    expect(await fs.readdir(ws)).toEqual(['r.txt']);
  });

  it.skipIf(process.platform === 'win32')('replace keeps the permission bits of the file it replaces', async () => {
    const ws = await workspace();
    for (const mode of [0o755, 0o600]) {
      await fs.writeFile(path.join(ws, 'run.sh'), 'old');
      await fs.chmod(path.join(ws, 'run.sh'), mode);
      await writeWorkspaceFile(ws, 'run.sh', 'new', 'replace');
      expect(await read(ws, 'run.sh')).toBe('new');
      expect((await fs.stat(path.join(ws, 'run.sh'))).mode & 0o777).toBe(mode);
    }
  });

  it.runIf(process.platform === 'linux')('new: on a case-sensitive file system a name in other letters is not taken', async () => {
    const ws = await workspace();
    await fs.writeFile(path.join(ws, 'OUT.md'), 'upper');
    expect((await writeWorkspaceFile(ws, 'out.md', 'lower', 'new')).path).toBe('out.md');
    expect((await writeWorkspaceFile(ws, 'out.md', 'again', 'new')).path).toBe('out-2.md');
    expect(await read(ws, 'OUT.md')).toBe('upper');
  });

  it('new picks the first free numbered name, and parallel writers never share one', async () => {
    const ws = await workspace();
    expect((await writeWorkspaceFile(ws, 'out/out.md', 'first', 'new')).path).toBe('out/out.md');
    expect((await writeWorkspaceFile(ws, 'out/out.md', 'second', 'new')).path).toBe('out/out-2.md');
    expect((await writeWorkspaceFile(ws, 'out/out.md', 'third', 'new')).path).toBe('out/out-3.md');
    expect(await read(ws, 'out/out-2.md')).toBe('second');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => writeWorkspaceFile(ws, 'par/results', `writer ${i}`, 'new')));
    const paths = results.map((r) => r.path);
    expect(new Set(paths).size).toBe(12);
    expect(paths).toContain('par/results');
    expect(paths).toContain('par/results-12');
    for (const [i, r] of results.entries()) expect(await read(ws, r.path)).toBe(`writer ${i}`);
    expect((await fs.readdir(path.join(ws, 'par'))).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('encodes every character exactly, a surrogate pair on a piece boundary included', async () => {
    const ws = await workspace();
    const content = 'a'.repeat(PIECE_CHARS - 1) + '😀' + 'é中\r\n'.repeat(50_000) + '𝐀';
    const r = await writeWorkspaceFile(ws, 'u.txt', content, 'replace');
    expect(r.chars).toBe(content.length);
    expect(await read(ws, 'u.txt')).toBe(content);
  });

  it('refuses paths that leave the workspace, and writes nothing', async () => {
    const ws = await workspace();
    const outside = await tempDir();
    await fs.mkdir(path.join(ws, 'inner'));
    await fs.symlink(outside, path.join(ws, 'escape'));
    await fs.symlink(path.join(outside, 'target.txt'), path.join(ws, 'dangling.txt'));
    for (const bad of ['../x.txt', 'inner/../../x.txt', '/etc/x.txt', 'C:\\x.txt', 'escape/x.txt', 'dangling.txt']) {
      for (const mode of ['append', 'replace', 'new'] as const) {
        const e = await appError(writeWorkspaceFile(ws, bad, 'data', mode));
        expect(e.code, `${bad} ${mode}`).toBe('FORBIDDEN');
        expect(e.message.length).toBeGreaterThan(20);
      }
    }
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('follows a symbolic link that stays inside the workspace', async () => {
    const ws = await workspace();
    await fs.mkdir(path.join(ws, 'real'));
    await fs.symlink(path.join(ws, 'real'), path.join(ws, 'alias'));
    expect((await writeWorkspaceFile(ws, 'alias/f.txt', 'x', 'new')).path).toBe('alias/f.txt');
    expect((await writeWorkspaceFile(ws, 'alias/f.txt', 'y', 'new')).path).toBe('alias/f-2.txt');
    expect(await read(ws, 'real/f-2.txt')).toBe('y');
  });

  it('new never writes through a symbolic link: a link is a taken name', async () => {
    const ws = await workspace();
    await fs.mkdir(path.join(ws, 'real'));
    await fs.writeFile(path.join(ws, 'real', 'target.md'), 'kept');
    await fs.symlink(path.join(ws, 'real', 'target.md'), path.join(ws, 'link.md'));
    expect((await writeWorkspaceFile(ws, 'link.md', 'fresh', 'new')).path).toBe('link-2.md');
    expect(await read(ws, 'link-2.md')).toBe('fresh');
    expect(await read(ws, 'real/target.md')).toBe('kept');
    // append and replace write the file the link points to (it stays inside the workspace).
    await writeWorkspaceFile(ws, 'link.md', 'more', 'append');
    expect(await read(ws, 'real/target.md')).toBe('kept\nmore');
  });

  it('refuses a folder as the target, the workspace itself, and non-text content', async () => {
    const ws = await workspace();
    await fs.mkdir(path.join(ws, 'dir'));
    expect((await appError(writeWorkspaceFile(ws, 'dir', 'x', 'append'))).code).toBe('VALIDATION_FAILED');
    expect((await appError(writeWorkspaceFile(ws, '.', 'x', 'replace'))).code).toBe('VALIDATION_FAILED');
    expect((await appError(writeWorkspaceFile(ws, 'x.txt', 42 as unknown as string, 'replace'))).code).toBe('VALIDATION_FAILED');
    await fs.writeFile(path.join(ws, 'file'), 'f');
    expect((await appError(writeWorkspaceFile(ws, 'file/child.txt', 'x', 'append'))).code).toBe('NOT_FOUND');
  });

  it('two appends to one file at once do not interleave: each gets its own separator', async () => {
    const ws = await workspace();
    for (let round = 0; round < 5; round++) {
      await fs.writeFile(path.join(ws, 'log.md'), 'x');
      await Promise.all([writeWorkspaceFile(ws, 'log.md', 'A', 'append'), writeWorkspaceFile(ws, './log.md', 'B', 'append')]);
      expect(['x\nA\nB', 'x\nB\nA']).toContain(await read(ws, 'log.md'));
    }
  });

  it('two 3 MB appends at once land one after the other, not mixed', async () => {
    const ws = await workspace();
    await fs.writeFile(path.join(ws, 'big.txt'), 'x');
    const a = 'A'.repeat(3 * 1024 * 1024);
    const b = 'B'.repeat(3 * 1024 * 1024);
    await Promise.all([writeWorkspaceFile(ws, 'big.txt', a, 'append'), writeWorkspaceFile(ws, 'big.txt', b, 'append')]);
    const both = await read(ws, 'big.txt');
    expect(both.length).toBe(1 + 2 * (a.length + 1));
    expect(both === `x\n${a}\n${b}` || both === `x\n${b}\n${a}`).toBe(true);
  });
});

