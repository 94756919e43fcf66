/**
 * Following a suite that runs in the app but was not started by this window (it was
 * reloaded): its steps so far from the list, the steps told while the list was on its way
 * (each once, by its number), then its end.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ContractClient, EventName, EventPayload } from '../../../../shared/contract';
import type { RunningSuite, SuiteProgress, SuiteResult } from '../../../../shared/model/testcase';
import { useSuiteRun } from './suite-run-store';

const BUNDLE = { bundleId: 'b1', bundleSlug: 'demo', slug: 'wait' };
const plan: SuiteProgress = { kind: 'plan', tools: 1, cases: 2 };
const tool: SuiteProgress = { kind: 'tool', ...BUNDLE, version: '1', cases: 2 };
const start = (name: string): SuiteProgress => ({ kind: 'case-start', ...BUNDLE, name });
const done = (name: string, passed: boolean): SuiteProgress => ({
  kind: 'case',
  ...BUNDLE,
  result: { testCaseId: name, name, passed, durationMs: 1, assertions: [] },
});

/** A client whose list answer the test releases, and whose events the test sends. */
function fakeClient(suites: RunningSuite[], cancelled = true) {
  const handlers = new Map<string, ((p: unknown) => void)[]>();
  let release: () => void = () => undefined;
  const listed = new Promise<void>((r) => (release = r));
  const calls: string[] = [];
  const client: ContractClient = {
    call: (async (name: string) => {
      calls.push(name);
      if (name === 'testcases.runningSuites') {
        await listed;
        return { ok: true, value: { suites } };
      }
      return { ok: true, value: { cancelled } };
    }) as ContractClient['call'],
    on: ((name: string, h: (p: unknown) => void) => {
      handlers.set(name, [...(handlers.get(name) ?? []), h]);
      return () => handlers.set(name, (handlers.get(name) ?? []).filter((x) => x !== h));
    }) as ContractClient['on'],
  };
  const emit = <N extends EventName>(name: N, payload: EventPayload<N>) => (handlers.get(name) ?? []).forEach((h) => h(payload));
  const listening = (name: EventName) => (handlers.get(name) ?? []).length;
  return { client, emit, release, calls, listening, suites };
}

const all = async () => ({ kind: 'all' as const });

beforeEach(() => useSuiteRun.setState({ run: null }));

