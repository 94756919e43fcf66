/**
 * Buffer search against a plain reference (split into lines, search each line), on random
 * texts with multi-byte characters, CRLF lines and long lines, written in random appends so
 * the index has many checkpoints, and read in tiny windows so matches and lines straddle
 * window edges. Then the hostile cases: a catastrophic regex, cancellation.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BufferMatch, BufferSearchResult } from '../../../shared/model/routing';
import { escapeRegExp } from '../lib/safe-regex';
import { appError } from '../builtin-functions/test-context';
import { useTempDirs } from '../testing/temp-dir';
import { REGEX_TIME_LIMIT_DEFAULT_MS } from '../../../shared/model/settings';
import { isAsciiPattern, requiredLiteral } from './buffer-search';
import { BUFFER_SEARCH_TIME_BUDGET_MS } from './limits';
import { FileBufferStore, type FileBufferStoreOptions } from './buffer-store';
import type { BufferSearchOptions } from './types';

const tempDir = useTempDirs();
const stores: FileBufferStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function store(over: Partial<FileBufferStoreOptions> = {}): Promise<FileBufferStore> {
  const dir = await tempDir();
  const s = new FileBufferStore({ dataDir: dir, workspaceDir: dir, now: () => new Date('2026-01-01T00:00:00Z'), ...over });
  stores.push(s);
  return s;
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ['a', 'b', 'c', 'x', '1', '2', ' ', ' ', 'é', '😀', '中', '\n', '\n', '\r\n', 'TODO', 'abc'];

function randomText(r: () => number, chars: number): string {
  let s = '';
  while (s.length < chars) {
    // Now and then a long line, to cross several windows.
    if (r() < 0.002) s += 'a'.repeat(Math.floor(r() * 3000));
    s += ALPHABET[Math.floor(r() * ALPHABET.length)];
  }
  return s;
}

function clip(s: string, max = 500): string {
  if (s.endsWith('\r')) s = s.slice(0, -1);
  if (s.length <= max) return s;
  let cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut + '…';
}

/** The line as a result shows it: its head, or past the head a window around the match (the worker's byte arithmetic). */
function windowOf(line: string, column: number, length: number): { text: string; textStart?: number } {
  if (column + Math.min(length, 40) <= 500 - 20) return { text: clip(line) };
  const raw = Buffer.from(line, 'utf8');
  const pos = Buffer.byteLength(line.slice(0, column), 'utf8');
  let ws = Math.max(0, pos - Math.floor(500 / 3));
  while (ws < pos && (raw[ws]! & 0xc0) === 0x80) ws++;
  return { text: clip(raw.subarray(ws).toString('utf8')), textStart: column - raw.subarray(ws, pos).toString('utf8').length };
}

function reference(content: string, o: BufferSearchOptions): BufferSearchResult {
  const lines = content === '' ? [] : content.split('\n');
  if (content.endsWith('\n')) lines.pop();
  const max = o.maxMatches ?? 100;
  const ctx = o.contextLines ?? 0;
  const cs = o.caseSensitive !== false;
  const re = o.regex ? new RegExp(o.query, cs ? 'g' : 'gi') : cs ? null : new RegExp(escapeRegExp(o.query), 'gi');
  const matches: BufferMatch[] = [];
  let scanned = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const found: [number, number][] = [];
    if (!re) {
      for (let j = line.indexOf(o.query); j >= 0; j = line.indexOf(o.query, j + o.query.length)) found.push([j, o.query.length]);
    } else {
      re.lastIndex = 0;
      for (let m = re.exec(line); m; m = re.exec(line)) {
        const c = line.charCodeAt(m.index);
        // An empty match between the halves of a surrogate pair is not a position in the text.
        if (!(m[0] === '' && c >= 0xdc00 && c <= 0xdfff)) found.push([m.index, m[0].length]);
        if (m[0] === '') re.lastIndex++;
        if (re.lastIndex > line.length) break;
      }
    }
    for (const [column, length] of found) {
      if (matches.length >= max) return { matches, more: true, scannedChars: scanned + column };
      matches.push({
        line: i + 1,
        column,
        length,
        ...windowOf(line, column, length),
        before: lines.slice(Math.max(0, i - ctx), i).map((l) => clip(l)),
        after: lines.slice(i + 1, i + 1 + ctx).map((l) => clip(l)),
      });
    }
    scanned += line.length + 1;
  }
  return { matches, more: false, scannedChars: content.length };
}

