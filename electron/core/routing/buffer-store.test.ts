import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../events';
import { appError } from '../builtin-functions/test-context';
import { useTempDirs } from '../testing/temp-dir';
import { FileBufferStore, type FileBufferStoreOptions } from './buffer-store';
import { BUFFER_READ_MAX_CHARS, BUFFER_READ_MAX_LINES, BUFFERS_PER_OWNER_MAX } from './limits';

const tempDir = useTempDirs();
const stores: FileBufferStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

let clock = Date.parse('2026-01-01T00:00:00Z');
const now = () => new Date((clock += 1000));

async function setup(over: Partial<FileBufferStoreOptions> = {}) {
  const dataDir = await tempDir();
  const ws = await tempDir();
  const events = new EventBus();
  const changes: { ownerId: string; names: string[] }[] = [];
  events.on('buffers.changed', (p) => changes.push(p));
  const make = () => {
    const s = new FileBufferStore({ dataDir, workspaceDir: () => ws, now, events, ...over });
    stores.push(s);
    return s;
  };
  return { store: make(), make, dataDir, ws, changes, ownerDir: path.join(dataDir, 'buffers', 'conv-1') };
}

/** What a read of lines s..e must return: the exact slice from the start of line s to the start of line e + 1. */
function lineSlice(content: string, s: number, e: number): string {
  const starts = [0];
  for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) starts.push(i + 1);
  return content.slice(starts[s - 1], starts[e] ?? content.length);
}

