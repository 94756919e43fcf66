/**
 * The source manager: a folder watcher's notices reach the blocks subscribed with `block
 * load` and a source_id; pause and resume stop and restart them; settings persist; the
 * `file` tool's function is registered only while a FileSource exists; close leaves no
 * watcher running. Every wait is on an event, never on the clock.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalFunctionRegistry } from '../../builtin-functions/registry';
import { useTempDirs } from '../../testing/temp-dir';
import { never, openTestMemory, userActor } from '../testing/memory-kit';
import type { Notice } from './folder-watcher';
import { FILE_FUNCTION_ID, SourceManager } from './source-manager';

const tempDir = useTempDirs();

/** The fs.watch handles open now. */
const watches = () => process.getActiveResourcesInfo().filter((r) => /FSEvent|StatWatcher/.test(r)).length;
/** A closed fs.watch handle leaves the list once the event loop has run its close callback. */
async function settled(expected: number): Promise<number> {
  for (let i = 0; i < 400 && watches() !== expected; i++) await new Promise((r) => setTimeout(r, 5));
  return watches();
}

async function manager() {
  const dataDir = await tempDir();
  const memory = openTestMemory(await tempDir());
  const functions = new LocalFunctionRegistry();
  const m = new SourceManager({ file: path.join(dataDir, 'memory-sources.json'), memory, now: () => new Date(), functions, fileFunction: async () => ({}) });
  await m.open();
  memory.sources = m;
  return { m, memory, functions, dataDir, close: () => m.close() };
}

/** Resolves with the first notice `pred` accepts. */
function nextNotice(m: SourceManager, pred: (n: Notice) => boolean): Promise<Notice> {
  return new Promise((resolve) => {
    const off = m.onNotice((n) => {
      if (!pred(n)) return;
      off();
      resolve(n);
    });
  });
}

