import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../shared/model/app-info';
import { forecastCase } from '../testing/eval-kit';
import { useTempDirs } from '../testing/temp-dir';
import { TestCaseStore } from '../testcases/test-case-store';
import { EvalCaseStore, expectsTool } from './eval-case-store';

const tempDir = useTempDirs();

async function stores() {
  const dir = await tempDir();
  const problems: Omit<Problem, 'id' | 'at'>[] = [];
  let t = Date.parse('2026-12-01T10:00:00Z');
  const now = () => new Date((t += 1000));
  return { dir, problems, store: new EvalCaseStore({ dataDir: dir, now, problems: (p) => problems.push(p) }), testCases: new TestCaseStore({ dataDir: dir, now }) };
}

describe('EvalCaseStore', () => {
  it('saves cases beside the bundle’s test cases, one file per bundle, with the defaults filled in; replaces by id; deletes, and the file goes with the last', async () => {
    const { dir, store, testCases } = await stores();
    const bundleId = uuidv7();
    await testCases.save(bundleId, 'forecast', { name: 'a test case', args: {}, assertions: [] });
    const a = await store.save(bundleId, forecastCase());
    expect(a).toMatchObject({ name: 'forecast for Paris', context: [], answer: [], otherCalls: 'run', approvals: 'deny' });
    const file = path.join(dir, 'testcases', bundleId, 'evals.json');
    expect(store.fileFor(bundleId)).toBe(file);
    const onDisk = JSON.parse(await fs.readFile(file, 'utf8'));
    expect(onDisk).toMatchObject({ format: 'toolsmith-evals', version: 1, bundleId, cases: [a] });
    // The test cases beside them are untouched, and do not see the eval file.
    expect(await testCases.listBundle(bundleId)).toEqual([{ slug: 'forecast', cases: [expect.objectContaining({ name: 'a test case' })] }]);

    const b = await store.save(bundleId, forecastCase({ name: 'second' }));
    const a2 = await store.save(bundleId, { ...forecastCase({ name: 'first, renamed' }), id: a.id });
    expect(a2.createdAt).toBe(a.createdAt);
    expect(a2.updatedAt > a.updatedAt).toBe(true);
    expect((await store.list(bundleId)).map((c) => c.name)).toEqual(['first, renamed', 'second']);
    await expect(store.save(bundleId, { ...forecastCase(), id: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    await store.delete(bundleId, a.id);
    await store.delete(bundleId, b.id);
    await expect(fs.stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    // The folder stays while test cases are in it.
    expect(await fs.readdir(path.dirname(file))).toHaveLength(1);
    await expect(store.delete(bundleId, b.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await fs.readdir(path.dirname(file))).filter((n) => n.includes('.tmp'))).toEqual([]);
  });

  it('refuses, with a sentence naming the field, what could never run', async () => {
    const { store } = await stores();
    const bundleId = uuidv7();
    const refused = async (over: Parameters<typeof forecastCase>[0]) => {
      try {
        await store.save(bundleId, forecastCase(over));
      } catch (e) {
        return (e as { code: string; message: string }).code + ': ' + (e as Error).message;
      }
      return 'saved';
    };
    expect(await refused({ answer: [{ kind: 'regex', pattern: 'a(' }] })).toMatch(/^VALIDATION_FAILED: invalid regular expression 'a\(': /);
    expect(await refused({ expect: { kind: 'tools', tools: [{ tool: 'forecast', args: [{ kind: 'jsonPathEquals', path: 'city', value: 1 }] }] } })).toBe("VALIDATION_FAILED: the JSONPath 'city' must start with $");
    expect(await refused({ expect: { kind: 'tools', tools: [{ tool: 'forecast', args: [{ kind: 'schema', schema: { type: 'nonsense' } }] }] } })).toMatch(/^VALIDATION_FAILED: expect\.tools\.0\.args\.0\.schema is not a valid JSON Schema/);
    expect(await refused({ scope: { tools: 'named', toolSearch: 'off' } })).toMatch(/^VALIDATION_FAILED: a named scope needs the tools it offers/);
    expect(await refused({ expect: { kind: 'tools', tools: [{ tool: 'not a slug!', args: [] }] } })).toMatch(/^VALIDATION_FAILED: invalid eval case: expect\.tools\.0\.tool: a tool slug, or bundle\/slug/);
    expect(await refused({ results: [{ tool: 'forecast', error: { code: 'OOPS', message: 'x' } }] })).toMatch(/^VALIDATION_FAILED: 'OOPS' is not an error code/);
    expect(await refused({ prompt: '' })).toMatch(/^VALIDATION_FAILED: invalid eval case: prompt: /);
    expect(await refused({ timeoutMs: 10 })).toMatch(/^VALIDATION_FAILED: invalid eval case: timeoutMs: /);
    expect(await refused({ expect: { kind: 'tools', tools: [{ tool: 'forecast', args: [] }, { tool: 'forecast', args: [] }] } })).toMatch(/is expected twice/);
    expect(await refused({ prompt: 'x'.repeat(100_001) })).toMatch(/^VALIDATION_FAILED: invalid eval case: prompt: /);
    // Nothing was written.
    expect(await store.list(bundleId)).toEqual([]);
    await expect(store.list('not-a-uuid')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('a file that is not JSON, or not this shape, is moved aside, reported, and read as no cases; the next save starts a new one', async () => {
    const { store, problems } = await stores();
    const bundleId = uuidv7();
    const file = store.fileFor(bundleId);
    await fs.mkdir(path.dirname(file), { recursive: true });
    for (const bad of ['{"format": "toolsmith-evals", "version": 1, "bundleId": "', JSON.stringify({ format: 'toolsmith-evals', version: 1, bundleId, cases: [{ id: 'x' }] }), JSON.stringify({ format: 'toolsmith-evals', version: 1, bundleId: uuidv7(), cases: [] })]) {
      await fs.writeFile(file, bad);
      expect(await store.list(bundleId)).toEqual([]);
      await expect(fs.stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    }
    expect(problems.map((p) => p.kind)).toEqual(['corrupt-file', 'corrupt-file', 'corrupt-file']);
    expect(problems[0]!.message).toMatch(/^not valid JSON: .*; read as no eval cases$/);
    expect(problems[1]!.message).toMatch(/^not an eval case file: cases\.0\.name: /);
    expect(problems[2]!.message).toContain('but it is in the folder of');
    expect((await fs.readdir(path.dirname(file))).filter((n) => n.startsWith('evals.json.corrupt-'))).toHaveLength(3);
    await store.save(bundleId, forecastCase());
    expect(await store.list(bundleId)).toHaveLength(1);
  });

  it('adds an archive’s cases as one write, refused whole past the limit; tells which cases expect a tool', async () => {
    const { store } = await stores();
    const bundleId = uuidv7();
    const added = await store.addAll(bundleId, [forecastCase({ name: 'one' }), forecastCase({ name: 'two', expect: { kind: 'tools', tools: [{ tool: 'text/count', args: [] }] } })] as never);
    expect(added.map((c) => c.name)).toEqual(['one', 'two']);
    expect(expectsTool(added[0]!, 'forecast', 'weather')).toBe(true);
    expect(expectsTool(added[0]!, 'weather/forecast', 'weather')).toBe(true);
    expect(expectsTool(added[0]!, 'alerts', 'weather')).toBe(false);
    expect(expectsTool(added[1]!, 'text/count', 'weather')).toBe(true);
    await expect(store.addAll(bundleId, Array.from({ length: 499 }, () => forecastCase()) as never)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await store.list(bundleId)).toHaveLength(2);
    await store.removeAll(bundleId);
    expect(await store.list(bundleId)).toEqual([]);
  });
});

describe('EvalCaseStore size', () => {
  it('refuses a save that would make the file larger than the cap, and sets aside a file past it (which a save would otherwise overwrite)', async () => {
    const dir = await tempDir();
    const problems: Omit<Problem, 'id' | 'at'>[] = [];
    const store = new EvalCaseStore({ dataDir: dir, problems: (p) => problems.push(p), maxFileBytes: 8 * 1024 });
    const bundleId = uuidv7();
    await store.save(bundleId, forecastCase());
    await expect(store.save(bundleId, forecastCase({ prompt: 'x'.repeat(9 * 1024) }))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^the bundle's eval cases would take 1\d KB, more than the 8 KB a bundle's eval case file may be: make cases smaller/),
    });
    expect(await store.list(bundleId)).toHaveLength(1);

    // Written larger by hand (or by another tool): left out and kept aside, never overwritten.
    const file = store.fileFor(bundleId);
    const big = JSON.parse(await fs.readFile(file, 'utf8'));
    big.cases[0].prompt = 'y'.repeat(10 * 1024);
    await fs.writeFile(file, JSON.stringify(big));
    expect(await store.list(bundleId)).toEqual([]);
    expect(problems).toEqual([expect.objectContaining({ kind: 'corrupt-file', message: expect.stringContaining('more than the 8 KB an eval case file may be'), movedTo: expect.stringContaining('evals.json.corrupt-') })]);
    expect(JSON.parse(await fs.readFile(problems[0]!.movedTo!, 'utf8')).cases[0].prompt).toHaveLength(10 * 1024);
  });
});
