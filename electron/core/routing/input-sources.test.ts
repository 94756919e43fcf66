import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import type { AllowedHosts, Transport, TransportRequest } from '../invoke/types';
import { useTempDirs } from '../testing/temp-dir';
import { appError } from '../builtin-functions/test-context';
import { FileInputSource, UrlInputSource, VariableInputSource, inputSourceMap } from './input-sources';
import type { BufferStore } from './types';
import { createWebFunctions } from '../builtin-functions/web';

const tempDir = useTempDirs();
const ctx = { ownerId: 'conv1', now: new Date(2026, 0, 2, 3, 4, 5) };

async function workspace(files: Record<string, string | Buffer>) {
  const base = await fs.realpath(await tempDir());
  const ws = path.join(base, 'ws');
  await fs.mkdir(ws);
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await fs.writeFile(path.join(ws, rel), content);
  }
  return { base, ws };
}

describe('FileInputSource', () => {
  it('reads one file as is (a BOM dropped), placeholders expanded', async () => {
    const { ws } = await workspace({ 'notes.md': '\uFEFFhello\n', 'journal/2026-01-02.md': 'today' });
    const src = new FileInputSource({ workspaceDir: () => ws });
    expect(await src.read('notes.md', ctx)).toEqual({ text: 'hello\n', count: 1, paths: ['notes.md'] });
    expect(await src.read('./journal/{today}.md', ctx)).toEqual({ text: 'today', count: 1, paths: ['journal/2026-01-02.md'] });
  });

  it('a glob reads every match in sorted order, each under a header', async () => {
    const { ws } = await workspace({
      'notes/b.md': 'bee',
      'notes/a.md': 'ay\n',
      'notes/c.txt': 'not md',
      'notes/.hidden.md': 'hidden',
      'notes/sub/d.md': 'deep',
      'notes/.git/x.md': 'git',
      'notes/img.md': Buffer.from([0x89, 0x50, 0x00, 0x01]),
    });
    const src = new FileInputSource({ workspaceDir: () => ws });
    expect(await src.read('notes/*.md', ctx)).toEqual({ text: '==> notes/a.md <==\nay\n\n==> notes/b.md <==\nbee\n', count: 2, paths: ['notes/a.md', 'notes/b.md'] });
    expect((await src.read('notes/**/*.md', ctx)).paths).toEqual(['notes/a.md', 'notes/b.md', 'notes/sub/d.md']);
    expect((await src.read('**/{a,d}.md', ctx)).paths).toEqual(['notes/a.md', 'notes/sub/d.md']);
  });

  it('refuses paths out of the workspace and symlinks out', async () => {
    const { ws, base } = await workspace({ 'in.md': 'in' });
    await fs.writeFile(path.join(base, 'secret.txt'), 'secret');
    await fs.symlink(path.join(base, 'secret.txt'), path.join(ws, 'link.md'));
    const src = new FileInputSource({ workspaceDir: () => ws });
    for (const p of ['../secret.txt', '../../etc/passwd', path.join(base, 'secret.txt'), 'link.md']) {
      const e = await appError(src.read(p, ctx));
      expect(e.code, p).toBe('FORBIDDEN');
    }
  });

  it('a glob skips the symbolic links it matches that lead outside, to nothing or to a folder, and says so', async () => {
    const { ws, base } = await workspace({ 'in.md': 'in', 'sub/x.txt': 'x' });
    await fs.writeFile(path.join(base, 'secret.txt'), 'secret');
    await fs.symlink(path.join(base, 'secret.txt'), path.join(ws, 'out.md'));
    await fs.symlink(path.join(ws, 'missing.txt'), path.join(ws, 'dangling.md'));
    await fs.symlink(path.join(ws, 'sub'), path.join(ws, 'folder.md'));
    await fs.symlink(path.join(ws, 'in.md'), path.join(ws, 'same.md'));
    const src = new FileInputSource({ workspaceDir: () => ws });
    expect(await src.read('*.md', ctx)).toEqual({
      text: '==> in.md <==\nin\n\n==> same.md <==\nin\n',
      count: 2,
      paths: ['in.md', 'same.md'],
      skipped: ['dangling.md (a link to nothing)', 'folder.md (a link to a folder or to something that is not a file)', 'out.md (a link that leads outside the workspace)'],
    });
    // Only skipped links: a clear error naming them.
    const e = await appError(src.read('{out,dangling}.md', ctx));
    expect(e.code).toBe('NOT_FOUND');
    expect(e.message).toBe("no readable file matches '{out,dangling}.md': skipped dangling.md (a link to nothing), out.md (a link that leads outside the workspace)");
  });

  it('parentheses in a path name the file; quoted parts are read as written, never as a pattern', async () => {
    const { ws } = await workspace({ 'notes/a(b).md': 'paren', 'notes/ab.md': 'no paren', 'notes/*.md': 'star', 'notes/x.md': 'x', 'my (old) notes/1.md': 'one', 'my (old) notes/2.md': 'two' });
    const src = new FileInputSource({ workspaceDir: () => ws });
    // Unquoted: parentheses are no pattern group, so only the file with them matches.
    expect(await src.read('notes/a(b).md', ctx)).toEqual({ text: 'paren', count: 1, paths: ['notes/a(b).md'] });
    // Quoted whole: a literal path even with pattern characters in it.
    expect(await src.read('notes/a(b).md', ctx, { quoted: [[0, 13]] })).toEqual({ text: 'paren', count: 1, paths: ['notes/a(b).md'] });
    expect(await src.read('notes/*.md', ctx, { quoted: [[0, 10]] })).toEqual({ text: 'star', count: 1, paths: ['notes/*.md'] });
    // Quoted in part: the quoted folder is literal, the unquoted `*` a pattern.
    const r = await src.read('my (old) notes/*.md', ctx, { quoted: [[0, 14]] });
    expect(r).toMatchObject({ count: 2, paths: ['my (old) notes/1.md', 'my (old) notes/2.md'] });
    // An unquoted pattern still works next to parentheses.
    expect((await src.read('notes/a(*).md', ctx)).paths).toEqual(['notes/a(b).md']);
    expect(await appError(src.read('notes/"*".md', ctx, { quoted: [[6, 9]] }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a glob typed in NFC matches names stored in NFD (as macOS writes them), and the other way round', async () => {
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    const { ws } = await workspace({ [`notes/${nfd}/a.md`]: 'from nfd', [`more/${nfc}.md`]: 'from nfc' });
    const src = new FileInputSource({ workspaceDir: () => ws });
    expect(await src.read(`notes/${nfc}/*.md`, ctx)).toMatchObject({ count: 1, paths: [`notes/${nfd}/a.md`], text: `==> notes/${nfd}/a.md <==\nfrom nfd\n` });
    expect(await src.read(`more/${nfd}*`, ctx)).toMatchObject({ count: 1, paths: [`more/${nfc}.md`] });
  });

  it('a name that does not exist is read with .md added, and the result names the real file', async () => {
    const { ws } = await workspace({ 'notes/a.md': 'note a', 'notes/b': 'plain b', 'notes/b.md': 'md b', 'journal/2026-01-02.md': 'today' });
    const src = new FileInputSource({ workspaceDir: () => ws });
    expect(await src.read('notes/a', ctx)).toEqual({ text: 'note a', count: 1, paths: ['notes/a.md'] });
    // The name as written wins when it exists.
    expect(await src.read('notes/b', ctx)).toEqual({ text: 'plain b', count: 1, paths: ['notes/b'] });
    expect(await src.read('journal/{today}', ctx)).toEqual({ text: 'today', count: 1, paths: ['journal/2026-01-02.md'] });
    expect(await appError(src.read('notes/c', ctx))).toMatchObject({ code: 'NOT_FOUND', message: "neither 'notes/c' nor 'notes/c.md' exists in the workspace" });
  });

  it('missing files, folders, binaries and no match are clear errors', async () => {
    const { ws } = await workspace({ 'dir/x.md': 'x', 'bin.dat': Buffer.from([1, 0, 2]), 'only.bin': Buffer.from([0]) });
    const src = new FileInputSource({ workspaceDir: () => ws });
    expect(await appError(src.read('missing.md', ctx))).toMatchObject({ code: 'NOT_FOUND', message: "'missing.md' does not exist in the workspace" });
    expect(await appError(src.read('dir', ctx))).toMatchObject({ code: 'VALIDATION_FAILED', message: "'dir' is a folder: use a pattern such as 'dir/*'" });
    expect(await appError(src.read('bin.dat', ctx))).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: "'bin.dat' is not a text file" });
    expect(await appError(src.read('nothing/*.md', ctx))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await appError(src.read('dir/*.txt', ctx))).toMatchObject({ code: 'NOT_FOUND', message: "no file in the workspace matches 'dir/*.txt'" });
    expect(await appError(src.read('*.bin', ctx))).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(await appError(src.read('{week}.md', ctx))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('unknown placeholder {week}') });
    expect(src.check('{week}/*.md')).toMatch(/unknown placeholder \{week\}/);
    expect(src.check('{today}/*.md')).toBeNull();
  });

  it('bounds the number of files, the characters and the entries walked', async () => {
    const { ws } = await workspace({ 'n/a.md': 'aaaa', 'n/b.md': 'bbbb', 'n/c.md': 'cccc', 'big.md': 'x'.repeat(100) });
    expect(await appError(new FileInputSource({ workspaceDir: () => ws, maxFiles: 2 }).read('n/*.md', ctx))).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: "'n/*.md' matches more than 2 files: narrow the pattern",
    });
    expect(await appError(new FileInputSource({ workspaceDir: () => ws, maxTotalChars: 30 }).read('n/*.md', ctx))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await appError(new FileInputSource({ workspaceDir: () => ws, maxTotalChars: 99 }).read('big.md', ctx))).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'file:big.md is larger than 99 characters: an @input reads at most that much',
    });
    expect(await appError(new FileInputSource({ workspaceDir: () => ws, maxEntries: 3 }).read('**/*.md', ctx))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect((await new FileInputSource({ workspaceDir: () => ws, maxTotalChars: 100 }).read('big.md', ctx)).text).toHaveLength(100);
  });
});

