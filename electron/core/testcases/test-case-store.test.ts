import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../shared/model/app-info';
import { useTempDirs } from '../testing/temp-dir';
import { checkImportedCase, MAX_TEST_CASES, TestCaseStore, testCaseFileName } from './test-case-store';

const tempDir = useTempDirs();
const BUNDLE = '0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f35';

async function setup() {
  const dataDir = await tempDir();
  const problems: Omit<Problem, 'id' | 'at'>[] = [];
  let clock = Date.parse('2025-03-01T10:00:00.000Z');
  const store = new TestCaseStore({ dataDir, problems: (p) => problems.push(p), now: () => new Date((clock += 1000)) });
  return { dataDir, store, problems };
}

const echoCase = { name: 'says hi', args: { text: 'hi' }, assertions: [{ kind: 'ok' as const }, { kind: 'contains' as const, text: 'hi' }] };

describe('TestCaseStore', () => {
  it('creates cases with a fresh id in one readable file per tool slug', async () => {
    const { store, dataDir } = await setup();
    expect(await store.list(BUNDLE, 'echo')).toEqual([]);
    const a = await store.save(BUNDLE, 'echo', echoCase);
    const b = await store.save(BUNDLE, 'echo', { name: 'fails', args: {}, assertions: [{ kind: 'error', code: 'VALIDATION_FAILED' }] });
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(b.id).not.toBe(a.id);
    expect(a).toMatchObject({ name: 'says hi', args: { text: 'hi' }, createdAt: '2025-03-01T10:00:01.000Z', updatedAt: '2025-03-01T10:00:01.000Z' });
    expect(await store.list(BUNDLE, 'echo')).toEqual([a, b]);
    expect(await store.list(BUNDLE, 'other')).toEqual([]);

    const file = path.join(dataDir, 'testcases', BUNDLE, testCaseFileName('echo'));
    expect(testCaseFileName('echo')).toMatch(/^[0-9a-f]{24}\.json$/);
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain('\n  "format": "toolsmith-testcases"');
    expect(JSON.parse(text)).toMatchObject({ version: 1, bundleId: BUNDLE, slug: 'echo', cases: [{ id: a.id }, { id: b.id }] });
    // No temp files are left behind.
    expect(await fs.readdir(path.dirname(file))).toEqual([testCaseFileName('echo')]);
  });

  it('replaces a case by id, keeping createdAt; an unknown id is NOT_FOUND', async () => {
    const { store } = await setup();
    const a = await store.save(BUNDLE, 'echo', echoCase);
    const b = await store.save(BUNDLE, 'echo', { ...echoCase, id: a.id, name: 'renamed', assertions: [{ kind: 'latencyUnder', ms: 500 }] });
    expect(b).toMatchObject({ id: a.id, name: 'renamed', createdAt: a.createdAt, assertions: [{ kind: 'latencyUnder', ms: 500 }] });
    expect(b.updatedAt > a.updatedAt).toBe(true);
    expect(await store.list(BUNDLE, 'echo')).toEqual([b]);
    await expect(store.save(BUNDLE, 'echo', { ...echoCase, id: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining("'nope'") });
  });

  it('deletes a case; NOT_FOUND when missing; the file goes with the last case', async () => {
    const { store, dataDir } = await setup();
    const a = await store.save(BUNDLE, 'echo', echoCase);
    const b = await store.save(BUNDLE, 'echo', { ...echoCase, name: 'second' });
    await store.delete(BUNDLE, 'echo', a.id);
    expect((await store.list(BUNDLE, 'echo')).map((c) => c.id)).toEqual([b.id]);
    await expect(store.delete(BUNDLE, 'echo', a.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await store.delete(BUNDLE, 'echo', b.id);
    await expect(fs.stat(path.join(dataDir, 'testcases', BUNDLE))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(store.delete(BUNDLE, 'echo', b.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keys files by the NFC slug, case-sensitively, and refuses ids and slugs that could name another path', async () => {
    const { store } = await setup();
    const composed = 'caf\u00e9';
    const decomposed = 'cafe\u0301';
    await store.save(BUNDLE, composed, echoCase);
    expect(await store.list(BUNDLE, decomposed)).toHaveLength(1);
    expect(testCaseFileName(composed)).toBe(testCaseFileName(decomposed));
    expect(testCaseFileName('Read')).not.toBe(testCaseFileName('read'));
    expect(await store.list(BUNDLE, 'Cafe\u0301')).toEqual([]);

    await expect(store.list('../../etc', 'echo')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('bundleId') });
    await expect(store.list(BUNDLE.toUpperCase(), 'echo')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(store.save(BUNDLE, 'a/b', echoCase)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('slug') });
  });

  it('refuses a case without a name, with an assertion that can never be checked, or too large', async () => {
    const { store } = await setup();
    await expect(store.save(BUNDLE, 'echo', { ...echoCase, name: '   ' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: 'a test case needs a name' });
    await expect(store.save(BUNDLE, 'echo', { ...echoCase, assertions: [{ kind: 'error', code: 'NOPE' }] })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('is not an error code'),
    });
    await expect(store.save(BUNDLE, 'echo', { ...echoCase, assertions: [{ kind: 'jsonPathEquals', path: '$[?(@.a)]', value: 1 }] })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('script or filter'),
    });
    await expect(store.save(BUNDLE, 'echo', { ...echoCase, assertions: [{ kind: 'jsonPathEquals', path: 'echo', value: 1 }] })).rejects.toMatchObject({
      message: expect.stringContaining('must start with $'),
    });
    await expect(store.save(BUNDLE, 'echo', { ...echoCase, assertions: [{ kind: 'jsonPathEquals', path: '$.echo', value: undefined }] })).rejects.toMatchObject({
      message: expect.stringContaining('needs the value'),
    });
    await expect(store.save(BUNDLE, 'echo', { ...echoCase, args: { text: 'x'.repeat(2 * 1024 * 1024) } })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('too large'),
    });
    expect(await store.list(BUNDLE, 'echo')).toEqual([]);
  });

  it('addAll adds checked cases with new ids in one write, refusing all when one is bad or too many; removeAll removes them', async () => {
    const { store, dataDir } = await setup();
    const kept = await store.save(BUNDLE, 'echo', echoCase);
    const added = await store.addAll(BUNDLE, 'echo', [{ name: ' one ', args: { text: '1' }, assertions: [] }, { name: 'two', args: undefined, assertions: [{ kind: 'ok' }] }]);
    expect(added.map((c) => [c.name, c.args])).toEqual([['one', { text: '1' }], ['two', {}]]);
    expect(new Set([kept.id, ...added.map((c) => c.id)]).size).toBe(3);
    expect((await store.list(BUNDLE, 'echo')).map((c) => c.name)).toEqual(['says hi', 'one', 'two']);
    await expect(store.addAll(BUNDLE, 'echo', [echoCase, { name: 'bad', args: {}, assertions: [{ kind: 'error', code: 'NOPE' }] }])).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const many = Array.from({ length: MAX_TEST_CASES - 2 }, (_, i) => ({ ...echoCase, name: `c${i}` }));
    await expect(store.addAll(BUNDLE, 'echo', many)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/at most 500/) });
    expect((await store.list(BUNDLE, 'echo')).length).toBe(3);
    await store.removeAll(BUNDLE, 'echo');
    await store.removeAll(BUNDLE, 'never');
    expect(await store.list(BUNDLE, 'echo')).toEqual([]);
    await expect(fs.readdir(path.join(dataDir, 'testcases', BUNDLE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('checkImportedCase: a case as an archive carries it, checked like save', () => {
    expect(checkImportedCase(echoCase)).toEqual({ ok: true, value: echoCase });
    expect(checkImportedCase([])).toEqual({ ok: false, message: 'a test case must be a JSON object' });
    expect(checkImportedCase({ ...echoCase, createdAt: 'x' })).toEqual({ ok: false, message: expect.stringMatching(/unknown field 'createdAt'/) });
    expect(checkImportedCase({ ...echoCase, name: 7 })).toEqual({ ok: false, message: 'a test case needs a name' });
    expect(checkImportedCase({ ...echoCase, assertions: 'ok' })).toEqual({ ok: false, message: expect.stringMatching(/^invalid test case: assertions/) });
  });

  it('lands every one of many quick saves (writes to one file are serialised)', async () => {
    const { store } = await setup();
    const saved = await Promise.all(Array.from({ length: 20 }, (_, i) => store.save(BUNDLE, 'echo', { ...echoCase, name: `case ${i}` })));
    const listed = await store.list(BUNDLE, 'echo');
    expect(listed).toHaveLength(20);
    expect(new Set(listed.map((c) => c.id))).toEqual(new Set(saved.map((c) => c.id)));
  });

  it('reports a corrupt file, moves it aside, reads it as empty, and saves over it', async () => {
    const { store, dataDir, problems } = await setup();
    const file = store.fileFor(BUNDLE, 'echo');
    expect(file).toBe(path.join(dataDir, 'testcases', BUNDLE, testCaseFileName('echo')));
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, '{"format": "toolsmith-testcases", "cases": [');
    expect(await store.list(BUNDLE, 'echo')).toEqual([]);
    expect(problems).toEqual([{ kind: 'corrupt-file', path: file, message: expect.stringContaining('not valid JSON'), movedTo: expect.stringContaining('.corrupt-') }]);
    expect(await fs.readFile(problems[0]!.movedTo!, 'utf8')).toContain('"cases": [');

    // The wrong shape is corrupt too; a save afterwards starts a fresh file.
    await fs.writeFile(file, JSON.stringify({ format: 'toolsmith-testcases', version: 1, bundleId: BUNDLE, slug: 'echo', cases: [{ id: 'x' }] }));
    const saved = await store.save(BUNDLE, 'echo', echoCase);
    expect(problems).toHaveLength(2);
    expect(problems[1]!.message).toContain('not a test case file');
    expect(await store.list(BUNDLE, 'echo')).toEqual([saved]);
  });
});
