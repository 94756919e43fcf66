/**
 * The `file` tool and how a path is spelled or swapped: a rule covers its folder in NFC and
 * NFD, and without case on a volume that ignores case; a path another process flips between
 * a file inside the folder and a symlink out is never read through.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileRule } from '../../../../shared/model/memory-sources';
import type { LocalToolContext } from '../../invoke/types';
import { useTempDirs } from '../../testing/temp-dir';
import type { ConsentAnswer } from '../consent';
import { never, openTestMemory, userActor } from '../testing/memory-kit';
import { FileSource } from './file-source';
import { SourceManager } from './source-manager';
import { createSourceTools } from './source-tools';
import { volumeIgnoresCase } from './volume-case';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';

/** The `file` tool on a FileSource 'notes' over `folder`, as a conversation calls it. */
async function fileTool(folder: string, rules: FileRule[], ignoresCase?: (root: string) => Promise<boolean>) {
  const memory = openTestMemory(await tempDir());
  const m = new SourceManager({ file: path.join(await tempDir(), 'memory-sources.json'), memory, now: () => new Date(), ...(ignoresCase ? { ignoresCase } : {}) });
  await m.open();
  memory.sources = m;
  closers.push(() => m.close());
  await m.save({ kind: 'files', id: 'notes', folder, rules });
  const u = userActor();
  const { file } = createSourceTools({ sources: () => m, actorOf: () => u });
  const ctx = { ownerId: u.owner, signal: never } as unknown as LocalToolContext;
  return (args: Record<string, unknown>) => file(ctx, args, never) as Promise<{ content?: string; message: string }>;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: { code: string; message: string }) => e,
  );

describe('the file tool: a rule covers its folder however the path is spelled', () => {
  for (const [rule, disk] of [[NFC, NFD], [NFD, NFC]] as const) {
    it(`a ReadOnly rule typed in ${rule === NFC ? 'NFC' : 'NFD'} covers the folder stored in ${disk === NFC ? 'NFC' : 'NFD'}: writes are refused`, async () => {
      const folder = await tempDir();
      await fs.mkdir(path.join(folder, disk));
      await fs.writeFile(path.join(folder, disk, 'a.md'), 'keep');
      const file = await fileTool(folder, [
        { pattern: `${rule}/**`, permission: 'ReadOnly' },
        { pattern: '**', permission: 'ReadWrite' },
      ]);
      expect((await file({ op: 'load', path: `${disk}/a.md` })).content).toBe('keep');
      for (const args of [
        { op: 'append', path: `${disk}/a.md`, content: 'changed' },
        { op: 'replace', path: `${disk}/a.md`, old: 'keep', new: 'changed' },
        { op: 'save', path: `${disk}/a.md` },
        { op: 'create', path: `${disk}/new.md`, content: 'x' },
        { op: 'delete', path: `${disk}/a.md` },
      ]) {
        const e = await failure(file(args));
        expect(e.code, args.op).toBe('FORBIDDEN');
        expect(e.message, args.op).toMatch(/^refused by file source rules: '.+' matches rule '.+' of source 'notes' → ReadOnly/);
      }
      expect(await fs.readdir(path.join(folder, disk))).toEqual(['a.md']);
      expect(await fs.readFile(path.join(folder, disk, 'a.md'), 'utf8')).toBe('keep');
    });
  }

  it('on a volume that ignores case a rule matches without case; on one that does not, with it (the volume asked once per folder)', async () => {
    const rules: FileRule[] = [
      { pattern: 'Docs/**', permission: 'ReadOnly' },
      { pattern: '**', permission: 'ReadWrite' },
    ];
    const folder = await tempDir();
    await fs.mkdir(path.join(folder, 'Docs'));
    await fs.writeFile(path.join(folder, 'Docs', 'a.md'), 'keep');
    const asked: string[] = [];
    const insensitive = await fileTool(folder, rules, async (root) => {
      asked.push(root);
      return true;
    });
    for (const p of ['docs/new.md', 'DOCS/new.md', 'Docs/new.md']) {
      const e = await failure(insensitive({ op: 'create', path: p, content: 'x' }));
      expect(e.message, p).toMatch(new RegExp(`^refused by file source rules: '${p}' matches rule 'Docs/\\*\\*' of source 'notes' → ReadOnly`));
    }
    expect(asked).toEqual([await fs.realpath(folder)]);
    expect(await fs.readdir(folder)).toEqual(['Docs']);

    // Where case tells names apart, docs/ is another folder, which the second rule covers.
    const sensitive = await fileTool(folder, rules, async () => false);
    expect((await sensitive({ op: 'create', path: 'docs/new.md', content: 'x' })).message).toMatch(/'docs\/new.md' created/);
    expect((await failure(sensitive({ op: 'create', path: 'Docs/new.md', content: 'x' }))).message).toMatch(/→ ReadOnly/);
  });

  it("the volume's answer comes from the disk: a name looked up with its case flipped", async () => {
    const folder = await tempDir();
    await fs.writeFile(path.join(folder, 'Abc.txt'), 'x');
    const flippedExists = await fs.access(path.join(folder, 'aBC.TXT')).then(() => true, () => false);
    expect(await volumeIgnoresCase(await fs.realpath(folder))).toBe(flippedExists);
  });
});

