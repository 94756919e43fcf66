import { describe, expect, it } from 'vitest';
import type { EvalExpect, EvalProgress, EvalRun } from '../../../../shared/model/evals';
import { applyEvalProgress, argsComparisons, EMPTY_LIVE, expectedArgs, firstToShow, formatCost, formatRate, liveCounts, modelSaw, rateTable, simplePath } from './eval-report';
import { attempt, call, result } from './testing/eval-samples';

const A = { key: 'p1/good', label: 'Local/good' };
const B = { key: 'p1/bad', label: 'Local/bad' };

describe('a run followed from its progress', () => {
  it('knows the attempts to make from the plan, the attempt going on, and each result once', () => {
    const steps: EvalProgress[] = [
      { kind: 'plan', cases: 1, models: [A.key, B.key], repeat: 2, attempts: 4 },
      { kind: 'attempt-start', caseId: 'c1', bundleId: 'b1', model: A.key, name: 'weather', n: 1 },
    ];
    let live = steps.reduce(applyEvalProgress, EMPTY_LIVE);
    expect(liveCounts(live)).toEqual({ done: 0, total: 4 });
    expect(live.current).toMatchObject({ model: A.key, n: 1 });
    live = applyEvalProgress(live, { kind: 'attempt', caseId: 'c1', bundleId: 'b1', model: A.key, name: 'weather', attempt: attempt() });
    expect(live.current).toBeUndefined();
    expect(liveCounts(live)).toEqual({ done: 1, total: 4 });
    const r = result({ caseId: 'c1', model: A.key });
    live = applyEvalProgress(applyEvalProgress(live, { kind: 'result', result: r }), { kind: 'result', result: { ...r, passed: 2 } });
    expect(live.results.map((x) => x.passed)).toEqual([2]);
    expect(liveCounts(EMPTY_LIVE)).toEqual({ done: 0, total: null });
  });
});

describe('the pass-rate table', () => {
  it('has a row per case and a column per model, with each model’s rate over every case', () => {
    const results = [
      result({ caseId: 'c1', name: 'weather', model: A.key, passed: 2, failed: 0 }),
      result({ caseId: 'c1', name: 'weather', model: B.key, passed: 1, failed: 1 }),
      result({ caseId: 'c2', name: 'forecast', model: A.key, passed: 0, failed: 2, chosenInstead: [{ tool: 'shop/search', attempts: 2 }] }),
    ];
    const t = rateTable([A, B], [{ caseId: 'c1', bundleId: 'b1', name: 'weather' }], results);
    // A case a result names that the list lacks gets its row too.
    expect(t.rows.map((r) => r.name)).toEqual(['weather', 'forecast']);
    expect(t.rows[1]!.cells.map((c) => c?.verdict)).toEqual(['fail', undefined]);
    expect(t.rows[0]!.cells[1]!.flaky).toBe(true);
    expect(t.totals).toEqual([
      { passed: 2, judged: 4, rate: 0.5 },
      { passed: 1, judged: 2, rate: 0.5 },
    ]);
    // The first failing cell is shown first.
    expect(firstToShow(t)).toEqual({ caseId: 'c1', bundleId: 'b1', model: B.key });
  });

  it('says rates and costs as a person reads them', () => {
    expect(formatRate(2 / 3)).toBe('67 %');
    expect(formatRate(null)).toBe('—');
    expect(formatCost(0.000412)).toBe('0.00041');
    expect(formatCost(1.5)).toBe('1.50');
    expect(formatCost(0)).toBe('0');
    expect(formatCost(4e-7)).toBe('0.00000040');
    expect(formatCost(0.5)).toBe('0.50');
  });
});

