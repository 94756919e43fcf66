/**
 * The conformance run's arithmetic: the suite's result folders read back per scenario, the
 * scenarios its log does not score, the comparison with the baseline, and the proxy's renaming
 * of the fixture tools. No suite, no network: folders written here.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nameMap } from './proxy';
import { compare, formatBaseline, formatComparison, formatTable, readResults, scenarioName, summarizeChecks, toBaselineRun, totals, unscoredFromLog, type Check } from './results';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

const ok = (id: string): Check => ({ id, status: 'SUCCESS' });
const bad = (id: string, errorMessage?: string): Check => ({ id, status: 'FAILURE', ...(errorMessage ? { errorMessage } : {}) });

describe('scenario names', () => {
  it('drops the time stamp, and the server- prefix of server runs only', () => {
    expect(scenarioName('server-tools-list-2026-11-29T05-56-21-728Z', 'server')).toBe('tools-list');
    expect(scenarioName('server-server-initialize-2026-11-29T05-56-21-728Z', 'server')).toBe('server-initialize');
    expect(scenarioName(path.join('auth', 'metadata-default-2026-11-29T06-01-35-169Z'), 'client')).toBe('auth/metadata-default');
    expect(scenarioName('server-2026-11-29T06-01-35-169Z', 'client')).toBe('server');
  });
});

describe('one scenario summed up', () => {
  it('counts checks by status and keeps the first failure, on one line and cut short', () => {
    const s = summarizeChecks('x', [ok('a'), { id: 'w', status: 'WARNING' }, bad('b', 'first\n  line'), bad('c', 'second'), { id: 'i', status: 'INFO' }]);
    expect(s).toEqual({ name: 'x', passed: 1, failed: 2, warnings: 1, scored: true, firstFailure: 'b: first line' });
    const long = summarizeChecks('y', [bad('id', 'z'.repeat(500))]);
    expect(long.firstFailure!.length).toBe(160);
    expect(long.firstFailure!.endsWith('…')).toBe(true);
  });

  it('passes with warnings, and with no checks at all', () => {
    expect(totals([summarizeChecks('w', [ok('a'), { id: 'w', status: 'WARNING' }]), summarizeChecks('none', [])]).scenariosPassed).toBe(2);
  });
});

describe('the scenarios a requirements run does not score', () => {
  it('are read from the list after "Not scored for", up to the first other line', () => {
    const log = [
      'Total: 11 passed, 146 failed',
      '',
      'Not scored for 2026-07-28: 3 scenario(s) run, 2 failing. These do not affect conformance.',
      '  ✗ tasks-lifecycle (extension)',
      '  ✓ auth/dpop (extension)',
      '  ✗ json-schema-2020-12 (pending)',
      'something else',
      '  ✗ later-line (extension)',
    ].join('\n');
    expect([...unscoredFromLog(log)]).toEqual([
      ['tasks-lifecycle', 'extension'],
      ['auth/dpop', 'extension'],
      ['json-schema-2020-12', 'pending'],
    ]);
    expect(unscoredFromLog('Total: 1 passed, 0 failed').size).toBe(0);
  });
});

describe('a run read from the folders the suite wrote', () => {
  it('sums each scenario and marks the unscored ones', async () => {
    const out = await fs.mkdtemp(path.join(os.tmpdir(), 'conformance-results-'));
    dirs.push(out);
    const write = async (rel: string, checks: Check[]) => {
      await fs.mkdir(path.join(out, rel), { recursive: true });
      await fs.writeFile(path.join(out, rel, 'checks.json'), JSON.stringify(checks));
    };
    await write('server-ping-2026-11-29T05-56-21-705Z', [ok('ping'), ok('wire')]);
    await write('server-tasks-lifecycle-2026-11-29T05-56-21-705Z', [bad('t', 'no tasks')]);
    await write('server-tools-list-2026-11-29T05-56-21-705Z', [bad('old')]);
    // Run twice: the later folder counts.
    await write('server-tools-list-2026-11-29T05-57-00-000Z', [ok('new')]);
    await write('server-no-checks-2026-11-29T05-56-21-705Z', []);
    // A scenario the suite could not run leaves its folder without checks.json.
    await fs.mkdir(path.join(out, 'server-crashed-2026-11-29T05-56-21-705Z'));
    const log = 'Failed to run scenario crashed: Et [JsonRpcError]: no session  \n    at l (index.js)\nNot scored for 2026-07-28: 1 scenario(s)\n  ✗ tasks-lifecycle (extension)\n';
    const results = await readResults(out, 'server', log);
    const byName = Object.fromEntries(results.map((r) => [r.name, r]));
    expect(Object.keys(byName).sort()).toEqual(['crashed', 'no-checks', 'ping', 'tasks-lifecycle', 'tools-list']);
    expect(byName['crashed']).toMatchObject({ passed: 0, failed: 1, firstFailure: 'not-run: the suite could not run it: Et [JsonRpcError]: no session' });
    expect(byName['no-checks']).toMatchObject({ passed: 0, failed: 0 });
    expect(byName['ping']).toMatchObject({ passed: 2, failed: 0, scored: true });
    expect(byName['tasks-lifecycle']).toMatchObject({ passed: 0, failed: 1, scored: false, firstFailure: 't: no tasks' });
    expect(byName['tools-list']).toMatchObject({ passed: 1, failed: 0 });
    expect(totals(results)).toEqual({ scenarios: 5, scenariosPassed: 3, scored: 4, scoredPassed: 3, checksPassed: 3, checksFailed: 2, warnings: 0 });
    const table = formatTable(results);
    expect(table).toContain('✗ tasks-lifecycle (*)');
    expect(table).toMatch(/✓ ping\s+2\s+0\s+0$/m);
  });
});

describe('against the baseline', () => {
  const base = toBaselineRun(
    [summarizeChecks('a', [ok('x')]), summarizeChecks('b', [bad('x')]), summarizeChecks('c', [ok('x'), bad('y')]), summarizeChecks('gone', [ok('x')])],
    { suite: '0.2.0-alpha.12', commit: 'abc1234', date: '2026-11-29' },
  );

  it('names what newly passes, what newly fails, changed counts, new and missing scenarios', () => {
    const now = [summarizeChecks('a', [bad('x')]), summarizeChecks('b', [ok('x')]), summarizeChecks('c', [ok('x'), ok('z'), bad('y')]), summarizeChecks('new', [ok('x')])];
    const c = compare(base, now, true);
    expect(c).toEqual({ newlyPassing: ['b'], newlyFailing: ['a'], countsChanged: ['c: 1/1 → 2/1'], added: ['new'], missing: ['gone'] });
    const text = formatComparison(c, 'base');
    expect(text).toContain('newly passing (1): b');
    expect(text).toContain('NEWLY FAILING (1): a');
  });

  it('is written one scenario a line, and reads back the same', () => {
    const text = formatBaseline({ runs: { 'server-http@2025-11-25': { ...base, note: 'n' } } });
    expect(JSON.parse(text)).toEqual({ runs: { 'server-http@2025-11-25': { ...base, note: 'n' } } });
    expect(text).toContain('\n        "a": {"passed":1,"failed":0,"warnings":0,"scored":true},\n');
  });

  it('leaves out the scenarios not run when only some were, and says when nothing changed', () => {
    const c = compare(base, [summarizeChecks('a', [ok('x')])], false);
    expect(c.missing).toEqual([]);
    expect(formatComparison(c, 'base')).toContain('no change.');
  });
});

describe('the fixture names between the suite and the server', () => {
  const names = nameMap(['test-simple-text', 'json-schema-2020-12-tool', 'plain']);

  it('renames only the fixture tools, only as a "name" value, both ways, keeping the length', () => {
    const request = '{"method":"tools/call","params":{"name":"test_simple_text","arguments":{"note":"test_simple_text"}}}';
    const served = names.toServer(request);
    expect(served).toBe('{"method":"tools/call","params":{"name":"test-simple-text","arguments":{"note":"test_simple_text"}}}');
    expect(served.length).toBe(request.length);
    expect(names.toSuite('{"tools":[{"name": "json-schema-2020-12-tool"},{"name":"other-tool"}]}')).toBe('{"tools":[{"name": "json_schema_2020_12_tool"},{"name":"other-tool"}]}');
    expect(names.toServer('{"name":"test_simple_text_2"}')).toBe('{"name":"test_simple_text_2"}');
    // The 2026 Mcp-Name header: a fixture's suite name becomes its slug, any other name stays.
    expect(names.nameToServer('test_simple_text')).toBe('test-simple-text');
    expect(names.nameToServer('test_simple_text_2')).toBe('test_simple_text_2');
  });
});
