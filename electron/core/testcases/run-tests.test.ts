import { v7 as uuidv7 } from 'uuid';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { OpInput, OpName, OpOutput } from '../../../shared/contract';
import { AppError, type Result } from '../../../shared/errors';
import type { Assertion, TestCase } from '../../../shared/model/testcase';
import { EventBus } from '../events';
import { suiteRuns, testcaseHandlers } from './testcase-handlers';
import { InvokeDispatcher, type InvokeOutcome } from '../invoke/dispatcher';
import { InvocationLog } from '../invoke/invocation-log';
import { closeSchemaRegExp } from '../lib/schema-regexp';
import type { LocalFunction, Transport } from '../invoke/types';
import { ProblemLog } from '../problems';
import { createRouter, type HandlerTable } from '../router';
import { ToolStore } from '../bundles/tool-store';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { TestCaseStore } from './test-case-store';
import { assertionViolation, jsonEqual, MAX_COMPARED_CHARS, runTestCases, selectJsonPath } from './run-tests';
import { runSuite, type SuiteOptions } from './run-suite';

afterAll(() => closeSchemaRegExp());

const OUTPUT_SCHEMA = { type: 'object', properties: { echo: { type: 'string' }, n: { type: 'number' } }, required: ['echo'] };

function testCase(name: string, assertions: Assertion[], args: unknown = { name }): TestCase {
  return { id: `id-${name}`, name, args, assertions, createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-01T00:00:00.000Z' };
}

const okOutcome = (value: unknown, durationMs = 5): InvokeOutcome => ({ ok: true, value, invocationId: 'inv-1', durationMs, attempts: 1 });
const errOutcome = (code: 'VALIDATION_FAILED' | 'TIMEOUT', message: string): InvokeOutcome => ({ ok: false, error: { code, message }, invocationId: 'inv-2', durationMs: 7, attempts: 1 });

/** Checks one assertion against one outcome; answers [passed, message]. */
async function check(a: Assertion, outcome: InvokeOutcome, outputSchema: object = OUTPUT_SCHEMA): Promise<[boolean, string]> {
  const s = await runTestCases([testCase('t', [a])], async () => outcome, { outputSchema: outputSchema as Record<string, unknown> });
  const r = s.results[0]!.assertions[0]!;
  return [r.passed, r.message];
}

describe('runTestCases', () => {
  it('checks ok and error, with or without a code', async () => {
    const bad = errOutcome('VALIDATION_FAILED', "the arguments do not match echo's argSchema: /text must be string");
    expect(await check({ kind: 'ok' }, okOutcome({ echo: 'a' }))).toEqual([true, 'answered ok']);
    expect(await check({ kind: 'ok' }, bad)).toEqual([false, "expected ok, got VALIDATION_FAILED: the arguments do not match echo's argSchema: /text must be string"]);
    expect(await check({ kind: 'error' }, bad)).toEqual([true, 'failed as expected with VALIDATION_FAILED']);
    expect(await check({ kind: 'error', code: 'VALIDATION_FAILED' }, bad)).toEqual([true, 'failed as expected with VALIDATION_FAILED']);
    expect(await check({ kind: 'error', code: 'TIMEOUT' }, bad)).toEqual([false, expect.stringMatching(/^expected error TIMEOUT, got VALIDATION_FAILED: /)]);
    expect(await check({ kind: 'error', code: 'TIMEOUT' }, okOutcome({ echo: 'a' }))).toEqual([false, 'expected error TIMEOUT, got ok: {"echo":"a"}']);
  });

  it('checks the result against the outputSchema with ajv', async () => {
    expect(await check({ kind: 'matchesOutputSchema' }, okOutcome({ echo: 'a' }))).toEqual([true, 'the result matches the outputSchema']);
    const [passed, message] = await check({ kind: 'matchesOutputSchema' }, okOutcome({ echo: 1, n: 'x' }));
    expect(passed).toBe(false);
    expect(message).toContain('/echo must be string');
    expect(message).toContain('/n must be number');
    expect(await check({ kind: 'matchesOutputSchema' }, errOutcome('TIMEOUT', 'slow'))).toEqual([false, 'expected a result matching the outputSchema, got TIMEOUT: slow']);
    expect((await check({ kind: 'matchesOutputSchema' }, okOutcome({}), { type: 'nonsense' }))[1]).toContain('the outputSchema does not compile');
  });

  it('checks the result against an outputSchema with backtracking patterns: it answers, or fails naming the pattern', async () => {
    const evil = `${'a'.repeat(40)}b`;
    const nested = { type: 'object', properties: { echo: { type: 'string', pattern: '^(a+)+$' } } };
    expect(await check({ kind: 'matchesOutputSchema' }, okOutcome({ echo: evil }), nested)).toEqual([false, 'the result does not match the outputSchema: /echo must match pattern "^(a+)+$"']);
    expect(await check({ kind: 'matchesOutputSchema' }, okOutcome({ echo: 'aaa' }), nested)).toEqual([true, 'the result matches the outputSchema']);
    const look = { type: 'object', properties: { echo: { type: 'string', pattern: '^(?=(a+)+$)' } } };
    const [passed, message] = await check({ kind: 'matchesOutputSchema' }, okOutcome({ echo: evil }), look);
    expect(passed).toBe(false);
    expect(message).toMatch(/^the result does not match the outputSchema: \(root\) the schema pattern '\^\(\?=\(a\+\)\+\$\)' ran longer than \d+ ms/);
  });

  it('checks that the JSON text of the result contains a text', async () => {
    expect(await check({ kind: 'contains', text: '"echo":"hi' }, okOutcome({ echo: 'hi there' }))).toEqual([true, `the result contains '"echo":"hi'`]);
    expect(await check({ kind: 'contains', text: 'line one\nline two' }, okOutcome('line one\nline two'))).toEqual([true, expect.any(String)]);
    expect(await check({ kind: 'contains', text: 'bye' }, okOutcome({ echo: 'hi' }))).toEqual([false, `expected the result to contain 'bye'; it does not: {"echo":"hi"}`]);
    expect((await check({ kind: 'contains', text: 'x' }, okOutcome(undefined)))[0]).toBe(false);
  });

  it('checks that the first value a JSONPath selects deep-equals a value', async () => {
    const value = { items: [{ id: 1, tags: ['a', 'b'] }, { id: 2 }], meta: { total: 2, zero: 0 } };
    expect(await check({ kind: 'jsonPathEquals', path: '$.meta.total', value: 2 }, okOutcome(value))).toEqual([true, '$.meta.total equals 2']);
    expect((await check({ kind: 'jsonPathEquals', path: '$.items[*].id', value: 1 }, okOutcome(value)))[0]).toBe(true);
    expect((await check({ kind: 'jsonPathEquals', path: '$.items[0]', value: { tags: ['a', 'b'], id: 1 } }, okOutcome(value)))[0]).toBe(true);
    expect((await check({ kind: 'jsonPathEquals', path: '$.meta.zero', value: -0 }, okOutcome(value)))[0]).toBe(true);
    expect(await check({ kind: 'jsonPathEquals', path: '$.items[0].tags', value: ['b', 'a'] }, okOutcome(value))).toEqual([false, 'expected $.items[0].tags to equal ["b","a"], got ["a","b"]']);
    expect((await check({ kind: 'jsonPathEquals', path: '$.missing', value: 1 }, okOutcome(value)))[1]).toContain('selects nothing');
    expect((await check({ kind: 'jsonPathEquals', path: '$[?(@.id)]', value: 1 }, okOutcome(value)))[1]).toContain('cannot be evaluated');
    expect((await check({ kind: 'jsonPathEquals', path: '$', value: null }, okOutcome(null)))[0]).toBe(true);
    expect((await check({ kind: 'jsonPathEquals', path: '$', value: 'x' }, okOutcome('x')))[0]).toBe(true);
    expect((await check({ kind: 'jsonPathEquals', path: '$.a', value: 1 }, errOutcome('TIMEOUT', 'slow')))[1]).toBe('expected $.a to equal 1, got TIMEOUT: slow');
  });

  it('gives a failed JSONPath comparison both values for a diff, unless one is too large to carry', async () => {
    const compared = async (a: Assertion, o: InvokeOutcome) => (await runTestCases([testCase('t', [a])], async () => o, { outputSchema: {} })).results[0]!.assertions[0]!.compared;
    expect(await compared({ kind: 'jsonPathEquals', path: '$', value: { a: 1, b: [1, 2] } }, okOutcome({ a: 1, b: [1, 3] }))).toEqual({ expected: { a: 1, b: [1, 2] }, actual: { a: 1, b: [1, 3] } });
    expect(await compared({ kind: 'jsonPathEquals', path: '$.n', value: null }, okOutcome({ n: 0 }))).toEqual({ expected: null, actual: 0 });
    // A pass, nothing selected, an error: nothing to compare.
    expect(await compared({ kind: 'jsonPathEquals', path: '$.n', value: 0 }, okOutcome({ n: 0 }))).toBeUndefined();
    expect(await compared({ kind: 'jsonPathEquals', path: '$.m', value: 0 }, okOutcome({ n: 0 }))).toBeUndefined();
    expect(await compared({ kind: 'jsonPathEquals', path: '$', value: 0 }, errOutcome('TIMEOUT', 'slow'))).toBeUndefined();
    expect(await compared({ kind: 'jsonPathEquals', path: '$', value: 'x' }, okOutcome('y'.repeat(MAX_COMPARED_CHARS)))).toBeUndefined();
  });

  it('checks the latency from the outcome', async () => {
    expect(await check({ kind: 'latencyUnder', ms: 100 }, okOutcome({ echo: 'a' }, 12.4))).toEqual([true, 'took 12 ms (under 100 ms)']);
    expect(await check({ kind: 'latencyUnder', ms: 100 }, okOutcome({ echo: 'a' }, 150))).toEqual([false, 'expected to take under 100 ms, took 150 ms']);
  });

  it('runs cases in order, one at a time, and sums them up', async () => {
    const seen: unknown[] = [];
    let running = 0;
    const run = async (args: unknown) => {
      expect(running).toBe(0);
      running++;
      seen.push(args);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return (args as { name: string }).name === 'bad' ? errOutcome('VALIDATION_FAILED', 'nope') : okOutcome({ echo: 'a' }, 3);
    };
    const s = await runTestCases(
      [testCase('good', [{ kind: 'ok' }, { kind: 'latencyUnder', ms: 1000 }]), testCase('bad', [{ kind: 'ok' }, { kind: 'latencyUnder', ms: 1000 }]), testCase('bare', [])],
      run,
      { outputSchema: OUTPUT_SCHEMA },
    );
    expect(seen).toEqual([{ name: 'good' }, { name: 'bad' }, { name: 'bare' }]);
    expect(s).toMatchObject({ passed: 2, failed: 1 });
    expect(s.results.map((r) => [r.name, r.passed])).toEqual([['good', true], ['bad', false], ['bare', true]]);
    expect(s.results[1]).toMatchObject({ testCaseId: 'id-bad', invocationId: 'inv-2', durationMs: 7, assertions: [{ passed: false, message: 'expected ok, got VALIDATION_FAILED: nope' }, { passed: true }] });
    // A case without assertions expects ok.
    expect(s.results[2]!.assertions).toEqual([{ assertion: { kind: 'ok' }, passed: true, message: 'answered ok' }]);
  });

  it('reports a refused call as an error outcome, and cases after a cancel as not run', async () => {
    const controller = new AbortController();
    const s = await runTestCases(
      [testCase('refused', [{ kind: 'error', code: 'CONFLICT' }]), testCase('after', [{ kind: 'ok' }])],
      async () => {
        controller.abort();
        throw new AppError('CONFLICT', 'invocation x is already running');
      },
      { outputSchema: {} },
      { signal: controller.signal },
    );
    expect(s.results[0]).toMatchObject({ passed: true, assertions: [{ message: 'failed as expected with CONFLICT' }] });
    expect(s.results[0]).not.toHaveProperty('invocationId');
    expect(s.results[1]).toMatchObject({ passed: false, assertions: [{ passed: false, message: 'not run: the test run was cancelled' }] });
    expect(s).toMatchObject({ passed: 1, failed: 1 });
  });
});

describe('helpers', () => {
  it('jsonEqual compares JSON values deeply, ignoring key order', () => {
    expect(jsonEqual({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
    let deep: unknown = 1;
    let deep2: unknown = 1;
    for (let i = 0; i < 100_000; i++) {
      deep = [deep];
      deep2 = [deep2];
    }
    expect(jsonEqual(deep, deep2)).toBe(true);
  });

  it('selectJsonPath refuses scripts and paths without $', () => {
    expect(selectJsonPath('$.a..b', { a: { x: { b: 1 } } })).toEqual([1]);
    expect(() => selectJsonPath('a.b', {})).toThrow(/must start with \$/);
    expect(() => selectJsonPath('$..[?(@.constructor)]', {})).toThrow();
  });

  it('assertionViolation names checks that can never run', () => {
    expect(assertionViolation({ kind: 'error', code: 'TIMEOUT' }, 'a')).toBeNull();
    expect(assertionViolation({ kind: 'error', code: 'timeout' }, 'a')).toMatchObject({ field: 'a.code', rule: 'error-code' });
    expect(assertionViolation({ kind: 'jsonPathEquals', path: '$.x', value: 0 }, 'a')).toBeNull();
    expect(assertionViolation({ kind: 'jsonPathEquals', path: '$[(@.length-1)]', value: 0 }, 'a')).toMatchObject({ rule: 'jsonpath' });
  });
});

// ---- through the handlers, with a real store, dispatcher and router --------------------------

describe('testcaseHandlers', () => {
  const tempDir = useTempDirs();
  const closers: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  /** Calls of test.wait that have started, each with the way to let it answer. */
  const waiting: (() => void)[] = [];
  const FUNCTIONS: Record<string, LocalFunction> = {
    'test.echo': async (_ctx, args) => ({ echo: args.text }),
    'test.upper': async (_ctx, args) => ({ echo: String(args.text).toUpperCase() }),
    'test.wait': (_ctx, args, signal) =>
      new Promise((resolve, reject) => {
        waiting.push(() => resolve({ echo: args.text }));
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  };

  const toolBody = (functionId: string) => ({
    displayName: 'Echo',
    description: '',
    tags: [],
    type: 'local' as const,
    argSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 20 } }, required: ['text'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] },
    local: { functionId },
    isEnabled: true,
  });

  async function setup() {
    const dataDir = await tempDir();
    const toolStore = new ToolStore({ dataDir, resourcesDir: RESOURCES_DIR, problems: new ProblemLog(new EventBus(), () => new Date()), usageFlushMs: 10 });
    await toolStore.open();
    const log = InvocationLog.open(':memory:');
    closers.push(() => toolStore.close(), () => log.close());
    const dispatcher = new InvokeDispatcher({
      store: toolStore,
      log,
      redact: (t) => t,
      localFunctions: { get: (id) => FUNCTIONS[id] },
      localContext: () => ({ workspaceDir: dataDir, now: () => new Date(), transport: {} as Transport, allowedHosts: () => [] }),
      defaultTimeoutMs: 5_000,
    });
    const bundleId = uuidv7();
    await toolStore.putBundle(bundleId, { slug: 'tests', displayName: 'Tests', description: '', isEnabled: true });
    await toolStore.putTool(bundleId, 'echo', '1', toolBody('test.echo'));
    const store = new TestCaseStore({ dataDir });
    const events = new EventBus();
    const runSuiteHere = (options: SuiteOptions) => runSuite({ cases: store, tools: toolStore, invoke: (r) => dispatcher.invoke({ ...r, source: 'tester' }) }, options);
    // Only this group's handlers: the router parses inputs and checks outputs against the contract.
    const router = createRouter(testcaseHandlers({ store, dispatcher, toolStore, runSuite: runSuiteHere, suites: suiteRuns(), events }) as unknown as HandlerTable);
    const call = async <N extends OpName>(name: N, input: OpInput<N>) => router.call(name, input) as Promise<Result<OpOutput<N>>>;
    const value = async <N extends OpName>(name: N, input: OpInput<N>) => {
      const r = await call(name, input);
      if (!r.ok) throw new Error(`${name}: ${r.error.code} ${r.error.message}`);
      return r.value;
    };
    return { bundleId, call, value, log, toolStore, events };
  }

  it('saves, lists and deletes cases through the contract', async () => {
    const { bundleId, call, value } = await setup();
    const saved = await value('testcases.save', { bundleId, slug: 'echo', testCase: { name: 'hi', args: { text: 'hi' }, assertions: [{ kind: 'ok' }] } });
    expect(await value('testcases.list', { bundleId, slug: 'echo' })).toEqual([saved]);
    const renamed = await value('testcases.save', { bundleId, slug: 'echo', testCase: { id: saved.id, name: 'hello', args: { text: 'hello' }, assertions: [] } });
    expect(renamed).toMatchObject({ id: saved.id, name: 'hello', createdAt: saved.createdAt });
    expect(await value('testcases.delete', { bundleId, slug: 'echo', id: saved.id })).toEqual({ deleted: true });
    expect(await call('testcases.delete', { bundleId, slug: 'echo', id: saved.id })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // Cases may be kept for a slug with no saved version (a new tool's draft), but not for a missing bundle.
    expect((await call('testcases.save', { bundleId, slug: 'brand-new', testCase: { name: 'x', args: {}, assertions: [] } })).ok).toBe(true);
    expect(await call('testcases.save', { bundleId: uuidv7(), slug: 'echo', testCase: { name: 'x', args: {}, assertions: [] } })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await call('testcases.list', { bundleId: 'not-an-id', slug: 'echo' })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });

  it('runs every case, or the chosen ones, against the saved version and logs the calls as the tester', async () => {
    const { bundleId, call, value, log } = await setup();
    const save = (name: string, args: unknown, assertions: Assertion[]) => value('testcases.save', { bundleId, slug: 'echo', testCase: { name, args, assertions } });
    const good = await save('echoes', { text: 'hi' }, [{ kind: 'ok' }, { kind: 'matchesOutputSchema' }, { kind: 'contains', text: 'hi' }, { kind: 'jsonPathEquals', path: '$.echo', value: 'hi' }, { kind: 'latencyUnder', ms: 5000 }]);
    const refused = await save('refuses long text', { text: 'x'.repeat(30) }, [{ kind: 'error', code: 'VALIDATION_FAILED' }]);
    const wrong = await save('wrong expectation', { text: 'hi' }, [{ kind: 'jsonPathEquals', path: '$.echo', value: 'bye' }]);

    const summary = await value('testcases.runAll', { bundleId, slug: 'echo', version: '1' });
    expect(summary).toMatchObject({ passed: 2, failed: 1 });
    expect(summary.results.map((r) => [r.testCaseId, r.passed])).toEqual([[good.id, true], [refused.id, true], [wrong.id, false]]);
    expect(summary.results[2]!.assertions[0]!.message).toBe('expected $.echo to equal "bye", got "hi"');
    log.flush();
    expect(log.get(summary.results[0]!.invocationId!)).toMatchObject({ source: 'tester', slug: 'echo', args: { text: 'hi' } });

    const some = await value('testcases.runAll', { bundleId, slug: 'echo', version: '1', ids: [wrong.id] });
    expect(some.results.map((r) => r.testCaseId)).toEqual([wrong.id]);
    expect(await call('testcases.runAll', { bundleId, slug: 'echo', version: '1', ids: ['gone'] })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringContaining("'gone'") } });
    expect(await call('testcases.runAll', { bundleId, slug: 'echo', version: '9' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await value('testcases.runAll', { bundleId, slug: 'nothing-saved', version: '1', draft: toolBody('test.echo') })).toEqual({ passed: 0, failed: 0, results: [] });
  });

  it('runs the cases against a draft when one is given, and refuses a broken draft once', async () => {
    const { bundleId, call, value } = await setup();
    await value('testcases.save', { bundleId, slug: 'echo', testCase: { name: 'shouts', args: { text: 'hi' }, assertions: [{ kind: 'jsonPathEquals', path: '$.echo', value: 'HI' }] } });
    expect(await value('testcases.runAll', { bundleId, slug: 'echo', version: '1' })).toMatchObject({ passed: 0, failed: 1 });
    expect(await value('testcases.runAll', { bundleId, slug: 'echo', version: '2', draft: toolBody('test.upper') })).toMatchObject({ passed: 1, failed: 0 });
    const broken = await call('testcases.runAll', { bundleId, slug: 'echo', version: '2', draft: { ...toolBody('test.upper'), type: 'http' } });
    expect(broken).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', message: expect.stringContaining('the draft is not a valid tool') } });
  });

  it('runs the cases of chosen bundles, or of every bundle switched on, as a suite with progress events under its run id', async () => {
    const { bundleId, call, value, toolStore, events } = await setup();
    await value('testcases.save', { bundleId, slug: 'echo', testCase: { name: 'echoes', args: { text: 'hi' }, assertions: [{ kind: 'jsonPathEquals', path: '$', value: { echo: 'hi' } }] } });
    await value('testcases.save', { bundleId, slug: 'echo', testCase: { name: 'wrong', args: { text: 'hi' }, assertions: [{ kind: 'jsonPathEquals', path: '$', value: { echo: 'bye' } }] } });
    const offId = uuidv7();
    await toolStore.putBundle(offId, { slug: 'off', displayName: 'Off', description: '', isEnabled: false });
    await value('testcases.save', { bundleId: offId, slug: 'echo', testCase: { name: 'never run', args: {}, assertions: [] } });

    const runId = uuidv7();
    const seen: string[] = [];
    const off = events.on('testcases.suiteProgress', (e) => seen.push(`${e.runId === runId ? 'mine' : 'other'} ${e.progress.kind}`));
    const suite = await value('testcases.runSuite', { runId, bundleIds: [bundleId, bundleId] });
    off();
    expect([suite.passed, suite.failed, suite.skipped]).toEqual([1, 1, 0]);
    expect(suite.tools.map((t) => [t.bundleId, t.slug, t.version])).toEqual([[bundleId, 'echo', '1']]);
    expect(suite.tools[0]!.results[1]!.assertions[0]!.compared).toEqual({ expected: { echo: 'bye' }, actual: { echo: 'hi' } });
    expect(seen).toEqual(['mine plan', 'mine tool', 'mine case-start', 'mine case', 'mine case-start', 'mine case']);

    // Without names: the bundles switched on (the built-ins have no cases); a bundle named is run even when off (its cases skipped, saying why).
    const all = await value('testcases.runSuite', { runId: uuidv7() });
    expect(all.tools.map((t) => t.bundleId)).toEqual([bundleId]);
    const named = await value('testcases.runSuite', { runId: uuidv7(), bundleIds: [offId] });
    expect([named.skipped, named.tools[0]!.skipped]).toEqual([1, "'off' has no saved version of 'echo'"]);
    expect(await call('testcases.runSuite', { runId: uuidv7(), bundleIds: [uuidv7()] })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await call('testcases.runSuite', { runId: 'not-a-uuid' })).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });

  it('cancels a running suite by its run id: the case running is cancelled, the rest not run', async () => {
    const { bundleId, call, value, toolStore, events } = await setup();
    await toolStore.putTool(bundleId, 'slow', '1', toolBody('test.wait'));
    for (const name of ['first', 'second', 'third']) await value('testcases.save', { bundleId, slug: 'slow', testCase: { name, args: { text: name }, assertions: [] } });
    const runId = uuidv7();
    const started = new Promise<void>((resolve) => {
      const off = events.on('testcases.suiteProgress', (e) => {
        if (e.runId !== runId || e.progress.kind !== 'case-start') return;
        off();
        resolve();
      });
    });
    const running = call('testcases.runSuite', { runId, bundleIds: [bundleId] });
    await started;
    // A second suite under the same id is refused while the first runs.
    expect(await call('testcases.runSuite', { runId, bundleIds: [bundleId] })).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(await value('testcases.cancelSuite', { runId })).toEqual({ cancelled: true });
    const r = await running;
    if (!r.ok) throw new Error(r.error.message);
    const results = r.value.tools[0]!.results;
    expect(results.map((x) => x.passed)).toEqual([false, false, false]);
    expect(results[0]!.assertions[0]!.message).toContain('CANCELLED');
    expect(results[1]!.assertions[0]!.message).toBe('not run: the test run was cancelled');
    expect(await value('testcases.cancelSuite', { runId })).toEqual({ cancelled: false });
    waiting.splice(0);
  });

  it('lists a running suite with its steps so far, numbers its steps, and tells its end, for a window that did not start it', async () => {
    const { bundleId, call, value, toolStore, events } = await setup();
    await toolStore.putTool(bundleId, 'slow', '1', toolBody('test.wait'));
    for (const name of ['first', 'second']) await value('testcases.save', { bundleId, slug: 'slow', testCase: { name, args: { text: name }, assertions: [] } });
    expect(await value('testcases.runningSuites', {})).toEqual({ suites: [] });
    const runId = uuidv7();
    const seqs: number[] = [];
    const done: unknown[] = [];
    const offDone = events.on('testcases.suiteDone', (e) => done.push(e));
    const started = new Promise<void>((resolve) => {
      const off = events.on('testcases.suiteProgress', (e) => {
        if (e.runId !== runId) return;
        seqs.push(e.seq);
        if (e.progress.kind === 'case-start') {
          off();
          resolve();
        }
      });
    });
    const running = call('testcases.runSuite', { runId, bundleIds: [bundleId] });
    await started;
    const { suites } = await value('testcases.runningSuites', {});
    expect(suites).toHaveLength(1);
    expect(suites[0]).toMatchObject({ runId, bundleIds: [bundleId], startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(suites[0]!.progress.map((p) => p.kind)).toEqual(['plan', 'tool', 'case-start']);
    expect(seqs).toEqual([0, 1, 2]);
    expect(done).toEqual([]);
    // A refused second run under the same id is not the first one's end.
    expect(await call('testcases.runSuite', { runId, bundleIds: [bundleId] })).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(done).toEqual([]);
    await value('testcases.cancelSuite', { runId });
    const r = await running;
    offDone();
    if (!r.ok) throw new Error(r.error.message);
    expect(done).toEqual([{ runId, result: r.value }]);
    expect(await value('testcases.runningSuites', {})).toEqual({ suites: [] });
    waiting.splice(0);
  });
});