describe('attaching to a suite this window did not start', () => {
  it('shows its steps so far, applies each later step once, and ends with its result', async () => {
    const f = fakeClient([{ runId: 'r1', bundleIds: null, startedAt: '2026-11-24T23:00:00.000Z', progress: [plan, tool, start('first')] }]);
    const attaching = useSuiteRun.getState().attach(f.client, all);
    // Told while the list was on its way: one step the list already holds, one it does not.
    f.emit('testcases.suiteProgress', { runId: 'r1', seq: 2, progress: start('first') });
    f.emit('testcases.suiteProgress', { runId: 'r1', seq: 3, progress: done('first', true) });
    f.emit('testcases.suiteProgress', { runId: 'other', seq: 0, progress: plan });
    f.release();
    expect(await attaching).toBe(true);
    let run = useSuiteRun.getState().run!;
    expect(run).toMatchObject({ runId: 'r1', status: 'running', scope: { kind: 'all' } });
    expect(run.report.total).toBe(2);
    expect(run.report.tools[0]!.results.map((r) => r.name)).toEqual(['first']);

    f.emit('testcases.suiteProgress', { runId: 'r1', seq: 4, progress: start('second') });
    f.emit('testcases.suiteProgress', { runId: 'r1', seq: 3, progress: done('first', true) }); // again: ignored
    run = useSuiteRun.getState().run!;
    expect(run.report.tools[0]!.results.map((r) => r.name)).toEqual(['first']);
    expect(run.report.tools[0]!.running).toBe('second');

    // Cancel asks the app by the run id.
    await useSuiteRun.getState().cancel(f.client);
    expect(f.calls).toContain('testcases.cancelSuite');
    expect(useSuiteRun.getState().run!.cancelling).toBe(true);

    const result: SuiteResult = {
      startedAt: '2026-11-24T23:00:00.000Z',
      durationMs: 10,
      passed: 1,
      failed: 1,
      skipped: 0,
      tools: [{ ...BUNDLE, version: '1', passed: 1, failed: 1, durationMs: 10, results: [done('first', true), done('second', false)].map((p) => (p as Extract<SuiteProgress, { kind: 'case' }>).result) }],
    };
    f.emit('testcases.suiteDone', { runId: 'r1', result });
    run = useSuiteRun.getState().run!;
    expect(run.status).toBe('done');
    expect(run.report.finished).toBe(true);
    expect(f.listening('testcases.suiteProgress')).toBe(0);
    expect(f.listening('testcases.suiteDone')).toBe(0);
  });

  it('finds nothing when no suite runs, and stops listening', async () => {
    const f = fakeClient([]);
    const attaching = useSuiteRun.getState().attach(f.client, all);
    f.release();
    expect(await attaching).toBe(false);
    expect(useSuiteRun.getState().run).toBeNull();
    expect(f.listening('testcases.suiteProgress')).toBe(0);
  });

  it('shows a suite that ended while the list was on its way as ended, with why it failed', async () => {
    const f = fakeClient([{ runId: 'r2', bundleIds: ['b1'], startedAt: '2026-11-24T23:00:00.000Z', progress: [plan] }]);
    const attaching = useSuiteRun.getState().attach(f.client, async () => ({ kind: 'bundle', bundleId: 'b1', name: 'Demo' }));
    f.emit('testcases.suiteDone', { runId: 'r2', error: { code: 'INTERNAL', message: 'the disk is full' } });
    f.release();
    expect(await attaching).toBe(true);
    expect(useSuiteRun.getState().run).toMatchObject({ status: 'failed', scope: { name: 'Demo' }, error: { message: 'the disk is full' } });
  });

  it('ends a followed suite the app no longer runs whose end it never heard: on the next look, or when Cancel finds nothing to stop', async () => {
    const suite: RunningSuite = { runId: 'r3', bundleIds: null, startedAt: '2026-11-24T23:00:00.000Z', progress: [plan, tool] };
    const f = fakeClient([suite]);
    f.release();
    expect(await useSuiteRun.getState().attach(f.client, all)).toBe(true);
    // Still listed: the next look leaves it running.
    expect(await useSuiteRun.getState().attach(f.client, all)).toBe(false);
    expect(useSuiteRun.getState().run).toMatchObject({ runId: 'r3', status: 'running' });
    // It ended while the connection was down: the next look says so, and follows nothing else.
    f.suites.splice(0);
    expect(await useSuiteRun.getState().attach(f.client, all)).toBe(false);
    expect(useSuiteRun.getState().run).toMatchObject({ runId: 'r3', status: 'failed', error: { code: 'UNAVAILABLE' }, report: { finished: true } });
    // And it no longer follows that suite.
    expect(f.listening('testcases.suiteProgress')).toBe(0);
    expect(f.listening('testcases.suiteDone')).toBe(0);

    // The same found by Cancel.
    useSuiteRun.setState({ run: null });
    const g = fakeClient([{ ...suite, runId: 'r4' }], false);
    g.release();
    expect(await useSuiteRun.getState().attach(g.client, all)).toBe(true);
    g.suites.splice(0);
    await useSuiteRun.getState().cancel(g.client);
    expect(useSuiteRun.getState().run).toMatchObject({ runId: 'r4', status: 'failed', error: { code: 'UNAVAILABLE' } });
    expect(g.listening('testcases.suiteDone')).toBe(0);
  });

  it('lets Cancel be pressed again when the ask did not get through', async () => {
    const f = fakeClient([{ runId: 'r6', bundleIds: null, startedAt: '2026-11-24T23:00:00.000Z', progress: [plan] }]);
    f.release();
    expect(await useSuiteRun.getState().attach(f.client, all)).toBe(true);
    const failing: ContractClient = { ...f.client, call: (async () => ({ ok: false, error: { code: 'UNAVAILABLE', message: 'the host cannot be reached' } })) as ContractClient['call'] };
    await useSuiteRun.getState().cancel(failing);
    expect(useSuiteRun.getState().run).toMatchObject({ runId: 'r6', status: 'running', cancelling: false });
    await useSuiteRun.getState().cancel(f.client);
    expect(useSuiteRun.getState().run).toMatchObject({ status: 'running', cancelling: true });
  });

});