describe('FileBufferStore: writes', () => {
  it('appends with a single "\\n" only where needed, and counts chars, bytes and lines', async () => {
    const { store, changes } = await setup();
    const a = await store.write('conv-1', 'results', 'héllo', 'append', 'tool:readfile');
    expect(a).toMatchObject({ name: 'results', info: { ownerId: 'conv-1', name: 'results', chars: 5, bytes: 6, lines: 1, source: 'tool:readfile' } });
    await store.write('conv-1', 'results', 'world\n', 'append', 'tool:grep');
    await store.write('conv-1', 'results', '😀', 'append', 'tool:grep');
    await store.write('conv-1', 'results', '', 'append', 'tool:grep');
    const info = await store.info('conv-1', 'results');
    expect(info).toMatchObject({ chars: 14, bytes: 17, lines: 3, source: 'tool:grep' });
    expect(info.createdAt < info.updatedAt).toBe(true);
    expect(await store.readAll('conv-1', 'results')).toBe('héllo\nworld\n😀');
    expect(changes).toEqual(Array.from({ length: 4 }, () => ({ ownerId: 'conv-1', names: ['results'] })));
  });

  it('replace overwrites and keeps createdAt; new numbers the name', async () => {
    const { store } = await setup();
    const first = await store.write('conv-1', 'r', 'one', 'new', 's');
    expect(first.name).toBe('r');
    const replaced = await store.write('conv-1', 'r', 'two', 'replace', 's');
    expect(replaced.info.createdAt).toBe(first.info.createdAt);
    expect(await store.readAll('conv-1', 'r')).toBe('two');
    expect((await store.write('conv-1', 'r', 'three', 'new', 's')).name).toBe('r-2');
    expect((await store.write('conv-1', 'r', 'four', 'new', 's')).name).toBe('r-3');
    expect((await store.write('conv-1', 'data.json', '{}', 'new', 's')).name).toBe('data.json');
    expect((await store.write('conv-1', 'data.json', '[]', 'new', 's')).name).toBe('data-2.json');
    expect((await store.list('conv-1')).map((b) => b.name)).toEqual(['data-2.json', 'data.json', 'r', 'r-2', 'r-3']);
    expect(await store.readAll('conv-1', 'r-3')).toBe('four');
  });

  it('keeps names that differ only in letter case apart, and never uses a raw name as a file name', async () => {
    const { store, ownerDir } = await setup();
    await store.write('conv-1', 'Results', 'upper', 'replace', 's');
    await store.write('conv-1', 'results', 'lower', 'replace', 's');
    expect(await store.readAll('conv-1', 'Results')).toBe('upper');
    expect(await store.readAll('conv-1', 'results')).toBe('lower');
    const files = await fs.readdir(ownerDir);
    expect(files.map((f) => f.toLowerCase()).length).toBe(new Set(files.map((f) => f.toLowerCase())).size);
    expect((await store.list('conv-1')).map((b) => b.name)).toEqual(['Results', 'results']);
  });

  it('refuses bad names, owner ids, modes and content before touching the disk', async () => {
    const { store, dataDir } = await setup();
    for (const name of ['../x', '.hidden', '-x', 'a/b', 'a\\b', '', 'x'.repeat(129), 'con ', 'é']) {
      expect((await appError(store.write('conv-1', name, 'x', 'append', 's'))).code, name).toBe('VALIDATION_FAILED');
    }
    for (const owner of ['..', '../x', 'a/b', '', '.x', 'x'.repeat(200)]) {
      expect((await appError(store.write(owner, 'ok', 'x', 'append', 's'))).code, owner).toBe('VALIDATION_FAILED');
      expect((await appError(store.list(owner))).code, owner).toBe('VALIDATION_FAILED');
    }
    expect((await appError(store.write('conv-1', 'ok', 'x', 'sideways' as 'append', 's'))).code).toBe('VALIDATION_FAILED');
    expect((await appError(store.write('conv-1', 'ok', 7 as unknown as string, 'append', 's'))).code).toBe('VALIDATION_FAILED');
    expect(await fs.readdir(dataDir)).toEqual([]);
  });

  it('refuses a new buffer once the owner has the most it may have, but still writes existing ones', async () => {
    const { store, ownerDir } = await setup();
    await store.write('conv-1', 'kept', 'x', 'append', 's');
    await Promise.all(Array.from({ length: BUFFERS_PER_OWNER_MAX - 1 }, (_, i) => fs.writeFile(path.join(ownerDir, `buf-filler${i}.txt`), '')));
    const e = await appError(store.write('conv-1', 'one-more', 'x', 'append', 's'));
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(e.message).toMatch(/1,000 buffers/);
    expect((await store.write('conv-1', 'kept', 'y', 'append', 's')).info.lines).toBe(2);
    expect((await appError(store.write('conv-1', 'kept', 'z', 'new', 's'))).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('serialises parallel appends: nothing is lost and the index agrees with a rebuild', async () => {
    const { store, make, ownerDir } = await setup();
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.write('conv-1', 'log', `entry ${i} ${'x'.repeat(i * 1000)}`, 'append', 's')));
    const text = await store.readAll('conv-1', 'log');
    const lines = text.split('\n');
    expect(lines).toHaveLength(30);
    expect(new Set(lines.map((l) => l.split(' ')[1])).size).toBe(30);
    const before = await store.info('conv-1', 'log');
    await fs.rm(path.join(ownerDir, 'buf-log.meta.json'));
    const again = await make().info('conv-1', 'log');
    expect({ ...again, createdAt: '', updatedAt: '', source: '' }).toEqual({ ...before, createdAt: '', updatedAt: '', source: '' });
  });
});

describe('FileBufferStore: reads by range', () => {
  it('reads line ranges and character ranges as exact slices, with line numbers', async () => {
    const { store } = await setup();
    const content = 'one\ntwo\r\nthree é\n😀 four\nfive';
    await store.write('conv-1', 'b', content, 'replace', 's');
    expect(await store.read('conv-1', 'b', { startLine: 2, endLine: 3 })).toEqual({ text: 'two\r\nthree é\n', offset: 4, startLine: 2, endLine: 3, totalChars: content.length, totalLines: 5 });
    // An end past the last line is clamped; the range says what it holds.
    expect(await store.read('conv-1', 'b', { startLine: 4, endLine: 99 })).toMatchObject({ text: '😀 four\nfive', startLine: 4, endLine: 5 });
    expect(await store.read('conv-1', 'b', { offset: 5, length: 10 })).toMatchObject({ text: content.slice(5, 15), offset: 5, startLine: 2, endLine: 3 });
    expect(await store.read('conv-1', 'b', { offset: content.length - 2, length: 100 })).toMatchObject({ text: 've', startLine: 5, endLine: 5 });
  });

  it('reads any range of a buffer with many checkpoints, matching the content', async () => {
    const { store, make, ownerDir } = await setup();
    let content = '';
    let i = 0;
    while (content.length < 600_000) {
      const line = `${i} ${'é😀ab'.repeat(i % 37)}${i % 101 === 0 ? 'x'.repeat(70_000) : ''}\n`;
      content += line;
      i++;
    }
    // Written in parts (each ending a line) so the index grows by appends.
    let part = '';
    for (const line of content.split(/(?<=\n)/)) {
      part += line;
      if (part.length > 123_457) {
        await store.write('conv-1', 'big', part, 'append', 's');
        part = '';
      }
    }
    if (part) await store.write('conv-1', 'big', part, 'append', 's');
    expect(await store.readAll('conv-1', 'big')).toBe(content);
    const total = content.split('\n').length - 1;
    const check = async (s: FileBufferStore) => {
      for (const [a, b] of [[1, 1], [2, 40], [total - 3, total], [total, total], [101, 103], [500, 700], [Math.floor(total / 2), Math.floor(total / 2) + 10]] as const) {
        const r = await s.read('conv-1', 'big', { startLine: a, endLine: b });
        expect(r.text, `${a}-${b}`).toBe(lineSlice(content, a, b));
        expect(r.offset).toBe(content.indexOf(r.text));
      }
      for (const [o, n] of [[0, 10], [77_777, 5000], [content.length - 1, 5], [300_001, 65_536]] as const) {
        const r = await s.read('conv-1', 'big', { offset: o, length: n });
        expect(r.text).toBe(content.slice(o, o + n));
        expect(r.startLine).toBe(content.slice(0, o).split('\n').length);
      }
    };
    await check(store);
    // The same through a rebuilt index.
    await fs.rm(path.join(ownerDir, 'buf-big.meta.json'));
    await check(make());
  });

  it('refuses a missing range, a range past the end and a range over the limits, saying how to ask', async () => {
    const { store } = await setup();
    await store.write('conv-1', 'b', 'a\nb\nc\n', 'replace', 's');
    const e1 = await appError(store.read('conv-1', 'b', {}));
    expect(e1.code).toBe('VALIDATION_FAILED');
    expect(e1.message).toMatch(/never whole.*startLine and endLine.*offset and length/);
    expect((await appError(store.read('conv-1', 'b', { startLine: 1 }))).message).toMatch(/endLine is missing/);
    expect((await appError(store.read('conv-1', 'b', { offset: 1 }))).message).toMatch(/length is missing/);
    expect((await appError(store.read('conv-1', 'b', { startLine: 1, endLine: 2, offset: 0, length: 1 }))).message).toMatch(/not both/);
    expect((await appError(store.read('conv-1', 'b', { startLine: 4, endLine: 5 }))).message).toMatch(/past the end.*3 lines/);
    expect((await appError(store.read('conv-1', 'b', { startLine: 3, endLine: 2 }))).message).toMatch(/before startLine/);
    expect((await appError(store.read('conv-1', 'b', { offset: 6, length: 1 }))).message).toMatch(/past the end.*6 characters/);
    expect((await appError(store.read('conv-1', 'b', { startLine: 1, endLine: BUFFER_READ_MAX_LINES + 1 }))).message).toMatch(/at most 5,000/);
    expect((await appError(store.read('conv-1', 'b', { offset: 0, length: BUFFER_READ_MAX_CHARS + 1 }))).message).toMatch(/at most 1,048,576 characters/);
    expect((await appError(store.read('conv-1', 'missing', { offset: 0, length: 1 }))).code).toBe('NOT_FOUND');
    // Few lines but too many characters.
    await store.write('conv-1', 'wide', `${'x'.repeat(BUFFER_READ_MAX_CHARS)}\nsecond\n`, 'replace', 's');
    expect((await appError(store.read('conv-1', 'wide', { startLine: 1, endLine: 2 }))).message).toMatch(/hold 1,048,584 characters.*fewer lines/);
    expect((await store.read('conv-1', 'wide', { startLine: 2, endLine: 2 })).text).toBe('second\n');
  });

  it('reads an empty buffer at its start', async () => {
    const { store } = await setup();
    await store.write('conv-1', 'e', '', 'replace', 's');
    expect(await store.read('conv-1', 'e', { startLine: 1, endLine: 10 })).toEqual({ text: '', offset: 0, startLine: 1, endLine: 0, totalChars: 0, totalLines: 0 });
    expect((await store.read('conv-1', 'e', { offset: 0, length: 10 })).text).toBe('');
  });

  it('readAll refuses a buffer over its limit with PAYLOAD_TOO_LARGE', async () => {
    const { store } = await setup({ readAllMaxChars: 10 });
    await store.write('conv-1', 'b', '0123456789', 'replace', 's');
    expect(await store.readAll('conv-1', 'b')).toBe('0123456789');
    await store.write('conv-1', 'b', 'x', 'append', 's');
    const e = await appError(store.readAll('conv-1', 'b'));
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(e.message).toMatch(/by range/);
  });
});

describe('FileBufferStore: the sidecar', () => {
  it('is rebuilt when corrupt, missing or stale, keeping what it can', async () => {
    const { store, make, ownerDir } = await setup();
    await store.write('conv-1', 'b', 'one\ntwo\n', 'replace', 'tool:x');
    const meta = path.join(ownerDir, 'buf-b.meta.json');
    // Content changed behind the store's back: stale, rebuilt; what the sidecar knew is kept.
    await fs.appendFile(path.join(ownerDir, 'buf-b.txt'), 'three');
    const s2 = make();
    expect(await s2.info('conv-1', 'b')).toMatchObject({ chars: 13, lines: 3, source: 'tool:x' });
    expect((await s2.read('conv-1', 'b', { startLine: 3, endLine: 3 })).text).toBe('three');
    expect(JSON.parse(await fs.readFile(meta, 'utf8'))).toMatchObject({ chars: 13, newlines: 2, source: 'tool:x' });
    await fs.writeFile(meta, '{ not json');
    expect(await make().info('conv-1', 'b')).toMatchObject({ chars: 13, lines: 3, source: 'unknown' });
    await fs.rm(meta);
    expect(await make().info('conv-1', 'b')).toMatchObject({ chars: 13, lines: 3, source: 'unknown' });
  });
});

describe('FileBufferStore: delete, export, list', () => {
  it('deletes a buffer and all of an owner, telling listeners', async () => {
    const { store, changes, ownerDir } = await setup();
    await store.write('conv-1', 'a', 'x', 'append', 's');
    await store.write('conv-1', 'b', 'y', 'append', 's');
    await store.write('conv-2', 'c', 'z', 'append', 's');
    changes.length = 0;
    await store.delete('conv-1', 'a');
    expect((await appError(store.delete('conv-1', 'a'))).code).toBe('NOT_FOUND');
    expect((await appError(store.info('conv-1', 'a'))).code).toBe('NOT_FOUND');
    await store.deleteOwner('conv-1');
    expect(await store.list('conv-1')).toEqual([]);
    await expect(fs.stat(ownerDir)).rejects.toThrow();
    expect((await store.list('conv-2')).map((b) => b.name)).toEqual(['c']);
    expect(changes).toEqual([
      { ownerId: 'conv-1', names: ['a'] },
      { ownerId: 'conv-1', names: ['b'] },
    ]);
  });

  it('a write for a deleted owner fails and leaves no folder behind, even one waiting for the lock when the delete came', async () => {
    const { store, ownerDir: dir } = await setup();
    await store.write('conv-1', 'a', 'one', 'replace', 's');
    const queued = store.write('conv-1', 'b', 'late', 'append', 's');
    const deleted = store.deleteOwner('conv-1');
    const late = store.write('conv-1', 'c', 'later', 'append', 's');
    const results = await Promise.allSettled([queued, deleted, late]);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { code: 'NOT_FOUND' } });
    expect(results[1]!.status).toBe('fulfilled');
    const e = await appError(store.write('conv-1', 'd', 'x', 'new', 's'));
    expect([e.code, e.message]).toEqual(['NOT_FOUND', 'the conversation was deleted']);
    expect(results[2]).toMatchObject({ status: 'rejected', reason: { code: 'NOT_FOUND' } });
    await expect(fs.stat(dir)).rejects.toThrow();
    // Other owners are untouched.
    await store.write('conv-2', 'a', 'x', 'append', 's');
    expect((await store.list('conv-2')).map((b) => b.name)).toEqual(['a']);
  });

  it('an append past the size limit is measured in bytes, separator included, and refused before writing', async () => {
    const { store } = await setup({ maxBytes: 10 });
    await store.write('o', 'b', 'abc', 'replace', 's');
    // 4 characters but 8 bytes, plus the separator: 3 + 1 + 8 = 12 bytes.
    const e = await appError(store.write('o', 'b', 'éééé', 'append', 's'));
    expect([e.code, e.message]).toEqual(['PAYLOAD_TOO_LARGE', "buffer 'b' would hold 12 bytes or more: a buffer may hold at most 10 bytes"]);
    expect(await store.readAll('o', 'b')).toBe('abc');
    // 3 + 1 + 6 = 10 bytes: at the limit it goes through.
    await store.write('o', 'b', 'ééé', 'append', 's');
    expect((await store.info('o', 'b')).bytes).toBe(10);
  });

  it('exports to a workspace file with the write modes, confined to the workspace', async () => {
    const { store, ws } = await setup();
    const content = `${'é'.repeat(2_000_000)}\nend`;
    await store.write('conv-1', 'big', content, 'replace', 's');
    expect(await store.export('conv-1', 'big', 'out/big.md', 'replace')).toEqual({ path: 'out/big.md', chars: content.length });
    expect(await fs.readFile(path.join(ws, 'out/big.md'), 'utf8')).toBe(content);
    await store.write('conv-1', 'small', 'tail', 'replace', 's');
    await store.export('conv-1', 'small', 'out/big.md', 'append');
    expect((await fs.readFile(path.join(ws, 'out/big.md'), 'utf8')).endsWith('end\ntail')).toBe(true);
    expect((await store.export('conv-1', 'small', 'out/big.md', 'new')).path).toBe('out/big-2.md');
    expect((await appError(store.export('conv-1', 'small', '../escape.md', 'replace'))).code).toBe('FORBIDDEN');
    expect((await appError(store.export('conv-1', 'nope', 'x.md', 'replace'))).code).toBe('NOT_FOUND');
  });

  it('lists buffers of an owner by name, and none for an unknown owner', async () => {
    const { store } = await setup();
    expect(await store.list('nobody')).toEqual([]);
    await store.write('conv-1', 'zeta', 'z', 'append', 's');
    await store.write('conv-1', 'alpha', 'a\nb', 'append', 's');
    expect((await store.list('conv-1')).map((b) => [b.name, b.lines])).toEqual([
      ['alpha', 2],
      ['zeta', 1],
    ]);
  });
});

