import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REGEX_TIME_LIMIT_DEFAULT_MS } from '../../../shared/model/settings';
import { useTempDirs } from '../testing/temp-dir';
import { createFileFunctions } from './files';
import { appError, call, testContext } from './test-context';

const tempDir = useTempDirs();

async function workspace(files: Record<string, string | Buffer> = {}) {
  const base = await tempDir();
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  await fs.mkdir(ws);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET needle\n');
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await fs.writeFile(path.join(ws, rel), content);
  }
  return { ws, outside, ctx: testContext(ws) };
}

const f = createFileFunctions();

async function listOutside(outside: string) {
  return (await fs.readdir(outside, { recursive: true })).sort();
}

describe('files.read', () => {
  const text = 'one\ntwo\nthree\nfour\nfive\n';

  it('reads a whole file, with its size', async () => {
    const { ctx } = await workspace({ 'notes/a.txt': text });
    expect(await call(f.read, ctx, { path: 'notes/a.txt' })).toEqual({
      path: 'notes/a.txt',
      encoding: 'utf8',
      content: text,
      bytes: 24,
      totalBytes: 24,
      truncated: false,
      offset: 0,
    });
  });

  it('reads a range of lines (1-based, inclusive) and says how many lines the file has', async () => {
    const { ctx } = await workspace({ 'a.txt': text, 'crlf.txt': 'a\r\nb\r\nc' });
    expect(await call(f.read, ctx, { path: 'a.txt', startLine: 2, endLine: 3 })).toMatchObject({ content: 'two\nthree\n', startLine: 2, endLine: 3, offset: 4, truncated: false });
    expect(await call(f.read, ctx, { path: 'a.txt', startLine: 4 })).toMatchObject({ content: 'four\nfive\n', startLine: 4, endLine: 5, totalLines: 5 });
    expect(await call(f.read, ctx, { path: 'a.txt', endLine: 1 })).toMatchObject({ content: 'one\n', startLine: 1, endLine: 1 });
    expect(await call(f.read, ctx, { path: 'a.txt', startLine: 9 })).toMatchObject({ content: '', startLine: 9, endLine: 8, totalLines: 5, truncated: false });
    expect(await call(f.read, ctx, { path: 'crlf.txt', startLine: 3 })).toMatchObject({ content: 'c', endLine: 3, totalLines: 3 });
  });

  it('cuts a line range at maxBytes on a line boundary, and marks it truncated with where to continue', async () => {
    const { ctx } = await workspace({ 'a.txt': text });
    expect(await call(f.read, ctx, { path: 'a.txt', startLine: 2, maxBytes: 12 })).toMatchObject({ content: 'two\nthree\n', endLine: 3, truncated: true, nextOffset: 14 });
    // A single line longer than maxBytes comes back in part.
    expect(await call(f.read, ctx, { path: 'a.txt', startLine: 3, maxBytes: 3 })).toMatchObject({ content: 'thr', truncated: true });
  });

  it('reads a byte range, and cuts at maxBytes without splitting a character', async () => {
    const { ctx } = await workspace({ 'a.txt': text, 'u.txt': 'ééé' }); // é is 2 bytes
    expect(await call(f.read, ctx, { path: 'a.txt', offset: 4, length: 3 })).toMatchObject({ content: 'two', offset: 4, bytes: 3, truncated: false });
    expect(await call(f.read, ctx, { path: 'a.txt', offset: 20 })).toMatchObject({ content: 'ive\n', truncated: false });
    expect(await call(f.read, ctx, { path: 'a.txt', offset: 100 })).toMatchObject({ content: '', bytes: 0, truncated: false });
    expect(await call(f.read, ctx, { path: 'a.txt', maxBytes: 5 })).toMatchObject({ content: 'one\nt', bytes: 5, totalBytes: 24, truncated: true, nextOffset: 5 });
    expect(await call(f.read, ctx, { path: 'u.txt', maxBytes: 3 })).toMatchObject({ content: 'é', bytes: 2, truncated: true, nextOffset: 2 });
    // An offset inside a character starts at the next whole one.
    expect(await call(f.read, ctx, { path: 'u.txt', offset: 1 })).toMatchObject({ content: 'éé', offset: 2 });
  });

  it('reads binary content as base64', async () => {
    const { ctx } = await workspace({ 'b.bin': Buffer.from([0, 1, 2, 255]) });
    expect(await call(f.read, ctx, { path: 'b.bin', encoding: 'base64' })).toMatchObject({ content: 'AAEC/w==', bytes: 4 });
  });

  it('refuses both kinds of range at once, a reversed range, folders and missing files', async () => {
    const { ctx } = await workspace({ 'a.txt': text, 'dir/x': '' });
    expect(await appError(call(f.read, ctx, { path: 'a.txt', startLine: 1, offset: 3 }))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/either a line range .* or a byte range/) });
    expect(await appError(call(f.read, ctx, { path: 'a.txt', startLine: 3, endLine: 2 }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await appError(call(f.read, ctx, { path: 'dir' }))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/is a folder/) });
    expect(await appError(call(f.read, ctx, { path: 'nope.txt' }))).toMatchObject({ code: 'NOT_FOUND', message: "'nope.txt' does not exist in the workspace" });
    expect(await appError(call(f.read, ctx, { path: 'a.txt/x' }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await appError(call(f.read, ctx, { path: 'a.txt', maxBytes: 'lots' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('refuses paths that leave the workspace: absolute, .., a symlink to /etc, a symlinked folder', async () => {
    const { ws, outside, ctx } = await workspace();
    await fs.symlink('/etc', path.join(ws, 'etc'));
    await fs.symlink(outside, path.join(ws, 'linked'));
    await fs.symlink('/etc/passwd', path.join(ws, 'passwd'));
    for (const p of ['/etc/passwd', '../outside/secret.txt', 'etc/passwd', 'passwd', 'linked/secret.txt']) {
      const e = await appError(call(f.read, ctx, { path: p }));
      expect(e.code, p).toBe('FORBIDDEN');
    }
  });
});

describe('files.list', () => {
  it('lists a folder, sorted, with kinds and sizes; paths are relative to the workspace', async () => {
    const { ws, ctx } = await workspace({ 'b.txt': 'bb', 'a.txt': 'a', 'sub/c.txt': 'ccc', 'sub/deeper/d.txt': 'd' });
    await fs.symlink('/etc', path.join(ws, 'etc-link'));
    expect(await call(f.list, ctx, {})).toEqual({
      path: '.',
      entries: [
        { path: 'a.txt', kind: 'file', size: 1 },
        { path: 'b.txt', kind: 'file', size: 2 },
        { path: 'etc-link', kind: 'symlink' },
        { path: 'sub', kind: 'folder' },
      ],
      truncated: false,
    });
    expect(await call(f.list, ctx, { path: 'sub' })).toMatchObject({ path: 'sub', entries: [{ path: 'sub/c.txt' }, { path: 'sub/deeper', kind: 'folder' }] });
  });

  it('lists recursively, breadth first, never entering symlinked folders, bounded by maxEntries and maxDepth', async () => {
    const { ws, ctx } = await workspace({ 'a.txt': 'a', 'sub/c.txt': 'ccc', 'sub/deeper/d.txt': 'd' });
    await fs.symlink('/etc', path.join(ws, 'etc-link'));
    await fs.symlink('.', path.join(ws, 'sub', 'loop'));
    const all = (await call(f.list, ctx, { recursive: true })) as { entries: { path: string }[]; truncated: boolean };
    expect(all.entries.map((e) => e.path)).toEqual(['a.txt', 'etc-link', 'sub', 'sub/c.txt', 'sub/deeper', 'sub/loop', 'sub/deeper/d.txt']);
    expect(all.truncated).toBe(false);
    expect(await call(f.list, ctx, { recursive: true, maxEntries: 2 })).toMatchObject({ entries: [{ path: 'a.txt' }, { path: 'etc-link' }], truncated: true });
    const shallow = (await call(f.list, ctx, { recursive: true, maxDepth: 2 })) as { entries: { path: string }[]; truncated: boolean };
    expect(shallow.entries.map((e) => e.path)).not.toContain('sub/deeper/d.txt');
    expect(shallow.truncated).toBe(true);
  });

  it('refuses files, missing folders and paths outside', async () => {
    const { ws, outside, ctx } = await workspace({ 'a.txt': 'a' });
    await fs.symlink(outside, path.join(ws, 'linked'));
    expect(await appError(call(f.list, ctx, { path: 'a.txt' }))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/is a file, not a folder/) });
    expect(await appError(call(f.list, ctx, { path: 'nope' }))).toMatchObject({ code: 'NOT_FOUND' });
    for (const p of ['/', '/etc', '..', 'linked']) expect((await appError(call(f.list, ctx, { path: p }))).code, p).toBe('FORBIDDEN');
  });
});

describe('files.grep', () => {
  it('finds matching lines with their numbers, in a folder tree', async () => {
    const { ctx } = await workspace({
      'a.md': 'intro\nTODO: write\nend\n',
      'src/b.ts': 'const x = 1; // TODO later\nconst y = 2;\n',
      'src/c.ts': 'nothing here\n',
    });
    expect(await call(f.grep, ctx, { pattern: 'TODO' })).toEqual({
      matches: [
        { path: 'a.md', line: 2, text: 'TODO: write' },
        { path: 'src/b.ts', line: 1, text: 'const x = 1; // TODO later' },
      ],
      truncated: false,
      filesSearched: 3,
      filesSkipped: 0,
    });
    expect(await call(f.grep, ctx, { pattern: 'const \\w = (\\d)', path: 'src' })).toMatchObject({ matches: [{ line: 1 }, { line: 2 }] });
    expect(await call(f.grep, ctx, { pattern: 'todo', ignoreCase: true, path: 'src/b.ts' })).toMatchObject({ matches: [{ path: 'src/b.ts', line: 1 }] });
  });

  it('searches a literal text when regex is false', async () => {
    const { ctx } = await workspace({ 'a.txt': 'a+b (c)\na.b\naxb\n' });
    expect(await call(f.grep, ctx, { pattern: 'a+b (c)', regex: false })).toMatchObject({ matches: [{ line: 1 }] });
    expect(await call(f.grep, ctx, { pattern: 'a.b', regex: false })).toMatchObject({ matches: [{ line: 2, text: 'a.b' }] });
  });

  it('filters by glob (a glob without / matches file names), and bounds the matches', async () => {
    const { ctx } = await workspace({ 'a.md': 'x\nx\nx\n', 'docs/b.md': 'x\n', 'c.ts': 'x\n' });
    const paths = async (args: Record<string, unknown>) => ((await call(f.grep, ctx, { pattern: 'x', ...args })) as { matches: { path: string }[] }).matches.map((m) => m.path);
    expect(await paths({ glob: '*.md' })).toEqual(['a.md', 'a.md', 'a.md', 'docs/b.md']);
    expect(await paths({ glob: 'docs/**/*.md' })).toEqual(['docs/b.md']);
    expect(await paths({ glob: '**/*.ts' })).toEqual(['c.ts']);
    expect(await call(f.grep, ctx, { pattern: 'x', maxMatches: 2 })).toMatchObject({ matches: [{ line: 1 }, { line: 2 }], truncated: true });
    expect(await call(f.grep, ctx, { pattern: 'x', maxMatches: 5 })).toMatchObject({ truncated: false });
  });

  it('skips binary files, .git and node_modules, and does not follow symlinks (to /etc or a folder outside)', async () => {
    const { ws, outside, ctx } = await workspace({ 'a.txt': 'needle\n', 'bin.dat': Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]), '.git/config': 'needle', 'node_modules/x/index.js': 'needle' });
    await fs.symlink('/etc', path.join(ws, 'etc'));
    await fs.symlink(outside, path.join(ws, 'linked'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'secret-link.txt'));
    expect(await call(f.grep, ctx, { pattern: 'needle|root' })).toEqual({ matches: [{ path: 'a.txt', line: 1, text: 'needle' }], truncated: false, filesSearched: 1, filesSkipped: 1 });
    for (const p of ['etc', 'linked', 'secret-link.txt', '/etc', '../outside']) expect((await appError(call(f.grep, ctx, { pattern: 'x', path: p }))).code, p).toBe('FORBIDDEN');
  });

  it('refuses an invalid regular expression with the reason', async () => {
    const { ctx } = await workspace({ 'a.txt': 'x' });
    expect(await appError(call(f.grep, ctx, { pattern: '(unclosed' }))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/invalid regular expression '\(unclosed'/) });
  });

  it('stops a catastrophically backtracking pattern, (a+)+$ on a long aaaa…b line, within its time budget, without blocking the process', async () => {
    const { ctx } = await workspace({ 'evil.txt': `fine\n${'a'.repeat(40)}b\n` });
    const fast = createFileFunctions({ regexTimeoutMs: 400 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const e = await appError(call(fast.grep, ctx, { pattern: '(a+)+$' }));
    clearInterval(ticker);
    expect(e.code).toBe('TIMEOUT');
    expect(e.message).toMatch(/ran longer than 400 ms and was stopped: it probably backtracks catastrophically/);
    expect(e.details).toEqual({ field: 'pattern', timeoutMs: 400 });
    expect(ticks).toBeGreaterThan(5); // the event loop kept running during the match
    // The same search with a sane pattern is fine.
    expect(await call(fast.grep, ctx, { pattern: 'a+b$' })).toMatchObject({ matches: [{ line: 2 }] });
  });

  it('stops a hostile pattern with the default budget too', async () => {
    const { ctx } = await workspace({ 'evil.txt': `${'a'.repeat(50)}b\n` });
    expect(await appError(call(f.grep, ctx, { pattern: '(a+)+$' }))).toMatchObject({ code: 'TIMEOUT', details: { field: 'pattern', timeoutMs: REGEX_TIME_LIMIT_DEFAULT_MS } });
  });

  it("the context's regex time limit (Settings) is the budget", async () => {
    const { ctx } = await workspace({ 'evil.txt': `${'a'.repeat(50)}b\n` });
    const e = await appError(call(f.grep, { ...ctx, regexTimeLimitMs: 250 }, { pattern: '(a+)+$' }));
    expect(e).toMatchObject({ code: 'TIMEOUT', details: { field: 'pattern', timeoutMs: 250 } });
    expect(e.message).toMatch(/ran longer than 250 ms/);
  });

  it('is cancelled by the signal', async () => {
    const { ws } = await workspace({ 'evil.txt': `${'a'.repeat(50)}b\n` });
    const ac = new AbortController();
    const ctx = testContext(ws, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    expect((await appError(call(f.grep, ctx, { pattern: '(a+)+$' }))).code).toBe('CANCELLED');
  });
});

describe('files.write', () => {
  it("creates a file (and its folders), and refuses to overwrite it in mode 'create'", async () => {
    const { ws, ctx } = await workspace();
    expect(await call(f.write, ctx, { path: 'out/new.txt', content: 'héllo' })).toEqual({ path: 'out/new.txt', bytes: 6, mode: 'create', created: true });
    expect(await fs.readFile(path.join(ws, 'out', 'new.txt'), 'utf8')).toBe('héllo');
    const e = await appError(call(f.write, ctx, { path: 'out/new.txt', content: 'other' }));
    expect(e).toMatchObject({ code: 'CONFLICT', message: "'out/new.txt' already exists: use mode 'replace' to overwrite it" });
    expect(await fs.readFile(path.join(ws, 'out', 'new.txt'), 'utf8')).toBe('héllo');
    expect(await fs.readdir(path.join(ws, 'out'))).toEqual(['new.txt']); // no temp file left behind
  });

  it("replaces a file atomically in mode 'replace': a reader sees the old or the new content", async () => {
    const { ws, ctx } = await workspace({ 'a.txt': 'old' });
    const versions = Array.from({ length: 15 }, (_, i) => `version ${i} `.repeat(2000));
    const seen = new Set<string>();
    let writing = true;
    const reader = (async () => {
      while (writing) seen.add(await fs.readFile(path.join(ws, 'a.txt'), 'utf8'));
    })();
    for (const v of versions) expect(await call(f.write, ctx, { path: 'a.txt', content: v, mode: 'replace' })).toMatchObject({ mode: 'replace', created: false });
    writing = false;
    await reader;
    for (const s of seen) expect(['old', ...versions]).toContain(s);
    expect(await fs.readFile(path.join(ws, 'a.txt'), 'utf8')).toBe(versions.at(-1));
    expect(await call(f.write, ctx, { path: 'b.txt', content: '', mode: 'replace' })).toMatchObject({ created: true, bytes: 0 });
  });

  it('refuses folders, missing folders without createFolders, and the workspace itself', async () => {
    const { ctx } = await workspace({ 'dir/x': '' });
    expect(await appError(call(f.write, ctx, { path: 'dir', content: 'x', mode: 'replace' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await appError(call(f.write, ctx, { path: 'a/b/c.txt', content: 'x', createFolders: false }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await appError(call(f.write, ctx, { path: '.', content: 'x' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await appError(call(f.write, ctx, { path: 'dir/x/y.txt', content: 'x' }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('never writes outside: absolute, .., a symlink to /etc, a symlinked folder, a dangling symlink', async () => {
    const { ws, outside, ctx } = await workspace();
    await fs.symlink('/etc', path.join(ws, 'etc'));
    await fs.symlink(outside, path.join(ws, 'linked'));
    await fs.symlink(path.join(outside, 'made.txt'), path.join(ws, 'dangling.txt'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'secret.txt'));
    const before = await listOutside(outside);
    for (const p of [path.join(outside, 'x.txt'), '../outside/x.txt', 'etc/toolsmith-test', 'linked/x.txt', 'linked/new/x.txt', 'dangling.txt', 'secret.txt']) {
      for (const mode of ['create', 'replace']) {
        const e = await appError(call(f.write, ctx, { path: p, content: 'pwned', mode }));
        expect(e.code, `${p} ${mode}`).toBe('FORBIDDEN');
      }
    }
    expect(await listOutside(outside)).toEqual(before);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET needle\n');
  });

  it('refuses content over the file size limit', async () => {
    const { ctx } = await workspace();
    const small = createFileFunctions({ writeMaxFileBytes: 10 });
    expect(await appError(call(small.write, ctx, { path: 'a.txt', content: 'x'.repeat(11) }))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('files.append', () => {
  it('appends to a file, with the separator only when the file has content, and creates a missing one', async () => {
    const { ws, ctx } = await workspace({ 'log.txt': 'first' });
    expect(await call(f.append, ctx, { path: 'log.txt', content: 'second', separator: '\n' })).toEqual({ path: 'log.txt', bytes: 7, size: 12, created: false });
    expect(await fs.readFile(path.join(ws, 'log.txt'), 'utf8')).toBe('first\nsecond');
    expect(await call(f.append, ctx, { path: 'logs/new.txt', content: 'x', separator: '\n' })).toEqual({ path: 'logs/new.txt', bytes: 1, size: 1, created: true });
    expect(await call(f.append, ctx, { path: 'logs/new.txt', content: 'y' })).toMatchObject({ size: 2 });
    expect(await fs.readFile(path.join(ws, 'logs', 'new.txt'), 'utf8')).toBe('xy');
  });

  it('appends concurrently without losing a write', async () => {
    const { ws, ctx } = await workspace();
    await Promise.all(Array.from({ length: 20 }, (_, i) => call(f.append, ctx, { path: 'c.txt', content: `line ${i}\n` })));
    const lines = (await fs.readFile(path.join(ws, 'c.txt'), 'utf8')).trim().split('\n').sort();
    expect(lines).toHaveLength(20);
  });

  it('refuses a missing file without createIfMissing, folders, and growth past the size limit', async () => {
    const { ctx } = await workspace({ 'dir/x': '', 'a.txt': '12345' });
    expect(await appError(call(f.append, ctx, { path: 'nope.txt', content: 'x', createIfMissing: false }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await appError(call(f.append, ctx, { path: 'dir', content: 'x' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    const small = createFileFunctions({ writeMaxFileBytes: 8 });
    expect(await appError(call(small.append, ctx, { path: 'a.txt', content: '6789' }))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('never appends outside: a symlink to /etc, a symlinked folder, a symlinked file, a dangling symlink', async () => {
    const { ws, outside, ctx } = await workspace();
    await fs.symlink('/etc', path.join(ws, 'etc'));
    await fs.symlink(outside, path.join(ws, 'linked'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'secret.txt'));
    await fs.symlink(path.join(outside, 'made.txt'), path.join(ws, 'dangling.txt'));
    const before = await listOutside(outside);
    for (const p of ['/etc/hosts', '../outside/secret.txt', 'etc/hosts', 'linked/secret.txt', 'secret.txt', 'dangling.txt']) {
      expect((await appError(call(f.append, ctx, { path: p, content: 'pwned' }))).code, p).toBe('FORBIDDEN');
    }
    expect(await listOutside(outside)).toEqual(before);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET needle\n');
  });
});
