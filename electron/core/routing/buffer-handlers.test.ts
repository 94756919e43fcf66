import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { operations, type OpName, type OpOutput } from '../../../shared/contract';
import type { CallContext } from '../router';
import type { RoutingServices } from '.';
import { FileBufferStore } from './buffer-store';
import { useTempDirs } from '../testing/temp-dir';
import { appError } from '../builtin-functions/test-context';
import { bufferHandlers } from './buffer-handlers';

const tempDir = useTempDirs();
const stores: FileBufferStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

type Table = ReturnType<typeof bufferHandlers>;

async function setup(openPath?: (p: string) => Promise<void>) {
  const dataDir = await tempDir();
  const ws = await fs.realpath(await tempDir());
  const store = new FileBufferStore({ dataDir, workspaceDir: () => ws, now: () => new Date('2026-03-01T00:00:00Z'), searchTimeoutMs: 2000 });
  stores.push(store);
  const routing = { buffers: store } as unknown as RoutingServices;
  const table = bufferHandlers({ routing, workspaceDir: () => ws, openPath });
  /** Calls a handler as the router does: input parsed by the contract, output checked by it. */
  const call = async <N extends keyof Table & OpName>(name: N, input: unknown, ctx: CallContext = { transport: 'direct' }): Promise<OpOutput<N>> => {
    const parsed = operations[name].input.parse(input);
    const out = await (table[name] as (i: unknown, c: CallContext) => Promise<unknown>)(parsed, ctx);
    return operations[name].output.parse(out) as OpOutput<N>;
  };
  return { call, store, ws };
}

describe('buffers.* handlers', () => {
  it('list, read, search, export and delete through the store', async () => {
    const { call, store, ws } = await setup();
    await store.write('conv-1', 'notes', 'alpha\nbeta TODO\ngamma\n', 'append', 'tool:x');
    expect((await call('buffers.list', { ownerId: 'conv-1' })).map((b) => b.name)).toEqual(['notes']);
    expect(await call('buffers.read', { ownerId: 'conv-1', name: 'notes', startLine: 2, endLine: 2 })).toMatchObject({ text: 'beta TODO\n', startLine: 2, endLine: 2, totalLines: 3 });
    expect((await call('buffers.search', { ownerId: 'conv-1', name: 'notes', query: 'todo', contextLines: 1 })).matches).toEqual([]);
    expect((await call('buffers.search', { ownerId: 'conv-1', name: 'notes', query: 'todo', caseSensitive: false, contextLines: 1 })).matches).toEqual([
      { line: 2, column: 5, length: 4, text: 'beta TODO', before: ['alpha'], after: ['gamma'] },
    ]);
    expect(await call('buffers.export', { ownerId: 'conv-1', name: 'notes', path: 'out/notes.md' })).toEqual({ path: 'out/notes.md', chars: 22 });
    expect(await fs.readFile(path.join(ws, 'out/notes.md'), 'utf8')).toBe('alpha\nbeta TODO\ngamma\n');
    expect(await call('buffers.delete', { ownerId: 'conv-1', name: 'notes' })).toEqual({ deleted: true });
    expect(await call('buffers.list', { ownerId: 'conv-1' })).toEqual([]);
  });

  it('bad input: unknown buffer, range past the end, hostile regex, escaping export', async () => {
    const { call, store } = await setup();
    await store.write('conv-1', 'evil', `${'a'.repeat(30_000)}b\n`, 'append', 's');
    expect((await appError(call('buffers.read', { ownerId: 'conv-1', name: 'nope', offset: 0, length: 1 }))).code).toBe('NOT_FOUND');
    expect((await appError(call('buffers.read', { ownerId: 'conv-1', name: 'evil', startLine: 5, endLine: 6 }))).code).toBe('VALIDATION_FAILED');
    expect((await appError(call('buffers.read', { ownerId: 'conv-1', name: 'evil' }))).code).toBe('VALIDATION_FAILED');
    expect(await appError(call('buffers.search', { ownerId: 'conv-1', name: 'evil', query: '(a+)+$', regex: true }))).toMatchObject({
      code: 'TIMEOUT',
      details: { field: 'query', timeoutMs: 2000 },
    });
    expect((await appError(call('buffers.export', { ownerId: 'conv-1', name: 'evil', path: '../x.md' }))).code).toBe('FORBIDDEN');
    expect((await appError(call('buffers.delete', { ownerId: 'conv-1', name: 'nope' }))).code).toBe('NOT_FOUND');
    expect((await appError(call('buffers.list', { ownerId: '../etc' }))).code).toBe('VALIDATION_FAILED');
  });

  it('a search is cancelled by the call signal', async () => {
    const { call, store } = await setup();
    await store.write('conv-1', 'evil', `${'a'.repeat(30_000)}b\n`, 'append', 's');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    expect((await appError(call('buffers.search', { ownerId: 'conv-1', name: 'evil', query: '(a+)+$', regex: true }, { transport: 'direct', signal: ac.signal }))).code).toBe('CANCELLED');
  });
});

