import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryBuffers } from '../testing/memory-buffers';
import { useTempDirs } from '../testing/temp-dir';
import { appError } from '../builtin-functions/test-context';
import { WorkspaceOutputRouter } from './router';
import type { BufferStore } from './types';

const tempDir = useTempDirs();

const at = new Date(2026, 10, 22, 9, 30, 0);

async function setup(opts: { maxPayloadChars?: number } = {}) {
  const base = await fs.realpath(await tempDir());
  const ws = path.join(base, 'ws');
  await fs.mkdir(ws);
  const buffers = new MemoryBuffers();
  const router = new WorkspaceOutputRouter({ buffers: buffers as unknown as BufferStore, workspaceDir: () => ws, now: () => at, ...opts });
  return { base, ws, buffers, router };
}

const tool = (over: Record<string, unknown> = {}) => ({ ownerId: 'conv1', source: 'tool:readfile', label: { kind: 'tool' as const, name: 'readfile' }, ...over });

describe('WorkspaceOutputRouter', () => {
  it('inline: null, nothing written', async () => {
    const { router, buffers } = await setup();
    expect(await router.route({ ...tool(), content: 'x', destination: { kind: 'inline' } })).toBeNull();
    expect(buffers.writes).toEqual([]);
  });

  it('discard: a manifest, nothing written', async () => {
    const { router, buffers, ws } = await setup();
    const m = await router.route({ ...tool(), content: 'hello', destination: { kind: 'discard' } });
    expect(m).toEqual({
      kind: 'tool',
      name: 'readfile',
      destination: 'discard',
      target: { kind: 'discard' },
      writeMode: 'append',
      count: 1,
      totalChars: 5,
      paths: [],
      text: '[tool routed] readfile -> discard (total 5 chars)',
    });
    expect(buffers.writes).toEqual([]);
    expect(await fs.readdir(ws)).toEqual([]);
  });

  it('variable: writes the buffer of the owner (append by default) and names it in the manifest', async () => {
    const { router, buffers } = await setup();
    const content = 'x'.repeat(12_340);
    const m = await router.route({ ...tool(), content, destination: { kind: 'variable', name: 'foo' } });
    expect(buffers.writes).toEqual([{ ownerId: 'conv1', name: 'foo', content, mode: 'append', source: 'tool:readfile' }]);
    expect(m).toMatchObject({ destination: 'variable:foo', target: { kind: 'variable', ownerId: 'conv1', name: 'foo' }, totalChars: 12_340 });
    expect(m!.text).toBe('[tool routed] readfile -> variable:foo (total 12,340 chars)');
  });

  it('variable with write-mode=new: the manifest names the numbered buffer', async () => {
    const { router } = await setup();
    await router.route({ ...tool(), content: 'a', destination: { kind: 'variable', name: 'results' } });
    const m = await router.route({ ...tool(), content: 'b', destination: { kind: 'variable', name: 'results' }, writeMode: 'new' });
    expect(m).toMatchObject({ destination: 'variable:results-2', writeMode: 'new', target: { name: 'results-2' } });
  });

  it('an input manifest: the documented format, with paths', async () => {
    const { router } = await setup();
    const m = await router.route({
      ownerId: 'run1',
      content: 'y'.repeat(12_340),
      destination: { kind: 'variable', name: 'foo' },
      label: { kind: 'input', name: 'file:notes/*', count: 3, paths: ['notes/2026-01-01', 'notes/2026-01-02', 'notes/2026-01-03'] },
      source: 'input:file:notes/*',
    });
    expect(m!.text).toBe('[input routed] 3 files -> variable:foo (total 12,340 chars)\npaths: notes/2026-01-01, notes/2026-01-02, notes/2026-01-03');
    expect(m).toMatchObject({ kind: 'input', count: 3, paths: ['notes/2026-01-01', 'notes/2026-01-02', 'notes/2026-01-03'] });
  });

  it('file: placeholders expanded, written in the workspace with each write mode', async () => {
    const { router, ws } = await setup();
    const m1 = await router.route({ ...tool(), content: 'first', destination: { kind: 'file', path: 'archive/{today}' } });
    expect(m1).toMatchObject({ destination: 'file:archive/2026-11-22', target: { kind: 'file', path: 'archive/2026-11-22' } });
    expect(m1!.text).toBe('[tool routed] readfile -> file:archive/2026-11-22 (total 5 chars)');
    await router.route({ ...tool(), content: 'second', destination: { kind: 'file', path: 'archive/{today}' } });
    expect(await fs.readFile(path.join(ws, 'archive', '2026-11-22'), 'utf8')).toBe('first\nsecond');

    const m3 = await router.route({ ...tool(), content: 'fresh', destination: { kind: 'file', path: 'archive/{today}' }, writeMode: 'new' });
    expect(m3!.destination).toBe('file:archive/2026-11-22-2');
    await router.route({ ...tool(), content: 'over', destination: { kind: 'file', path: 'archive/{today}' }, writeMode: 'replace' });
    expect(await fs.readFile(path.join(ws, 'archive', '2026-11-22'), 'utf8')).toBe('over');
    expect(await fs.readFile(path.join(ws, 'archive', '2026-11-22-2'), 'utf8')).toBe('fresh');
  });

  it('file: refuses .., absolute paths, symlinks out and unknown placeholders, writing nothing', async () => {
    const { router, ws, base } = await setup();
    await fs.mkdir(path.join(base, 'outside'));
    await fs.symlink(path.join(base, 'outside'), path.join(ws, 'link'));
    const cases: [string, string][] = [
      ['../../etc/passwd', 'FORBIDDEN'],
      ['../escape.txt', 'FORBIDDEN'],
      ['a/../../escape.txt', 'FORBIDDEN'],
      [path.join(base, 'abs.txt'), 'FORBIDDEN'],
      ['link/through.txt', 'FORBIDDEN'],
      ['out/{week}.md', 'VALIDATION_FAILED'],
    ];
    for (const [p, code] of cases) {
      const e = await appError(router.route({ ...tool(), content: 'secret', destination: { kind: 'file', path: p } }));
      expect(e.code, p).toBe(code);
    }
    expect((await fs.readdir(base)).sort()).toEqual(['outside', 'ws']);
    expect(await fs.readdir(path.join(base, 'outside'))).toEqual([]);
    expect(await fs.readdir(ws)).toEqual(['link']);
  });

  it('refuses a payload over the limit with PAYLOAD_TOO_LARGE before writing', async () => {
    const { router, buffers, ws } = await setup({ maxPayloadChars: 10 });
    for (const destination of [{ kind: 'variable', name: 'big' } as const, { kind: 'file', path: 'big.txt' } as const, { kind: 'discard' } as const]) {
      const e = await appError(router.route({ ...tool(), content: 'x'.repeat(11), destination }));
      expect(e.code).toBe('PAYLOAD_TOO_LARGE');
      expect(e.message).toBe('readfile produced 11 characters: routing takes at most 10');
    }
    expect(buffers.writes).toEqual([]);
    expect(await fs.readdir(ws)).toEqual([]);
    // At the limit it goes through.
    expect(await router.route({ ...tool(), content: 'x'.repeat(10), destination: { kind: 'variable', name: 'big' } })).not.toBeNull();
  });

  it('an aborted signal: CANCELLED and nothing written', async () => {
    const { router, buffers, ws } = await setup();
    const ac = new AbortController();
    ac.abort();
    for (const destination of [{ kind: 'variable', name: 'v' } as const, { kind: 'file', path: 'f.txt' } as const]) {
      const e = await appError(router.route({ ...tool(), content: 'x', destination, signal: ac.signal }));
      expect(e.code).toBe('CANCELLED');
      expect(e.message).toBe('cancelled');
    }
    expect(buffers.writes).toEqual([]);
    expect(await fs.readdir(ws)).toEqual([]);
    // A live signal goes through.
    expect(await router.route({ ...tool(), content: 'x', destination: { kind: 'variable', name: 'v' }, signal: new AbortController().signal })).not.toBeNull();
  });
});