describe('arguments against what the case expects', () => {
  it('reads the simple JSONPaths and no others', () => {
    expect(simplePath("$['city']")).toEqual(['city']);
    expect(simplePath('$.items[2].name')).toEqual(['items', 2, 'name']);
    expect(simplePath('$["a b"]')).toEqual(['a b']);
    expect(simplePath('$')).toEqual([]);
    expect(simplePath('$..name')).toBeNull();
    expect(simplePath('$.items[*]')).toBeNull();
    expect(simplePath('city')).toBeNull();
  });

  it('lays the expected values over what the model gave, and lists the checks it cannot draw', () => {
    const { expected, notDrawn } = expectedArgs({ city: 'Lyon', units: 'metric' }, [
      { kind: 'jsonPathEquals', path: "$['city']", value: 'Paris' },
      { kind: 'jsonPathEquals', path: '$.days[0]', value: 'mon' },
      { kind: 'contains', text: 'Paris' },
    ]);
    expect(expected).toEqual({ city: 'Paris', units: 'metric', days: ['mon'] });
    expect(notDrawn).toEqual([{ kind: 'contains', text: 'Paris' }]);
  });

  const expect1: EvalExpect = { kind: 'tools', tools: [{ tool: 'get-weather', args: [{ kind: 'jsonPathEquals', path: "$['city']", value: 'Paris' }] }] };

  it('diffs the expected tool’s call that failed its checks', () => {
    const a = attempt({
      outcome: 'fail',
      calls: [call({ name: 'get_weather', tool: 'weather/get-weather@1', args: { city: 'Lyon' } })],
      checks: [
        { part: 'tool', tool: 'weather/get-weather', passed: true, message: 'called weather/get-weather' },
        { part: 'args', tool: 'weather/get-weather', passed: false, message: "expected $['city'] to equal \"Paris\", got \"Lyon\"", compared: { expected: 'Paris', actual: 'Lyon' } },
      ],
    });
    const [c] = argsComparisons(expect1, a, 'weather');
    expect(c).toMatchObject({ tool: 'weather/get-weather', calledAs: 'weather/get-weather', expected: { city: 'Paris' }, passed: false });
    expect(c!.call!.args).toEqual({ city: 'Lyon' });
  });

  it('shows the tool called instead when the expected one was not called', () => {
    const a = attempt({
      outcome: 'fail',
      calls: [call({ name: 'tool_search', kind: 'search', args: { query: 'weather' } }), call({ name: 'get_forecast', tool: 'weather/get-forecast@2', args: { town: 'Paris' } })],
      checks: [{ part: 'tool', tool: 'weather/get-weather', passed: false, message: 'expected a call of weather/get-weather; the model called weather/get-forecast' }],
    });
    const [c] = argsComparisons(expect1, a, 'weather');
    expect(c).toMatchObject({ tool: 'weather/get-weather', calledAs: 'weather/get-forecast', passed: false, expected: { town: 'Paris', city: 'Paris' } });
    expect(argsComparisons({ kind: 'none' }, a, 'weather')).toEqual([]);
  });
});

describe('what the model saw', () => {
  it('gives the tools of each step, marks the expected and called ones, and names an expected tool never offered', () => {
    const run: Pick<EvalRun, 'tools' | 'toolSets'> = {
      toolSets: { a: ['s'], b: ['s', 'f'] },
      tools: {
        s: { name: 'tool_search', description: 'Finds tools', parameters: {} },
        f: { name: 'get_forecast', description: 'The forecast', parameters: {}, tool: { bundleId: 'b1', bundleSlug: 'weather', slug: 'get-forecast', version: '2' } },
      },
    };
    const a = attempt({
      calls: [call({ name: 'get_forecast', tool: 'weather/get-forecast@2' })],
      steps: [
        { toolSet: 'a', durationMs: 5 },
        { toolSet: 'b', durationMs: 5 },
        { toolSet: 'b', durationMs: 5 },
        { toolSet: 'a', durationMs: 5 },
      ],
    });
    const saw = modelSaw(run, a, ['weather/get-weather']);
    // Steps in a row that carried the same tools are one.
    expect(saw.steps.map((s) => [s.n, s.to, s.tools.map((t) => t.name)])).toEqual([
      [1, 1, ['tool_search']],
      // The registry's tools before tool_search.
      [2, 3, ['get_forecast', 'tool_search']],
      [4, 4, ['tool_search']],
    ]);
    expect(saw.steps[1]!.tools[0]).toMatchObject({ label: 'weather/get-forecast', called: true, expected: false });
    expect(saw.open).toBe(2);
    expect(saw.notOffered).toEqual(['weather/get-weather']);
  });
});