describe('FileBufferStore: a read sees the buffer as it was when it started', () => {
  // The old content: numbered lines over many checkpoints. The new one: other lines, longer,
  // so the old index over the new bytes would give other text, other line numbers and
  // bytes past the old size.
  const oldText = Array.from({ length: 3000 }, (_, i) => `old ${i + 1} ${'x'.repeat(40)}\n`).join('');
  const newText = Array.from({ length: 6000 }, (_, i) => `NEW-${i + 1}-${'é'.repeat(i % 7)}\n`).join('');

  /** A store whose next read, once it has its snapshot, finds the buffer replaced by newText. */
  async function racing() {
    let armed = false;
    let replaced = 0;
    const ctx = await setup({
      searchWindowBytes: 4096,
      afterSnapshot: async (ownerId, name) => {
        if (!armed) return;
        armed = false;
        await ctx.store.write(ownerId, name, newText, 'replace', 'racer');
        replaced++;
      },
    });
    const next = async () => {
      await ctx.store.write('conv-1', 'big', oldText, 'replace', 's');
      armed = true;
    };
    return { ...ctx, next, replaced: () => replaced };
  }

  it('read, readAll and export return only the old content when a replace lands mid-read', async () => {
    const { store, ws, next, replaced } = await racing();

    await next();
    expect(await store.read('conv-1', 'big', { startLine: 2000, endLine: 2002 })).toEqual({
      text: lineSlice(oldText, 2000, 2002),
      offset: oldText.indexOf('old 2000 '),
      startLine: 2000,
      endLine: 2002,
      totalChars: oldText.length,
      totalLines: 3000,
    });
    await next();
    const at = oldText.length - 120;
    expect(await store.read('conv-1', 'big', { offset: at, length: 500 })).toMatchObject({ text: oldText.slice(at), offset: at, endLine: 3000, totalLines: 3000 });
    await next();
    expect(await store.readAll('conv-1', 'big')).toBe(oldText);
    await next();
    expect(await store.export('conv-1', 'big', 'snap.md', 'replace')).toEqual({ path: 'snap.md', chars: oldText.length });
    expect(await fs.readFile(path.join(ws, 'snap.md'), 'utf8')).toBe(oldText);

    // Each replace did land, and later reads see it.
    expect(replaced()).toBe(4);
    expect(await store.readAll('conv-1', 'big')).toBe(newText);
  });

  it('search finds only the old content, with its line numbers and context, when a replace lands mid-search', async () => {
    const { store, next, replaced } = await racing();
    const line = (n: number) => `old ${n} ${'x'.repeat(40)}`;

    await next();
    const bytes = await store.search('conv-1', 'big', { query: 'old 2999 ', contextLines: 1 });
    expect(bytes).toEqual({ matches: [{ line: 2999, column: 0, length: 9, text: line(2999), before: [line(2998)], after: [line(3000)] }], more: false, scannedChars: oldText.length });
    await next();
    const re = await store.search('conv-1', 'big', { query: '^old 15\\d\\d x', regex: true, maxMatches: 3 });
    expect(re.matches.map((m) => [m.line, m.text])).toEqual([1500, 1501, 1502].map((n) => [n, line(n)]));
    await next();
    const ci = await store.search('conv-1', 'big', { query: 'OLD 3000 X', caseSensitive: false });
    expect(ci.matches.map((m) => m.line)).toEqual([3000]);
    await next();
    expect((await store.search('conv-1', 'big', { query: 'NEW-' })).matches).toEqual([]);

    expect(replaced()).toBe(4);
    expect((await store.search('conv-1', 'big', { query: 'NEW-6000-' })).matches.map((m) => m.line)).toEqual([6000]);
  });

  it('a buffer deleted mid-read is still read whole from the snapshot', async () => {
    let armed = true;
    const ctx = await setup({
      afterSnapshot: async (ownerId, name) => {
        if (!armed) return;
        armed = false;
        await ctx.store.delete(ownerId, name);
      },
    });
    await ctx.store.write('conv-1', 'gone', oldText, 'replace', 's');
    expect(await ctx.store.readAll('conv-1', 'gone')).toBe(oldText);
    expect((await appError(ctx.store.readAll('conv-1', 'gone'))).code).toBe('NOT_FOUND');
  });
});