describe('the folder watcher', () => {
  it('turns new and changed files into notices in the subscribed block; pause stops them, resume starts them again', async () => {
    const before = watches();
    const { m, memory, close } = await manager();
    const folder = await tempDir();
    await m.save({ kind: 'watch', id: 'inbox', folder });
    expect(m.status('inbox')).toMatchObject({ type: 'stream', state: 'watching' });
    const u = userActor();
    const r = await memory.block(u, { op: 'load', label: 'inbox-news', source_id: 'inbox' }, never);
    expect(r.message).toContain("block 'inbox-news' receives the notifications of folder watcher 'inbox'");
    expect(r.block).toMatchObject({ schema: { kind: 'List' }, permission: 'Append' });

    const added = nextNotice(m, (n) => n.path === 'a.md' && n.kind === 'added');
    await fs.writeFile(path.join(folder, 'a.md'), 'one');
    await added;
    const changed = nextNotice(m, (n) => n.path === 'a.md' && n.kind === 'changed');
    await fs.writeFile(path.join(folder, 'a.md'), 'one two');
    await changed;
    const items = () => memory.blocks.view(u.owner, 'inbox-news').content as string[];
    expect(items().map((t) => t.replace(/^\S+ /, ''))).toEqual(['added a.md', 'changed a.md']);

    const paused = await m.pause('inbox');
    expect(paused).toMatchObject({ changed: true, status: { state: 'paused' } });
    // Paused, nothing watches the folder.
    expect(await settled(before)).toBe(before);
    await fs.writeFile(path.join(folder, 'while-paused.md'), 'x');
    const resumed = await m.resume('inbox');
    expect(resumed.status.state).toBe('watching');
    const after = nextNotice(m, (n) => n.path === 'after.md');
    await fs.writeFile(path.join(folder, 'after.md'), 'y');
    await after;
    expect(items().map((t) => t.replace(/^\S+ /, ''))).toEqual(['added a.md', 'changed a.md', 'added after.md']);
    expect(m.status('inbox').notifications).toBe(3);
    await close();
  });

  it('a block source answers pause with its state; an unknown id names the sources there are', async () => {
    const { m, close } = await manager();
    const folder = await tempDir();
    await m.save({ kind: 'files', id: 'notes', folder, rules: [{ pattern: '**', permission: 'ReadWrite' }] });
    const r = await m.pause('notes');
    expect(r.changed).toBe(false);
    expect(r.message).toBe(`source 'notes' is a block source (FileSource): it sends no notifications, so there is nothing to pause; it is active on ${folder} with rules ** → ReadWrite, 0 files loaded`);
    await expect(m.resume('nope')).rejects.toMatchObject({ code: 'NOT_FOUND', message: "no data source 'nope' (there is 'notes')" });
    await close();
  });

  it('settings persist (paused included); a missing folder or a bad glob is refused; the file tool exists only while a FileSource does', async () => {
    const { m, functions, dataDir, close } = await manager();
    const folder = await tempDir();
    expect(functions.has(FILE_FUNCTION_ID)).toBe(false);
    await m.save({ kind: 'files', id: 'notes', folder, rules: [{ pattern: '*.md', permission: 'ReadOnly' }] });
    expect(functions.has(FILE_FUNCTION_ID)).toBe(true);
    await m.save({ kind: 'watch', id: 'inbox', folder, include: ['**/*.md'] });
    await m.pause('inbox');
    await expect(m.save({ kind: 'watch', id: 'gone', folder: path.join(folder, 'missing') })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: `the folder ${path.join(folder, 'missing')} does not exist` });
    await expect(m.save({ kind: 'files', id: 'Bad Id', folder, rules: [] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await close();
    expect(functions.has(FILE_FUNCTION_ID)).toBe(false);

    const memory = openTestMemory(await tempDir());
    const again = new SourceManager({ file: path.join(dataDir, 'memory-sources.json'), memory, now: () => new Date(), functions, fileFunction: async () => ({}) });
    await again.open();
    expect(again.list().map((s) => [s.id, s.state])).toEqual([
      ['inbox', 'paused'],
      ['notes', 'active'],
    ]);
    expect(functions.has(FILE_FUNCTION_ID)).toBe(true);
    expect(await again.remove('notes')).toEqual({ removed: true });
    expect(functions.has(FILE_FUNCTION_ID)).toBe(false);
    await again.close();
  });

  it('close stops every watcher: no file system watch handle is left', async () => {
    const before = watches();
    const { m, close } = await manager();
    await m.save({ kind: 'watch', id: 'a', folder: await tempDir() });
    await m.save({ kind: 'watch', id: 'b', folder: await tempDir() });
    expect(watches()).toBeGreaterThan(before);
    await close();
    expect(await settled(before)).toBe(before);
    expect(m.list()).toEqual([]);
  });

  it('a process that runs no streams (the CLI) lists the watchers but watches nothing', async () => {
    const before = watches();
    const { m, memory, functions, dataDir } = await manager();
    await m.save({ kind: 'watch', id: 'inbox', folder: await tempDir() });
    await m.close();
    expect(await settled(before)).toBe(before);
    const cli = new SourceManager({ file: path.join(dataDir, 'memory-sources.json'), memory, now: () => new Date(), functions, fileFunction: async () => ({}), streams: false });
    await cli.open();
    expect(cli.list().map((x) => x.id)).toEqual(['inbox']);
    expect(cli.status('inbox').state).not.toBe('watching');
    expect(watches()).toBe(before);
    await cli.close();
  });

  it('never subscribes a block whose permission would have asked: notices are added without asking', async () => {
    const { m, memory, close } = await manager();
    await m.save({ kind: 'watch', id: 'inbox', folder: await tempDir() });
    const u = userActor();
    memory.blocks.create({ owner: u.owner, label: 'diary', schema: { kind: 'List' }, type: 'Working', permission: 'Human', description: 'mine' }, u.by);
    const e = await memory.block(u, { op: 'load', label: 'diary', source_id: 'inbox' }, never).then(
      () => undefined,
      (x: unknown) => x as { code: string; message: string },
    );
    expect(e?.code).toBe('FORBIDDEN');
    expect(e?.message).toMatch(/^refused by block permission: block 'diary' is Human/);
    expect(m.status('inbox').subscribers ?? []).toEqual([]);
    await close();
  });
});