/**
 * A child process that flips `target` between a file inside the folder and a symlink to
 * `outside`, at most `flips` times: by atomic renames, or (`unlink`) by removing and making it
 * again, so a load also meets the path missing or half-written.
 */
function startFlipper(target: string, outside: string, flips: number, how: 'rename' | 'unlink' = 'rename') {
  const script = `
    const fs = require('node:fs');
    const [target, outside, flips, how] = process.argv.slice(1);
    const link = target + '.flip-link', file = target + '.flip-file';
    process.stdout.write('ready\\n');
    for (let i = 0; i < Number(flips); i++) {
      if (how === 'unlink') {
        fs.rmSync(target, { force: true });
        fs.symlinkSync(outside, target);
        fs.rmSync(target, { force: true });
        fs.writeFileSync(target, 'inside');
        continue;
      }
      fs.symlinkSync(outside, link);
      fs.renameSync(link, target);
      fs.writeFileSync(file, 'inside');
      fs.renameSync(file, target);
    }`;
  const child = spawn(process.execPath, ['-e', script, target, outside, String(flips), how], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the flipper ended before it started (${code})`)));
  });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  closers.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await ended;
  });
  return { ready, ended, child };
}

describe('the file tool while another process swaps the path', () => {
  it.each(['rename', 'unlink'] as const)('file load never returns the content of a file outside the folder (300 loads against a path flipped by %s), and refuses with a clear error', { timeout: 120_000 }, async (how) => {
    const folder = await tempDir();
    const outside = path.join(await tempDir(), 'secret.txt');
    const MARKER = 'OUTSIDE-MARKER-7f3a';
    await fs.writeFile(outside, MARKER);
    await fs.writeFile(path.join(folder, 'flip.txt'), 'inside');
    const file = await fileTool(folder, [{ pattern: '**', permission: 'ReadWrite' }]);
    const flipper = startFlipper(path.join(folder, 'flip.txt'), outside, 10_000_000, how);
    await flipper.ready;

    const LOADS = 300;
    let leaked = 0;
    let read = 0;
    let refused = 0;
    for (let i = 0; i < LOADS; i++) {
      try {
        const r = await file({ op: 'load', path: 'flip.txt' });
        if (r.content?.includes(MARKER)) leaked++;
        // 'inside', or (unlink) the file caught half-written: never the outside file.
        else read++;
      } catch (e) {
        // Our own refusal, never a raw fs error naming the path (EINVAL from a link that just went).
        expect((e as { code: string }).code).toMatch(/^(FORBIDDEN|NOT_FOUND)$/);
        refused++;
      }
    }
    expect(flipper.child.exitCode).toBeNull(); // still flipping: every load raced it
    flipper.child.kill('SIGKILL');
    await flipper.ended;
    // Loads that raced a flip are refused (the path was a link out, or changed under the open); none read outside.
    expect({ leaked, total: read + refused }).toEqual({ leaked: 0, total: LOADS });
    expect(await fs.readFile(outside, 'utf8')).toBe(MARKER);
    // Once the path holds still, the file inside loads.
    await fs.rm(path.join(folder, 'flip.txt'), { force: true });
    await fs.writeFile(path.join(folder, 'flip.txt'), 'inside');
    expect((await file({ op: 'load', path: 'flip.txt' })).content).toBe('inside');
  });
});

describe('FileSource writes while the folder is swapped', () => {
  /** A FileSource whose every write waits for consent; while it waits, `sub` is swapped for a symlink to a folder outside. */
  async function swappedWhileAsking() {
    const folder = await tempDir();
    const outside = await tempDir();
    await fs.mkdir(path.join(folder, 'sub'));
    await fs.writeFile(path.join(folder, 'sub', 'a.md'), 'inside');
    await fs.writeFile(path.join(outside, 'a.md'), 'outside');
    const consent = {
      ask: async (): Promise<ConsentAnswer> => {
        await fs.rename(path.join(folder, 'sub'), path.join(folder, 'sub-moved'));
        await fs.symlink(outside, path.join(folder, 'sub'));
        return 'allow-once';
      },
    };
    const memory = openTestMemory(await tempDir(), { consent });
    const src = new FileSource({ kind: 'files', id: 'notes', folder, rules: [{ pattern: '**', permission: 'Partner' }] }, memory);
    return { src, outside, folder };
  }

  it('create writes nothing outside when a folder of its path became a symlink out before the commit', async () => {
    const { src, outside } = await swappedWhileAsking();
    const e = await failure(src.create(userActor(), { path: 'sub/new.md', content: 'x' }, never));
    expect([e.code, e.message]).toEqual(['FORBIDDEN', "the folder of 'sub/new.md' changed (a symbolic link was swapped in?) while it was being written: nothing was written; try again"]);
    expect(await fs.readdir(outside)).toEqual(['a.md']);
  });

  it('delete removes nothing outside when the folder became a symlink out before it', async () => {
    const { src, outside, folder } = await swappedWhileAsking();
    expect((await failure(src.delete(userActor(), { path: 'sub/a.md' }, never))).code).toBe('FORBIDDEN');
    expect(await fs.readFile(path.join(outside, 'a.md'), 'utf8')).toBe('outside');
    expect(await fs.readFile(path.join(folder, 'sub-moved', 'a.md'), 'utf8')).toBe('inside');
  });
});

describe('the file tool through a symbolic link that stays inside the folder', () => {
  it('file load and save follow a file link and a folder link to the file inside; links out stay refused', async () => {
    const folder = await tempDir();
    const outside = await tempDir();
    await fs.mkdir(path.join(folder, 'notes'));
    await fs.writeFile(path.join(folder, 'notes', 'today.md'), 'first');
    await fs.writeFile(path.join(outside, 'secret.md'), 'secret');
    await fs.symlink(path.join('notes', 'today.md'), path.join(folder, 'today.md'));
    await fs.symlink(path.join(folder, 'notes'), path.join(folder, 'current'));
    await fs.symlink(path.join(outside, 'secret.md'), path.join(folder, 'notes', 'out.md'));
    const file = await fileTool(folder, [{ pattern: '**', permission: 'ReadWrite' }]);

    // Through a file link, then through a folder link: each load sees the last save.
    const steps = [
      { via: 'today.md', was: 'first', now: 'second' },
      { via: 'current/today.md', was: 'second', now: 'third' },
    ];
    for (const { via, was, now } of steps) {
      expect((await file({ op: 'load', path: via })).content, via).toBe(was);
      await file({ op: 'replace', path: via, old: was, new: now });
      expect((await file({ op: 'save', path: via })).message, via).toMatch(/^'notes\/today\.md' saved/);
      expect(await fs.readFile(path.join(folder, 'notes', 'today.md'), 'utf8'), via).toBe(now);
    }
    expect((await fs.lstat(path.join(folder, 'today.md'))).isSymbolicLink()).toBe(true);
    expect((await fs.lstat(path.join(folder, 'current'))).isSymbolicLink()).toBe(true);

    // A link out, also reached through a folder link inside, is refused as before.
    for (const p of ['notes/out.md', 'current/out.md']) {
      const e = await failure(file({ op: 'load', path: p }));
      expect([e.code, e.message], p).toEqual(['FORBIDDEN', `'${p}' leads outside the folder of source 'notes' through a symbolic link`]);
    }
    expect(await fs.readFile(path.join(outside, 'secret.md'), 'utf8')).toBe('secret');
  });
});
