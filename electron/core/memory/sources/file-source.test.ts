/**
 * FileSource: every `file` operation at every permission a rule can give (allowed, the
 * user's consent, refused), the agent's layer after the rules, first-match glob rules,
 * escapes from the folder, the external-modification conflict, and labels.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MEMORY_OPERATIONS, MEMORY_PERMISSIONS, type MemoryPermission } from '../../../../shared/model/memory';
import type { FileRule } from '../../../../shared/model/memory-sources';
import { useTempDirs } from '../../testing/temp-dir';
import type { Actor, MemoryService } from '../memory-service';
import { agentActor, FakeConsent, never, openTestMemory, userActor } from '../testing/memory-kit';
import { FileSource, MODIFIED_EXTERNALLY } from './file-source';

const tempDir = useTempDirs();

async function setup(rules: FileRule[], consent?: FakeConsent): Promise<{ folder: string; memory: MemoryService; src: FileSource; u: Actor }> {
  const folder = await tempDir();
  const memory = openTestMemory(await tempDir(), consent ? { consent } : {});
  await fs.writeFile(path.join(folder, 'a.txt'), 'hello');
  return { folder, memory, src: new FileSource({ kind: 'files', id: 'notes', folder, rules }, memory), u: userActor() };
}

const failure = (p: Promise<unknown>) => p.then(
  () => {
    throw new Error('expected a failure');
  },
  (e: { code: string; message: string }) => e,
);

type Outcome = 'allowed' | 'human' | 'refused';
/** What each op does at ReadOnly, Partner, Human, Append, ReadWrite, Admin (written out here, not read from the code). */
const EXPECTED: Record<string, Outcome[]> = {
  load: ['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'allowed'],
  create: ['refused', 'human', 'human', 'allowed', 'allowed', 'allowed'],
  append: ['refused', 'human', 'human', 'allowed', 'allowed', 'allowed'],
  save: ['refused', 'human', 'human', 'refused', 'allowed', 'allowed'],
  replace: ['refused', 'human', 'human', 'refused', 'allowed', 'allowed'],
  delete: ['refused', 'human', 'human', 'refused', 'human', 'allowed'],
};

/** Runs one op on a fresh folder (a.txt = 'hello'); answers what is on disk after it. */
async function run(op: string, src: FileSource, u: Actor, memory: MemoryService, folder: string): Promise<string | null> {
  const disk = async (rel: string) => fs.readFile(path.join(folder, rel), 'utf8').catch(() => null);
  switch (op) {
    case 'load':
      expect((await src.load(u, { path: 'a.txt' })).content).toBe('hello');
      return disk('a.txt');
    case 'create':
      await src.create(u, { path: 'sub/new.txt', content: 'fresh' }, never);
      return disk('sub/new.txt');
    case 'append':
      await src.edit(u, { op: 'append', content: 'world' }, { path: 'a.txt' }, never);
      return memory.blocks.view(u.owner, (await src.target({ path: 'a.txt' })).label).text;
    case 'replace':
      await src.edit(u, { op: 'replace', old: 'hello', new: 'bye' }, { path: 'a.txt' }, never);
      return memory.blocks.view(u.owner, (await src.target({ path: 'a.txt' })).label).text;
    case 'save': {
      const { label } = await src.load(u, { path: 'a.txt' });
      memory.blocks.edit(u.owner, label, 'replace', 'test', { size: 3, next: () => 'bye', apply: (doc) => doc.getText('content').update('bye') });
      await src.save(u, { label }, never);
      return disk('a.txt');
    }
    case 'delete':
      await src.delete(u, { path: 'a.txt' }, never);
      return disk('a.txt');
  }
  throw new Error(op);
}

const AFTER: Record<string, string | null> = { load: 'hello', create: 'fresh', append: 'hello\nworld', replace: 'bye', save: 'bye', delete: null };

describe('FileSource: every file op × every permission a rule gives', () => {
  for (const op of Object.keys(EXPECTED)) {
    MEMORY_PERMISSIONS.forEach((permission: MemoryPermission, i) => {
      const outcome = EXPECTED[op]![i]!;
      it(`${op} at ${permission}: ${outcome}`, async () => {
        if (outcome === 'allowed') {
          const { src, u, memory, folder } = await setup([{ pattern: '**', permission }]);
          expect(await run(op, src, u, memory, folder)).toBe(AFTER[op]);
          return;
        }
        if (outcome === 'refused') {
          const { src, u, memory, folder } = await setup([{ pattern: '**', permission }]);
          const e = await failure(run(op, src, u, memory, folder));
          expect(e.code).toBe('FORBIDDEN');
          expect(e.message).toMatch(new RegExp(`^refused by (file source rules: '[^']+' matches rule '\\*\\*' of source 'notes' → ${permission}|block permission: block 'file:[0-9a-f]{8}:a.txt' has permission ${permission}): .* is not possible`));
          expect(await fs.readFile(path.join(folder, 'a.txt'), 'utf8')).toBe('hello');
          return;
        }
        // human: denied, nothing changes; allowed once, it is done; no asker: consent required.
        const denied = await setup([{ pattern: '**', permission }], new FakeConsent(['deny']));
        const e = await failure(run(op, denied.src, denied.u, denied.memory, denied.folder));
        expect(e.message).toMatch(/^refused by human consent: the user denied file /);
        expect(await fs.readFile(path.join(denied.folder, 'a.txt'), 'utf8')).toBe('hello');
        const asker = new FakeConsent(['allow-once']);
        const allowed = await setup([{ pattern: '**', permission }], asker);
        expect(await run(op, allowed.src, allowed.u, allowed.memory, allowed.folder)).toBe(AFTER[op]);
        expect(asker.asked.map((a) => a.operation)).toEqual([`file.${op}`]);
        const none = await setup([{ pattern: '**', permission }]);
        expect((await failure(run(op, none.src, none.u, none.memory, none.folder))).message).toMatch(/^consent required: /);
      });
    });
  }

  it('a save that only appends counts as an append: allowed at Append; a rewrite is not', async () => {
    const { src, u, memory, folder } = await setup([{ pattern: '**', permission: 'Append' }]);
    const { label } = await src.edit(u, { op: 'append', content: 'more' }, { path: 'a.txt' }, never);
    await src.save(u, { path: 'a.txt' }, never);
    expect(await fs.readFile(path.join(folder, 'a.txt'), 'utf8')).toBe('hello\nmore');
    memory.blocks.edit(u.owner, label, 'replace', 'test', { size: 1, next: () => 'x', apply: (doc) => doc.getText('content').update('x') });
    expect((await failure(src.save(u, { path: 'a.txt' }, never))).message).toBe(
      "refused by file source rules: 'a.txt' matches rule '**' of source 'notes' → Append: it takes appends only, so file save is not possible (it needs ReadWrite or Admin)",
    );
  });
});

describe('FileSource: the two layers, rules and paths', () => {
  it("the agent's AllowedOperations come after the rules, and each refusal names its layer", async () => {
    const { src, memory, folder } = await setup([
      { pattern: 'locked/**', permission: 'ReadOnly' },
      { pattern: '**', permission: 'ReadWrite' },
    ]);
    await fs.mkdir(path.join(folder, 'locked'));
    await fs.writeFile(path.join(folder, 'locked', 'b.txt'), 'b');
    const agent = agentActor(MEMORY_OPERATIONS.filter((o) => o !== 'file.save'));
    await src.load(agent, { path: 'a.txt' });
    expect((await failure(src.save(agent, { path: 'a.txt' }, never))).message).toBe(
      'refused by agent allowed operations: the researcher agent may not use file save: it is not in its AllowedOperations (' + MEMORY_OPERATIONS.filter((o) => o !== 'file.save').join(', ') + ')',
    );
    // The rules refuse first, whatever the agent may do.
    expect((await failure(src.save(agent, { path: 'locked/b.txt' }, never))).message).toMatch(/^refused by file source rules: 'locked\/b.txt' matches rule 'locked\/\*\*' of source 'notes' → ReadOnly/);
    expect(memory.blocks.list(agent.owner).map((b) => b.permission)).toEqual(['ReadWrite']);
  });

  it('glob rules: the first match wins; a path no rule matches is refused', async () => {
    const rules: FileRule[] = [
      { pattern: 'drafts/*.md', permission: 'ReadWrite' },
      { pattern: '**/*.md', permission: 'ReadOnly' },
    ];
    const { src, u, folder } = await setup(rules);
    await fs.mkdir(path.join(folder, 'drafts'));
    await fs.writeFile(path.join(folder, 'drafts', 'x.md'), 'x');
    await fs.writeFile(path.join(folder, 'y.md'), 'y');
    await src.edit(u, { op: 'append', content: 'more' }, { path: 'drafts/x.md' }, never);
    expect((await failure(src.edit(u, { op: 'append', content: 'more' }, { path: 'y.md' }, never))).message).toMatch(/^refused by file source rules: 'y.md' matches rule '\*\*\/\*.md' of source 'notes' → ReadOnly/);
    expect((await failure(src.load(u, { path: 'a.txt' }))).message).toBe(
      "refused by file source rules: no rule of source 'notes' matches 'a.txt', so file load is not possible (rules: drafts/*.md → ReadWrite, **/*.md → ReadOnly)",
    );
    // The same rules the other way round: the broad one matches first.
    const reversed = new FileSource({ kind: 'files', id: 'notes', folder, rules: [...rules].reverse() }, openTestMemory(await tempDir()));
    expect((await failure(reversed.edit(u, { op: 'append', content: 'more' }, { path: 'drafts/x.md' }, never))).message).toMatch(/matches rule '\*\*\/\*.md'/);
  });

  it('paths never leave the folder: .., absolute paths, a symlinked file and a symlinked folder pointing outside', async () => {
    const { src, u, folder } = await setup([{ pattern: '**', permission: 'Admin' }]);
    const outside = await tempDir();
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(folder, 'link.txt'));
    await fs.symlink(outside, path.join(folder, 'linkdir'));
    const cases: [string, RegExp][] = [
      ['../secret.txt', /leads outside the folder of source 'notes' \('\.\.' may not leave it\)/],
      ['sub/../../secret.txt', /leads outside the folder of source 'notes'/],
      [path.join(outside, 'secret.txt'), /is an absolute path: give a path relative to the folder of source 'notes'/],
      ['link.txt', /leads outside the folder of source 'notes' through a symbolic link/],
      ['linkdir/secret.txt', /leads outside the folder of source 'notes' through a symbolic link/],
      ['linkdir/new.txt', /through a symbolic link/],
    ];
    for (const [p, message] of cases) {
      for (const attempt of [() => src.load(u, { path: p }), () => src.create(u, { path: p, content: 'x' }, never), () => src.delete(u, { path: p }, never)]) {
        const e = await failure(attempt());
        expect(e.code, p).toBe('FORBIDDEN');
        expect(e.message, p).toMatch(message);
      }
    }
    expect(await fs.readdir(outside)).toEqual(['secret.txt']);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    // A symlink inside the folder to a file inside it is followed (see the next tests).
    await fs.symlink(path.join(folder, 'a.txt'), path.join(folder, 'alias.txt'));
    expect((await src.load(u, { path: 'alias.txt' })).content).toBe('hello');
    expect((await src.load(u, { path: 'a.txt' })).content).toBe('hello');
  });

  it('a symbolic link that stays inside is followed: load and save through a file link and a folder link act on the file it leads to', async () => {
    const { src, u, memory, folder } = await setup([{ pattern: '**', permission: 'ReadWrite' }]);
    await fs.mkdir(path.join(folder, 'real'));
    await fs.writeFile(path.join(folder, 'real', 'b.md'), 'bee');
    await fs.symlink('a.txt', path.join(folder, 'alias.txt'));
    await fs.symlink('real', path.join(folder, 'lnk'));

    // A file link: the file it leads to is loaded, named by its own path, into that file's block.
    const loaded = await src.load(u, { path: 'alias.txt' });
    expect(loaded).toMatchObject({ path: 'a.txt', content: 'hello' });
    expect(loaded.message).toMatch(/^'a\.txt' \(reached through the symbolic link 'alias\.txt'\) loaded into block/);
    expect(loaded.label).toBe((await src.target({ path: 'a.txt' })).label);
    await src.edit(u, { op: 'append', content: 'world' }, { path: 'alias.txt' }, never);
    const edited = memory.blocks.view(u.owner, loaded.label).text;
    expect(edited).toMatch(/^hello\s*world$/);
    expect((await src.save(u, { path: 'alias.txt' }, never)).message).toBe(`'a.txt' saved (${edited.length} characters)`);
    expect(await fs.readFile(path.join(folder, 'a.txt'), 'utf8')).toBe(edited);
    expect((await fs.lstat(path.join(folder, 'alias.txt'))).isSymbolicLink()).toBe(true);
    // Loaded and saved through the link, saved again by its own name: one file, one block.
    expect((await src.save(u, { path: 'a.txt' }, never)).message).toBe("'a.txt' was already as the block has it; nothing to write");

    // A folder link.
    const viaFolder = await src.load(u, { path: 'lnk/b.md' });
    expect(viaFolder).toMatchObject({ path: 'real/b.md', content: 'bee' });
    await src.edit(u, { op: 'replace', old: 'bee', new: 'wasp' }, { path: 'lnk/b.md' }, never);
    await src.save(u, { path: 'lnk/b.md' }, never);
    expect(await fs.readFile(path.join(folder, 'real', 'b.md'), 'utf8')).toBe('wasp');
    expect((await fs.lstat(path.join(folder, 'lnk'))).isSymbolicLink()).toBe(true);
    // A new file through the folder link lands where the link leads.
    await src.create(u, { path: 'lnk/new.md', content: 'fresh' }, never);
    expect(await fs.readFile(path.join(folder, 'real', 'new.md'), 'utf8')).toBe('fresh');

    // Delete through a link is refused: it would remove the file the link leads to.
    const del = await failure(src.delete(u, { path: 'alias.txt' }, never));
    expect([del.code, del.message]).toEqual([
      'FORBIDDEN',
      "'alias.txt' goes through a symbolic link in the folder of source 'notes': delete would remove 'a.txt', the file it leads to, not the link; to delete that file, name it by its own path, 'a.txt'",
    ]);
    expect(await fs.readFile(path.join(folder, 'a.txt'), 'utf8')).toBe(edited);
    // A link to the folder itself names no file.
    await fs.symlink('.', path.join(folder, 'self'));
    expect((await failure(src.load(u, { path: 'self' }))).message).toBe("'self' is the folder of source 'notes' itself: name a file inside it");
  });

  it('a link inside the folder never gets around the rules, and delete never removes what a link points to', async () => {
    const { src, u, folder } = await setup([
      { pattern: 'secret/**', permission: 'ReadOnly' },
      { pattern: '**', permission: 'Admin' },
    ]);
    await fs.mkdir(path.join(folder, 'secret'));
    await fs.mkdir(path.join(folder, 'public'));
    await fs.writeFile(path.join(folder, 'secret', 's.md'), 'classified');
    await fs.symlink(path.join('..', 'secret', 's.md'), path.join(folder, 'public', 'link.md'));
    // The link is followed, and the rules judge the file it leads to (secret/s.md: ReadOnly).
    for (const attempt of [
      () => src.edit(u, { op: 'append', content: ' leaked' }, { path: 'public/link.md' }, never),
      () => src.save(u, { path: 'public/link.md' }, never),
    ]) {
      const e = await failure(attempt());
      expect(e.code).toBe('FORBIDDEN');
      expect(e.message).toMatch(/^refused by file source rules: 'secret\/s\.md' matches rule 'secret\/\*\*' of source 'notes' → ReadOnly/);
    }
    const del = await failure(src.delete(u, { path: 'public/link.md' }, never));
    expect(del.code).toBe('FORBIDDEN');
    expect(del.message).toMatch(/goes through a symbolic link .*'secret\/s\.md'/);
    // Reading it through the link is what ReadOnly allows.
    expect((await src.load(u, { path: 'public/link.md' })).content).toBe('classified');
    expect(await fs.readFile(path.join(folder, 'secret', 's.md'), 'utf8')).toBe('classified');
    expect((await fs.lstat(path.join(folder, 'public', 'link.md'))).isSymbolicLink()).toBe(true);
  });

  it(`save refuses with "${MODIFIED_EXTERNALLY}" when the disk changed since load; a load refreshes`, async () => {
    const { src, u, memory, folder } = await setup([{ pattern: '**', permission: 'ReadWrite' }]);
    const file = path.join(folder, 'a.txt');
    const { label } = await src.edit(u, { op: 'append', content: 'mine' }, { path: 'a.txt' }, never);
    await fs.writeFile(file, 'theirs');
    const e = await failure(src.save(u, { path: 'a.txt' }, never));
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toBe('file modified externally, use `file load` to refresh');
    expect(await fs.readFile(file, 'utf8')).toBe('theirs');
    // Deleted meanwhile: the same.
    await src.load(u, { path: 'a.txt' });
    await fs.rm(file);
    expect((await failure(src.save(u, { label }, never))).message).toBe(MODIFIED_EXTERNALLY);
    await fs.writeFile(file, 'theirs');
    expect((await src.load(u, { path: 'a.txt' })).content).toBe('theirs');
    // Only the mtime changed: not a conflict.
    await fs.utimes(file, new Date('2030-01-01'), new Date('2030-01-01'));
    await src.edit(u, { op: 'replace', old: 'theirs', new: 'ours' }, { label }, never);
    await src.save(u, { label }, never);
    expect(await fs.readFile(file, 'utf8')).toBe('ours');
    expect(memory.blocks.history(u.owner, label).map((v) => v.op)).toEqual(['create', 'append', 'load', 'replace']);
  });

  it('labels are file:{hash8}:{path} with the hash of the real absolute path: two folders never share a block', async () => {
    const one = await setup([{ pattern: '**', permission: 'ReadWrite' }]);
    const other = new FileSource({ kind: 'files', id: 'other', folder: await tempDir(), rules: [{ pattern: '**', permission: 'ReadWrite' }] }, one.memory);
    await fs.writeFile(path.join(other.config.folder, 'a.txt'), 'other');
    const a = await one.src.load(one.u, { path: 'a.txt' });
    const b = await other.load(one.u, { path: 'a.txt' });
    const real = await fs.realpath(path.join(one.folder, 'a.txt'));
    expect(a.label).toBe(`file:${createHash('sha256').update(real).digest('hex').slice(0, 8)}:a.txt`);
    expect(b.label).not.toBe(a.label);
    expect(one.memory.blocks.view(one.u.owner, b.label).text).toBe('other');
    expect(await one.src.owns(b.label)).toBe(false);
    expect((await failure(one.src.save(one.u, { label: b.label }, never))).code).toBe('NOT_FOUND');
  });

  it('create refuses an existing file; delete removes the file and its block', async () => {
    const { src, u, memory, folder } = await setup([{ pattern: '**', permission: 'Admin' }]);
    expect((await failure(src.create(u, { path: 'a.txt', content: 'x' }, never))).message).toBe("'a.txt' already exists: use `file load` to edit it");
    const { label } = await src.load(u, { path: 'a.txt' });
    const r = await src.delete(u, { path: 'a.txt' }, never);
    expect(r.message).toBe(`'a.txt' deleted, and its block '${label}' removed`);
    expect(memory.blocks.has(u.owner, label)).toBe(false);
    expect(await fs.readdir(folder)).toEqual([]);
    expect((await failure(src.delete(u, { path: 'a.txt' }, never))).code).toBe('NOT_FOUND');
  });
});