describe('workspace.list', () => {
  it('lists a folder: folders first, then names in natural order; links as links', async () => {
    const { call, ws } = await setup();
    await fs.mkdir(path.join(ws, 'zdir'));
    await fs.mkdir(path.join(ws, 'Adir'));
    await fs.writeFile(path.join(ws, 'b10.txt'), '0123456789');
    await fs.writeFile(path.join(ws, 'b9.txt'), 'x');
    await fs.writeFile(path.join(ws, 'a.txt'), 'x');
    await fs.writeFile(path.join(ws, '.x.md.0a1b2c3d4e5f.toolsmith-tmp'), 'in flight');
    await fs.symlink(path.join(ws, 'a.txt'), path.join(ws, 'link'));
    const list = await call('workspace.list', {});
    expect(list.map((e) => [e.name, e.kind])).toEqual([
      ['Adir', 'dir'],
      ['zdir', 'dir'],
      ['a.txt', 'file'],
      ['b9.txt', 'file'],
      ['b10.txt', 'file'],
      ['link', 'symlink'],
    ]);
    expect(list.find((e) => e.name === 'b10.txt')).toMatchObject({ path: 'b10.txt', size: 10 });
    await fs.writeFile(path.join(ws, 'zdir', 'inner.md'), 'hi');
    expect(await call('workspace.list', { path: 'zdir' })).toMatchObject([{ name: 'inner.md', path: 'zdir/inner.md', kind: 'file', size: 2 }]);
  });

  it('refuses paths out of the workspace, files and missing folders', async () => {
    const { call, ws } = await setup();
    const outside = await tempDir();
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
    await fs.symlink(outside, path.join(ws, 'out'));
    await fs.writeFile(path.join(ws, 'f.txt'), 'x');
    for (const p of ['..', '../', 'a/../../x', '/etc', 'out', 'out/']) expect((await appError(call('workspace.list', { path: p }))).code, p).toBe('FORBIDDEN');
    expect((await appError(call('workspace.list', { path: 'f.txt' }))).code).toBe('VALIDATION_FAILED');
    expect((await appError(call('workspace.list', { path: 'missing' }))).code).toBe('NOT_FOUND');
  });
});

describe('workspace.read', () => {
  it('reads a byte range, 256 KiB by default, never splitting a character', async () => {
    const { call, ws } = await setup();
    const big = 'é'.repeat(200_000); // 400,000 bytes
    await fs.writeFile(path.join(ws, 'big.txt'), big);
    const first = await call('workspace.read', { path: 'big.txt' });
    expect(first).toMatchObject({ path: 'big.txt', offset: 0, totalBytes: 400_000, more: true, binary: false });
    expect(first.text).toBe('é'.repeat(131_072));
    // A range ending inside a character stops before it; one starting inside starts after it.
    expect(await call('workspace.read', { path: 'big.txt', offset: 0, length: 5 })).toMatchObject({ text: 'éé', more: true });
    expect(await call('workspace.read', { path: 'big.txt', offset: 1, length: 6 })).toMatchObject({ text: 'éé', offset: 2 });
    const last = await call('workspace.read', { path: 'big.txt', offset: 399_996 });
    expect(last).toMatchObject({ text: 'éé', more: false });
    expect(await call('workspace.read', { path: 'big.txt', offset: 400_000 })).toMatchObject({ text: '', more: false });
    expect((await appError(call('workspace.read', { path: 'big.txt', offset: 400_001 }))).code).toBe('VALIDATION_FAILED');
  });

  it('reports NUL bytes as binary, with no text', async () => {
    const { call, ws } = await setup();
    await fs.writeFile(path.join(ws, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(await call('workspace.read', { path: 'img.png' })).toEqual({ path: 'img.png', text: '', offset: 0, totalBytes: 6, more: false, binary: true });
  });

  it('refuses escapes, symlinks out, folders and missing files', async () => {
    const { call, ws } = await setup();
    const outside = await tempDir();
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'leak.txt'));
    await fs.mkdir(path.join(ws, 'd'));
    for (const p of ['../secret.txt', '/etc/passwd', 'leak.txt', 'd/../../x']) expect((await appError(call('workspace.read', { path: p }))).code, p).toBe('FORBIDDEN');
    expect((await appError(call('workspace.read', { path: 'd' }))).code).toBe('VALIDATION_FAILED');
    expect((await appError(call('workspace.read', { path: 'missing.txt' }))).code).toBe('NOT_FOUND');
  });
});

describe('workspace.open', () => {
  it('opens the confined absolute path with the host', async () => {
    const opened: string[] = [];
    const { call, ws } = await setup(async (p) => void opened.push(p));
    await fs.writeFile(path.join(ws, 'r.md'), '#');
    expect(await call('workspace.open', { path: 'r.md' })).toEqual({ opened: true });
    expect(opened).toEqual([path.join(ws, 'r.md')]);
    expect((await appError(call('workspace.open', { path: '../x' }))).code).toBe('FORBIDDEN');
    expect((await appError(call('workspace.open', { path: 'nope.md' }))).code).toBe('NOT_FOUND');
    expect(opened).toHaveLength(1);
  });

  it('is UNAVAILABLE on a host that cannot open files', async () => {
    const { call, ws } = await setup();
    await fs.writeFile(path.join(ws, 'r.md'), '#');
    const e = await appError(call('workspace.open', { path: 'r.md' }));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toBe("this host cannot open files with the system's applications");
  });
});