describe('VariableInputSource', () => {
  it("reads the owner's buffer whole", async () => {
    const calls: string[] = [];
    const buffers = {
      readAll: async (owner: string, name: string) => {
        calls.push(`${owner}/${name}`);
        if (name === 'gone') throw new AppError('NOT_FOUND', "no buffer 'gone'");
        return 'buffered';
      },
    } as unknown as BufferStore;
    const src = new VariableInputSource(buffers, 5);
    expect(await appError(src.read('foo', ctx))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await new VariableInputSource(buffers).read('foo', ctx)).toEqual({ text: 'buffered', count: 1, paths: [] });
    expect(await appError(src.read('gone', ctx))).toMatchObject({ code: 'NOT_FOUND' });
    expect(calls).toEqual(['conv1/foo', 'conv1/foo', 'conv1/gone']);
  });
});

describe('UrlInputSource', () => {
  function transport(reply: (req: TransportRequest) => { status?: number; body: string | Uint8Array; contentType?: string }) {
    const seen: { req: TransportRequest; allowed: AllowedHosts }[] = [];
    const t: Transport = {
      send: async (req, allowed) => {
        seen.push({ req, allowed });
        const r = reply(req);
        const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
        return { status: r.status ?? 200, headers: { 'content-type': r.contentType ?? 'text/plain; charset=utf-8' }, body: body.subarray(0, req.maxResponseBytes), finalUrl: `${req.url}#final`, redirects: [] };
      },
      stream: () => Promise.reject(new AppError('UNAVAILABLE', 'no streaming here')),
    };
    return { t, seen };
  }
  const make = (t: Transport, maxBytes?: number) => new UrlInputSource({ fetchUrl: createWebFunctions()['fetch-url'], transport: t, allowedHosts: () => ['example.com'], workspaceDir: () => '/ws', now: () => new Date(), maxBytes });

  it('GETs the URL through the transport under the allowed hosts', async () => {
    const { t, seen } = transport(() => ({ body: 'page text' }));
    expect(await make(t).read('https://example.com/a', ctx)).toEqual({ text: 'page text', count: 1, paths: ['https://example.com/a#final'] });
    expect(seen[0]!.req).toMatchObject({ method: 'GET', url: 'https://example.com/a' });
    expect(seen[0]!.allowed).toEqual(['example.com']);
  });

  it('refuses error statuses, binary bodies, too large bodies and bad URLs', async () => {
    expect(await appError(make(transport(() => ({ status: 404, body: 'nope' })).t).read('https://example.com/x', ctx))).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'GET https://example.com/x answered HTTP 404',
    });
    expect(await appError(make(transport(() => ({ body: new Uint8Array([1, 2]), contentType: 'image/png' })).t).read('https://example.com/i', ctx))).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    expect(await appError(make(transport(() => ({ body: 'x'.repeat(20) })).t, 10).read('https://example.com/big', ctx))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await appError(make(transport(() => ({ body: '' })).t).read('ftp://example.com/x', ctx))).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('a source map is keyed by scheme', () => {
    const m = inputSourceMap([new FileInputSource({ workspaceDir: () => '/ws' }), make(transport(() => ({ body: '' })).t)]);
    expect([...m.keys()]).toEqual(['file', 'url']);
  });
});