describe('buffer search matches a line-by-line reference', () => {
  const queries: Omit<BufferSearchOptions, 'signal'>[] = [
    { query: 'TODO' },
    { query: 'todo', caseSensitive: false, contextLines: 2 },
    { query: 'abc', contextLines: 1, maxMatches: 7 },
    { query: '😀中' },
    { query: 'é', maxMatches: 3, contextLines: 3 },
    { query: 'aaaaaaaaaaaaaaaaaaaa', maxMatches: 5 },
    { query: '[0-9]+x', regex: true, contextLines: 1 },
    { query: 'b.c', regex: true },
    { query: '^x', regex: true, maxMatches: 20 },
    { query: 'É+', regex: true, caseSensitive: false },
    { query: 'zzz-not-there' },
    // ASCII-only patterns run over the bytes as latin1: these check that nothing changes.
    { query: 'x*', regex: true, maxMatches: 2000 },
    { query: '\\bab?c\\b', regex: true, caseSensitive: false },
    { query: '(?<!a)b+', regex: true, maxMatches: 300 },
    { query: '[0-9] [a-c]', regex: true, caseSensitive: false, contextLines: 2 },
    { query: 'aBc', caseSensitive: false, maxMatches: 500 },
    // Patterns with a required literal: only lines holding it are searched.
    { query: 'abc.[0-9]?', regex: true, maxMatches: 300, contextLines: 1 },
    { query: 'TODO\\b', regex: true },
    { query: '😀中.', regex: true },
    { query: 'x(ab)?c?abc', regex: true },
    { query: 'bc.{0,3}aaa', regex: true, maxMatches: 40 },
  ];

  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: every query, windows of ${[257, 1000, 4096, 65536][seed - 1]} bytes`, async () => {
      const r = rng(seed);
      const s = await store({ searchWindowBytes: [257, 1000, 4096, 65536][seed - 1] });
      let content = '';
      // Random appends: the index is extended piece by piece, as routing does.
      while (content.length < 150_000) {
        const part = randomText(r, Math.floor(r() * 40_000));
        await s.write('owner', 'buf', part, 'append', 'test');
        content = content === '' || content.endsWith('\n') || part === '' ? content + part : `${content}\n${part}`;
      }
      for (const q of queries) {
        const got = await s.search('owner', 'buf', q);
        const want = reference(content, q);
        expect(got.matches, JSON.stringify(q)).toEqual(want.matches);
        expect(got.more, JSON.stringify(q)).toBe(want.more);
        if (!got.more) expect(got.scannedChars).toBe(content.length);
        else expect(got.scannedChars).toBeLessThanOrEqual(content.length);
      }
    });
  }

  it('finds matches in a single line longer than the window, with the right column', async () => {
    const s = await store({ searchWindowBytes: 1024 });
    const content = `${'é'.repeat(100_000)}NEEDLE${'b'.repeat(50_000)}\nnext line\n`;
    await s.write('o', 'long', content, 'replace', 't');
    for (const q of [{ query: 'NEEDLE', contextLines: 1 }, { query: 'N[E]+DLE', regex: true, contextLines: 1 }, { query: 'needle', caseSensitive: false, contextLines: 1 }]) {
      const got = await s.search('o', 'long', q);
      expect(got.matches).toHaveLength(1);
      expect(got.matches[0]).toMatchObject({ line: 1, column: 100_000, length: 6, before: [], after: ['next line'] });
      // Shown around the match, not the line's head.
      expect(got.matches[0]!.textStart).toBe(100_000 - 83);
      expect(got.matches[0]!.text).toBe(`${'é'.repeat(83)}NEEDLE${'b'.repeat(500 - 89)}…`);
    }
  });

  it('a quantifier after a character outside the BMP: the match is still found', async () => {
    const s = await store();
    await s.write('o', 'emoji', 'before\nsay xyz😀😀 now\nafter xyz\n', 'replace', 't');
    const got = await s.search('o', 'emoji', { query: 'xyz😀+', regex: true, caseSensitive: true });
    expect(got.matches.map((m) => m.line)).toEqual([2]);
  });

  it('an empty buffer has no matches', async () => {
    const s = await store();
    await s.write('o', 'empty', '', 'replace', 't');
    expect(await s.search('o', 'empty', { query: 'x' })).toEqual({ matches: [], more: false, scannedChars: 0 });
    expect(await s.search('o', 'empty', { query: '^', regex: true })).toEqual({ matches: [], more: false, scannedChars: 0 });
  });
});

describe('isAsciiPattern', () => {
  it('accepts patterns whose every part matches only ASCII, and nothing else', () => {
    for (const p of ['NEEDLE', 'NEE[D]LE [a-z]+', '\\d+\\.\\d+', '^x$', '(a|b)\\1', '\\bword\\B', '[.]', 'a\\.b', '(?<!a)b', '[\\w-]+']) {
      expect(isAsciiPattern(p), p).toBe(true);
    }
    for (const p of ['a.b', '[^a]', '\\W', '\\S+', '\\s', '\\D', '\\u00e9', '\\xe9', '\\p{L}', 'é', '[\\s]', '\\cJ', '\\0', '\\k<n>', 'x\\']) {
      expect(isAsciiPattern(p), p).toBe(false);
    }
  });
});

describe('requiredLiteral', () => {
  it('finds text every match holds, only when the pattern cannot match a line break', () => {
    const cases: [string, string | null][] = [
      ['NEEDLE.[a-z]+', 'NEEDLE'],
      ['error: \\d+ at line', ' at line'],
      ['ab*cdef?', 'cde'],
      ['x(NEEDLE)?yz', null],
      ['abc{2}defg', 'defg'],
      ['\\.json$', '.json'],
      ['config\\.json', 'config.json'],
      ['😀中.', '😀中'],
      ['xyz😀+', 'xyz'],
      ['xyz😀*', 'xyz'],
      ['xyz😀{2}abc', 'xyz'],
      ['😀😀😀x?', '😀😀😀'],
      ['foo|barbaz', null],
      ['abc[^x]def', null],
      ['abc\\sdef', null],
      ['abc\\ndef', null],
      ['abcd[\\s]', null],
      ['[a-z]+', null],
      ['(?:abc)', null],
      ['abc\\12', null],
    ];
    for (const [p, want] of cases) expect(requiredLiteral(p), p).toBe(want);
  });
});

describe('buffer search refuses and stops what it must', () => {
  it('stops a catastrophic regex with TIMEOUT, then searches again normally', async () => {
    // Room for a worker to start on a busy machine; the pattern would run for ages.
    const s = await store({ searchTimeoutMs: 2000 });
    await s.write('o', 'evil', `${'a'.repeat(40_000)}b\nTODO\n`, 'replace', 't');
    const e = await appError(s.search('o', 'evil', { query: '(a+)+$', regex: true }));
    expect(e.code).toBe('TIMEOUT');
    expect(e.message).toMatch(/ran longer than 2000 ms and was stopped: it probably backtracks catastrophically/);
    expect(e.details).toEqual({ field: 'query', timeoutMs: 2000 });
    expect((await s.search('o', 'evil', { query: 'TODO' })).matches[0]).toMatchObject({ line: 2, column: 0 });
  });

  it('the time limit is read when each search starts (Settings may change it), 4 s by default', async () => {
    let limit = 300;
    const s = await store({ searchTimeoutMs: () => limit });
    await s.write('o', 'evil', `${'a'.repeat(40_000)}b\n`, 'replace', 't');
    expect((await appError(s.search('o', 'evil', { query: '(a+)+$', regex: true }))).details).toEqual({ field: 'query', timeoutMs: 300 });
    limit = 200;
    expect((await appError(s.search('o', 'evil', { query: '(a+)+$', regex: true }))).details).toEqual({ field: 'query', timeoutMs: 200 });
    expect(BUFFER_SEARCH_TIME_BUDGET_MS).toBe(REGEX_TIME_LIMIT_DEFAULT_MS);
    expect(REGEX_TIME_LIMIT_DEFAULT_MS).toBe(4000);
  });

  it('cancels through the signal', async () => {
    const s = await store({ searchTimeoutMs: 20_000 });
    await s.write('o', 'evil', `${'a'.repeat(40_000)}b\n`, 'replace', 't');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    // CANCELLED, not TIMEOUT: the signal ended the search, not its 20 s budget.
    expect((await appError(s.search('o', 'evil', { query: '(a+)+$', regex: true, signal: ac.signal }))).code).toBe('CANCELLED');
    const done = new AbortController();
    done.abort();
    expect((await appError(s.search('o', 'evil', { query: 'a', signal: done.signal }))).code).toBe('CANCELLED');
  });

  it('refuses with CONFLICT when the content file holds fewer bytes than indexed (cut by hand mid-search)', async () => {
    const dir = await tempDir();
    const s = await store({
      dataDir: dir,
      afterSnapshot: () => fs.truncate(path.join(dir, 'buffers', 'o', 'buf-cut.txt'), 3),
    });
    await s.write('o', 'cut', 'one\ntwo\nthree\n', 'replace', 't');
    const e = await appError(s.search('o', 'cut', { query: 'three' }));
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toBe('the buffer changed during the search, search again');
  });

  it('refuses bad queries and options before searching', async () => {
    const s = await store();
    await s.write('o', 'b', 'text\n', 'replace', 't');
    const bad: BufferSearchOptions[] = [
      { query: '' },
      { query: 'x'.repeat(1001) },
      { query: 'a\nb' },
      { query: '(unclosed', regex: true },
      { query: 'x', contextLines: 21 },
      { query: 'x', maxMatches: 0 },
      { query: 'x', maxMatches: 1.5 },
    ];
    for (const o of bad) expect((await appError(s.search('o', 'b', o))).code, JSON.stringify(o)).toBe('VALIDATION_FAILED');
    expect((await appError(s.search('o', 'missing', { query: 'x' }))).code).toBe('NOT_FOUND');
    // A literal with regex characters is searched literally.
    await s.write('o', 'lit', 'a(b)+c\nabbc\n', 'replace', 't');
    expect((await s.search('o', 'lit', { query: '(b)+' })).matches.map((m) => m.line)).toEqual([1]);
    expect((await s.search('o', 'lit', { query: '(B)+', caseSensitive: false })).matches.map((m) => m.line)).toEqual([1]);
  });
});
