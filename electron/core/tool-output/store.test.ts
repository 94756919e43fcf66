import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { isHandle, MARKER_FILE, ToolOutputStore } from './store';
import { estimateCounter } from '../llm/tokens';

const tempDir = useTempDirs();

async function newStore(pid?: number) {
  const base = await tempDir();
  return { base, store: new ToolOutputStore({ baseDir: () => base, tokens: estimateCounter, ...(pid ? { pid } : {}) }) };
}

describe('ToolOutputStore', () => {
  it('stores the exact bytes under a UUID file name in the session folder, with counts', async () => {
    const { base, store } = await newStore();
    const text = 'héllo\nwörld\nlast line without newline';
    const o = await store.put('conv-1', text, { toolName: 'readfile', argsJson: '{"path":"a.txt"}' });
    expect(isHandle(o.handle)).toBe(true);
    const file = path.join(base, 'toolsmith-conv-1', o.handle);
    expect(await fs.readFile(file, 'utf8')).toBe(text);
    expect(o).toMatchObject({ bytes: Buffer.byteLength(text), lines: 3, chars: text.length, toolName: 'readfile', argsJson: '{"path":"a.txt"}', tokensExact: false });
    expect(o.tokens).toBe(Math.ceil(Buffer.byteLength(text) / 4));
    expect(store.isEmpty('conv-1')).toBe(false);
    expect(store.isEmpty('conv-2')).toBe(true);
  });

  it('streams chunks to disk (multi-byte characters split across chunks) and keeps the bytes exact', async () => {
    const { store } = await newStore();
    const line = 'ünïcødé line ✓ — 0123456789\n';
    const whole = Buffer.from(line.repeat(20_000));
    async function* pieces() {
      for (let i = 0; i < whole.length; i += 7777) yield whole.subarray(i, Math.min(whole.length, i + 7777));
    }
    const o = await store.put('s', pieces(), { toolName: 't', argsJson: '{}' });
    const back = await fs.readFile(store.filePath(o));
    expect(back.equals(whole)).toBe(true);
    expect(o.lines).toBe(20_000);
    expect(o.bytes).toBe(whole.length);
    expect(o.checkpoints.length).toBeGreaterThan(0);
  });

  it('ends a session by removing its folder and forgetting its handles', async () => {
    const { base, store } = await newStore();
    const o = await store.put('c', 'x'.repeat(10), { toolName: 't', argsJson: '{}' });
    await store.endSession('c');
    await expect(fs.stat(path.join(base, 'toolsmith-c'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => store.require(o.handle)).toThrow(/no stored tool output has the handle/);
  });

  it('removes every folder it made on close (exit)', async () => {
    const { base, store } = await newStore();
    await store.put('a', 'one', { toolName: 't', argsJson: '{}' });
    await store.put('b', 'two', { toolName: 't', argsJson: '{}' });
    await store.close();
    expect((await fs.readdir(base)).filter((n) => n.startsWith('toolsmith-'))).toEqual([]);
  });

  it('sweeps at start the folders of a process that is gone, and leaves the rest', async () => {
    const base = await tempDir();
    // A process that has exited: its pid is free.
    const child = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)));
    const mk = async (name: string, marker?: object) => {
      await fs.mkdir(path.join(base, name));
      await fs.writeFile(path.join(base, name, 'f'), 'data');
      if (marker) await fs.writeFile(path.join(base, name, MARKER_FILE), JSON.stringify(marker));
    };
    await mk('toolsmith-dead', { pid: deadPid });
    await mk('toolsmith-alive', { pid: process.ppid });
    await mk('toolsmith-test-abc'); // no marker: not ours
    await mk('other-folder', { pid: deadPid });
    const store = new ToolOutputStore({ baseDir: () => base, tokens: estimateCounter });
    expect(await store.sweep()).toBe(1);
    expect((await fs.readdir(base)).sort()).toEqual(['other-folder', 'toolsmith-alive', 'toolsmith-test-abc']);
  });

  it('refuses an unknown handle and a handle of another session clearly', async () => {
    const { store } = await newStore();
    const o = await store.put('a', 'one', { toolName: 't', argsJson: '{}' });
    expect(() => store.require('not-a-handle')).toThrow(/no stored tool output has the handle "not-a-handle"/);
    expect(() => store.require(o.handle, 'b')).toThrow(/unknown, or its conversation's session ended/);
    expect(store.require(o.handle, 'a').handle).toBe(o.handle);
  });

  it('a cancelled put leaves no file behind', async () => {
    const { base, store } = await newStore();
    const ac = new AbortController();
    async function* pieces() {
      yield 'first part\n';
      ac.abort();
      yield 'second part\n';
    }
    await expect(store.put('c', pieces(), { toolName: 't', argsJson: '{}' }, ac.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect((await fs.readdir(path.join(base, 'toolsmith-c'))).filter((n) => n !== MARKER_FILE)).toEqual([]);
    expect(store.isEmpty('c')).toBe(true);
  });
});

describe('ToolOutputStore, hard cases', () => {
  it('keeps its line index on the real bytes when the output is not valid UTF-8', async () => {
    const { store } = await newStore();
    // Latin-1 bytes (é = 0xe9 alone is not UTF-8), many lines, written in odd-sized chunks.
    const lines = Array.from({ length: 30_000 }, (_, i) => `caf\u00e9 line ${i}\n`);
    const bytes = Buffer.from(lines.join(''), 'latin1');
    async function* pieces() {
      for (let i = 0; i < bytes.length; i += 4099) yield bytes.subarray(i, i + 4099);
    }
    const o = await store.put('c', pieces(), { toolName: 't', argsJson: '{}' });
    expect(o.bytes).toBe(bytes.length);
    expect(o.lines).toBe(30_000);
    const { readLineRange } = await import('../routing/buffer-index');
    const { asMeta } = await import('./read-grep');
    const fh = await fs.open(store.filePath(o), 'r');
    try {
      const r = await readLineRange(fh, asMeta(o), 25_001, 25_001, 'test');
      expect(r.text).toBe('caf\ufffd line 25000\n');
    } finally {
      await fh.close();
    }
  });

  it('stores nothing more for a session that ended (its conversation was deleted)', async () => {
    const { base, store } = await newStore();
    await store.put('gone', 'one', { toolName: 't', argsJson: '{}' });
    await store.endSession('gone');
    await expect(store.put('gone', 'two', { toolName: 't', argsJson: '{}' })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(() => store.beginSync('gone', { toolName: 't', argsJson: '{}' })).toThrow(/was deleted/);
    await expect(fs.stat(path.join(base, 'toolsmith-gone'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(store.isEmpty('gone')).toBe(true);
  });

  it('a write begun before the session ended is not kept', async () => {
    const { store } = await newStore();
    const sink = store.beginSync('late', { toolName: 't', argsJson: '{}' });
    sink.write(Buffer.from('partial body\n'));
    await store.endSession('late');
    expect(() => sink.finish()).toThrow(/was deleted/);
    expect(store.list('late')).toEqual([]);
  });

  it('text read back passes through the redactor', async () => {
    const base = await tempDir();
    const store = new ToolOutputStore({ baseDir: () => base, tokens: estimateCounter, redact: (t) => t.replaceAll('sk-SECRET-123456', '[redacted]') });
    const sink = store.beginSync('c', { toolName: 't', argsJson: '{}' });
    sink.write(Buffer.from('the key is sk-SECRET-123456\n'));
    const o = sink.finish();
    expect(store.readTextSync(o.handle)).toBe('the key is [redacted]\n');
  });
});
