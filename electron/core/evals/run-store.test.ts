import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../shared/model/app-info';
import type { EvalRun } from '../../../shared/model/evals';
import { useTempDirs } from '../testing/temp-dir';
import { EvalRunStore } from './run-store';

const tempDir = useTempDirs();

const run = (startedAt: string, id = randomUUID()): EvalRun => ({
  id,
  startedAt,
  durationMs: 10,
  status: 'done',
  models: [{ providerId: 'p', model: 'm', key: 'p/m', label: 'P/m' }],
  repeat: 1,
  passRate: 1,
  cases: [],
  results: [],
  tools: {},
  toolSets: {},
  totals: { results: 0, passed: 0, failed: 0, errors: 0, notRun: 0, flaky: 0, attempts: 0, inputTokens: 0, outputTokens: 0 },
});

describe('EvalRunStore', () => {
  it('keeps runs one file each, newest first, the newest N only; reads back what it wrote; deletes', async () => {
    const dir = await tempDir();
    const store = new EvalRunStore({ dataDir: dir, maxRuns: 3 });
    const runs = ['01', '02', '03', '04'].map((d) => run(`2026-12-${d}T10:00:00.000Z`));
    for (const r of runs) await store.save(r);
    expect((await store.list()).map((s) => s.startedAt)).toEqual(['2026-12-04T10:00:00.000Z', '2026-12-03T10:00:00.000Z', '2026-12-02T10:00:00.000Z']);
    expect((await fs.readdir(path.join(dir, 'eval-runs'))).sort()).toEqual(runs.slice(1).map((r) => `${r.id}.json`).sort());
    expect(await store.get(runs[3]!.id)).toEqual(runs[3]);
    await expect(store.get(runs[0]!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.get('../../etc/passwd')).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('run ids are UUIDs') });
    await store.delete(runs[3]!.id);
    expect(await store.list(1)).toEqual([expect.objectContaining({ id: runs[2]!.id })]);
    await expect(store.delete(runs[3]!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a file that is not a run is moved aside, reported and left out; the others still list', async () => {
    const dir = await tempDir();
    const problems: Omit<Problem, 'id' | 'at'>[] = [];
    const store = new EvalRunStore({ dataDir: dir, problems: (p) => problems.push(p) });
    const good = run('2026-12-01T10:00:00.000Z');
    await store.save(good);
    const bad = path.join(dir, 'eval-runs', `${randomUUID()}.json`);
    await fs.writeFile(bad, '{"format": "toolsmith-eval-run", "version": 1, "run": {"id": 3}}');
    const truncated = path.join(dir, 'eval-runs', `${randomUUID()}.json`);
    await fs.writeFile(truncated, '{"format": "toolsm');
    expect((await store.list()).map((s) => s.id)).toEqual([good.id]);
    expect(problems.map((p) => [p.kind, p.path])).toEqual(expect.arrayContaining([['corrupt-file', bad], ['corrupt-file', truncated]]));
    expect(problems.every((p) => p.message.endsWith('the run is left out'))).toBe(true);
    expect((await fs.readdir(path.join(dir, 'eval-runs'))).filter((n) => n.includes('.corrupt-'))).toHaveLength(2);
  });

  it('reads a run saved before tool sets (version 1, each step listing its tools) as one with them', async () => {
    const dir = await tempDir();
    const store = new EvalRunStore({ dataDir: dir });
    const id = randomUUID();
    const step = (tools: string[]) => ({ tools, inputTokens: 5, durationMs: 10 });
    const attempt = { n: 1, outcome: 'pass', checks: [], calls: [], answer: 'ok', steps: [step(['t1', 't2']), step(['t1', 't2']), step(['t1'])], inputTokens: 15, outputTokens: 0, durationMs: 30 };
    const result = { caseId: 'c', bundleId: 'b', name: 'c', model: 'p/m', attempts: [attempt], passed: 1, failed: 0, errors: 0, notRun: 0, passRate: 1, verdict: 'pass', flaky: false, chosenInstead: [], inputTokens: 15, outputTokens: 0, meanDurationMs: 30 };
    const { toolSets: _sets, ...v1run } = { ...run('2026-12-01T10:00:00.000Z'), id, results: [result] };
    await fs.mkdir(path.join(dir, 'eval-runs'), { recursive: true });
    await fs.writeFile(path.join(dir, 'eval-runs', `${id}.json`), JSON.stringify({ format: 'toolsmith-eval-run', version: 1, run: v1run }));
    const read = await store.get(id);
    const steps = read.results[0]!.attempts[0]!.steps;
    expect(steps.map((s) => read.toolSets[s.toolSet])).toEqual([['t1', 't2'], ['t1', 't2'], ['t1']]);
    expect(steps[0]!.toolSet).toBe(steps[1]!.toolSet);
    expect(Object.keys(read.toolSets)).toHaveLength(2);
    expect(steps[0]).toEqual({ toolSet: steps[0]!.toolSet, inputTokens: 5, durationMs: 10 });
    expect((await store.list()).map((r) => r.id)).toEqual([id]);
  });
});
