import { describe, expect, it } from 'vitest';
import { countText, createTextFunctions } from './text';
import { appError, call, testContext } from './test-context';

const t = createTextFunctions();
const ctx = testContext('/nonexistent-workspace');

describe('text.jsonpath', () => {
  const doc = { store: { books: [{ title: 'A', price: 8 }, { title: 'B', price: 12, tags: ['x'] }] }, count: 2 };

  it('returns the selected values and their paths', async () => {
    expect(await call(t.jsonpath, ctx, { json: doc, path: '$.store.books[*].title' })).toEqual({
      values: ['A', 'B'],
      paths: ["$['store']['books'][0]['title']", "$['store']['books'][1]['title']"],
      truncated: false,
    });
    expect(await call(t.jsonpath, ctx, { json: doc, path: '$..price' })).toMatchObject({ values: [8, 12] });
    expect(await call(t.jsonpath, ctx, { json: doc, path: '$.store.books[-1:].tags[0]' })).toMatchObject({ values: ['x'] });
    expect(await call(t.jsonpath, ctx, { json: doc, path: '$.missing' })).toMatchObject({ values: [], paths: [] });
    expect(await call(t.jsonpath, ctx, { json: null, path: '$.x' })).toMatchObject({ values: [] });
    expect(await call(t.jsonpath, ctx, { json: 5, path: '$' })).toMatchObject({ values: [5] });
  });

  it('parses a JSON string with parse: true, and bounds the results', async () => {
    expect(await call(t.jsonpath, ctx, { json: JSON.stringify(doc), parse: true, path: '$.count' })).toMatchObject({ values: [2] });
    expect(await call(t.jsonpath, ctx, { json: '{"a":1}', path: '$' })).toMatchObject({ values: ['{"a":1}'] });
    expect(await appError(call(t.jsonpath, ctx, { json: '{bad', parse: true, path: '$' }))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/not a valid JSON document/) });
    const many = Array.from({ length: 50 }, (_, i) => i);
    expect(await call(t.jsonpath, ctx, { json: many, path: '$[*]', maxResults: 10 })).toMatchObject({ values: many.slice(0, 10), truncated: true });
  });

  it('never evaluates script or filter expressions (eval: false)', async () => {
    let touched = false;
    (globalThis as Record<string, unknown>).__toolsmithProbe = () => (touched = true);
    for (const path of ['$..[?(@.price > 10)]', '$[?(globalThis.__toolsmithProbe())]', '$..[(@.length-1)]', "$[?(@.constructor.constructor('return process')().exit())]"]) {
      const e = await appError(call(t.jsonpath, ctx, { json: doc, path }));
      expect(e.code, path).toBe('VALIDATION_FAILED');
      expect(e.message).toMatch(/script or filter expression .* not supported/);
    }
    expect(touched).toBe(false);
    delete (globalThis as Record<string, unknown>).__toolsmithProbe;
  });

  it('refuses a path that does not start with $', async () => {
    expect(await appError(call(t.jsonpath, ctx, { json: doc, path: 'store.books' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('text.regex-extract', () => {
  it('returns whole matches, numbered or named groups', async () => {
    const text = 'Dates: 2024-01-05, 2025-12-31 and 1999-07-04.';
    expect(await call(t['regex-extract'], ctx, { text, pattern: '\\d{4}-\\d{2}-\\d{2}' })).toEqual({ matches: ['2024-01-05', '2025-12-31', '1999-07-04'], truncated: false });
    expect(await call(t['regex-extract'], ctx, { text, pattern: '(\\d{4})-(\\d{2})', group: 2 })).toMatchObject({ matches: ['01', '12', '07'] });
    expect(await call(t['regex-extract'], ctx, { text, pattern: '(?<year>\\d{4})-', group: 'year' })).toMatchObject({ matches: ['2024', '2025', '1999'] });
    expect(await call(t['regex-extract'], ctx, { text: 'a1 B2', pattern: '[a-z]\\d', flags: 'i' })).toMatchObject({ matches: ['a1', 'B2'] });
    expect(await call(t['regex-extract'], ctx, { text: 'ab', pattern: 'x|(y)?', group: 1 })).toMatchObject({ matches: ['', '', ''] });
  });

  it('handles empty matches and astral characters without looping', async () => {
    expect(await call(t['regex-extract'], ctx, { text: '😀😀', pattern: '', flags: 'u' }).catch((e) => e)).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await call(t['regex-extract'], ctx, { text: '😀x😀', pattern: 'x*', flags: 'u' })).toMatchObject({ matches: ['', 'x', '', ''] });
    expect(await call(t['regex-extract'], ctx, { text: 'aaa', pattern: 'a', maxMatches: 2 })).toEqual({ matches: ['a', 'a'], truncated: true });
  });

  it('refuses bad patterns, flags and groups clearly', async () => {
    expect(await appError(call(t['regex-extract'], ctx, { text: 'x', pattern: '[' }))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/invalid regular expression/) });
    expect(await appError(call(t['regex-extract'], ctx, { text: 'x', pattern: 'x', flags: 'g' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await appError(call(t['regex-extract'], ctx, { text: 'x', pattern: 'x', flags: 'ii' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await appError(call(t['regex-extract'], ctx, { text: 'x', pattern: '(x)', group: 2 }))).toMatchObject({ code: 'VALIDATION_FAILED', message: 'group 2 does not exist: the pattern has 1 capture group' });
    expect(await appError(call(t['regex-extract'], ctx, { text: 'x', pattern: '(?<a>x)', group: 'b' }))).toMatchObject({ code: 'VALIDATION_FAILED', message: "the pattern has no group named 'b' (it has a)" });
  });

  it('stops (a+)+$ on a long aaaa…b text within its time budget', async () => {
    const fast = createTextFunctions({ regexTimeoutMs: 300 });
    const e = await appError(call(fast['regex-extract'], ctx, { text: `${'a'.repeat(40)}b`, pattern: '(a+)+$' }));
    expect(e).toMatchObject({ code: 'TIMEOUT', details: { field: 'pattern', timeoutMs: 300 } });
  });

  it("the context's regex time limit (Settings) is the budget", async () => {
    const e = await appError(call(t['regex-extract'], { ...ctx, regexTimeLimitMs: 250 }, { text: `${'a'.repeat(40)}b`, pattern: '(a+)+$' }));
    expect(e).toMatchObject({ code: 'TIMEOUT', details: { field: 'pattern', timeoutMs: 250 } });
  });
});

describe('text.diff', () => {
  it('returns a unified diff with counts', async () => {
    const r = await call(t.diff, ctx, { before: 'a\nb\nc\n', after: 'a\nB\nc\nd\n', beforeName: 'old.txt', afterName: 'new.txt' });
    expect(r).toEqual({
      diff: '--- old.txt\n+++ new.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n',
      identical: false,
      added: 2,
      removed: 1,
      hunks: 1,
    });
  });

  it('says when the texts are identical, honours context and ignoreWhitespace', async () => {
    expect(await call(t.diff, ctx, { before: 'same', after: 'same' })).toEqual({ diff: '', identical: true, added: 0, removed: 0, hunks: 0 });
    expect(await call(t.diff, ctx, { before: '  a b \n', after: 'a b\n', ignoreWhitespace: true })).toMatchObject({ identical: true });
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const changed = [...lines];
    changed[2] = 'X';
    changed[17] = 'Y';
    expect(await call(t.diff, ctx, { before: lines.join('\n'), after: changed.join('\n'), context: 1 })).toMatchObject({ hunks: 2, added: 2, removed: 2 });
    expect(await call(t.diff, ctx, { before: lines.join('\n'), after: changed.join('\n'), context: 10 })).toMatchObject({ hunks: 1 });
  });

  it('gives up with TIMEOUT rather than spending minutes on huge, very different texts', async () => {
    const slow = createTextFunctions({ diffTimeoutMs: 50 });
    const a = Array.from({ length: 20000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 20000 }, (_, i) => `b${i}`).join('\n');
    expect(await appError(call(slow.diff, ctx, { before: a, after: b }))).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/differ too much to diff within 50 ms/) });
  });
});

describe('text.count', () => {
  it('counts code points, words, lines and UTF-8 bytes', async () => {
    expect(await call(t.count, ctx, { text: 'héllo wörld 😀\nsecond line\n' })).toEqual({ characters: 26, words: 5, lines: 2, bytes: 31 });
    expect(countText('')).toEqual({ characters: 0, words: 0, lines: 0, bytes: 0 });
    expect(countText('a')).toMatchObject({ lines: 1 });
    expect(countText('a\n')).toMatchObject({ lines: 1 });
    expect(countText('a\nb')).toMatchObject({ lines: 2 });
    expect(countText('a\r\nb\r\n')).toMatchObject({ lines: 2 });
    expect(countText('a\rb')).toMatchObject({ lines: 2 });
    expect(countText('\n\n')).toMatchObject({ lines: 2, words: 0 });
    expect(countText('🇫🇷')).toMatchObject({ characters: 2, bytes: 8 });
    expect(countText('a\u00a0b\u3000c')).toMatchObject({ words: 3 });
    expect(countText('\ud800')).toMatchObject({ characters: 1, bytes: 3 });
    expect(countText('日本語')).toEqual({ characters: 3, words: 1, lines: 1, bytes: 9 });
  });

  it('agrees with Buffer.byteLength and the string iterator', async () => {
    const s = 'mixé 😀 text\twith\r\nbreaks ✓';
    const r = countText(s);
    expect(r.bytes).toBe(Buffer.byteLength(s, 'utf8'));
    expect(r.characters).toBe([...s].length);
    expect(r.words).toBe(s.split(/\s+/).filter(Boolean).length);
  });
});
