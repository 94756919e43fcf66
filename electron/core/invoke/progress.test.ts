/**
 * A running call's progress through the dispatcher: its back-end's reports reach the listeners in
 * order, at most one per interval per call with the last always delivered before the answer; each
 * report starts the call's time limit again, up to its cap.
 */
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InvocationProgress } from '../../../shared/model/invocation';
import { EventBus } from '../events';
import { ProblemLog } from '../problems';
import { ToolStore } from '../bundles/tool-store';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { InvokeDispatcher, type Backend, type BackendCall, type BackendResult } from './dispatcher';
import { InvocationLog } from './invocation-log';
import { PROGRESS_INTERVAL_MS, PROGRESS_TIMEOUT_FACTOR } from './progress';
import type { Transport } from './types';

const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of closers.splice(0)) await c();
});

/** A back-end the test drives: each call is handed over, to report progress and answer when the test says. */
function drivenBackend() {
  const calls: { call: BackendCall; answer: (r: BackendResult) => void }[] = [];
  const backend: Backend = (call) => new Promise((answer) => calls.push({ call, answer }));
  return { backend, calls };
}

async function setup(backend: Backend) {
  const dataDir = await tempDir();
  const store = new ToolStore({ dataDir, resourcesDir: RESOURCES_DIR, problems: new ProblemLog(new EventBus(), () => new Date()), usageFlushMs: 10 });
  await store.open();
  const log = InvocationLog.open(':memory:');
  closers.push(() => store.close(), () => log.close());
  const dispatcher = new InvokeDispatcher({
    store,
    log,
    redact: (t) => t.replaceAll('sekrit-value-123', '[redacted]'),
    localFunctions: { get: () => undefined },
    localContext: () => ({ workspaceDir: dataDir, now: () => new Date(), transport: {} as Transport, allowedHosts: () => [] }),
    backends: { http: backend },
    defaultTimeoutMs: 5_000,
  });
  const bundleId = uuidv7();
  await store.putBundle(bundleId, { slug: 'tests', displayName: 'Tests', description: '', isEnabled: true });
  await store.putTool(bundleId, 'remote', '1', {
    displayName: 'remote',
    description: '',
    tags: [],
    type: 'http',
    argSchema: { type: 'object' },
    outputSchema: {},
    http: { method: 'GET', urlTemplate: 'https://x.test/' },
    isEnabled: true,
  });
  const heard: InvocationProgress[] = [];
  const off = dispatcher.onProgress((p) => heard.push(p));
  const invoke = (extra: object = {}) => dispatcher.invoke({ bundleId, slug: 'remote', version: '1', args: {}, source: 'api', invocationId: uuidv7(), ...extra });
  return { dispatcher, invoke, heard, off };
}

/** Fake timers, performance.now() among them: the dispatcher's deadlines and the pacing follow the test's clock. */
function fakeClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] });
}

describe('progress of a running call', () => {
  it('passes each report on in order, at most one per interval, the last one held back delivered before the answer', async () => {
    const { backend, calls } = drivenBackend();
    const { invoke, heard } = await setup(backend);
    fakeClock();
    const running = invoke();
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    const { call, answer } = calls[0]!;
    // A burst: the first goes out at once, the rest wait; only the latest of them is kept.
    for (let i = 1; i <= 1000; i++) call.progress!({ progress: i, total: 1000, message: `step ${i}` });
    expect(heard.map((p) => p.progress)).toEqual([1]);
    // The interval ends: the latest report goes out.
    await vi.advanceTimersByTimeAsync(PROGRESS_INTERVAL_MS);
    expect(heard.map((p) => p.progress)).toEqual([1, 1000]);
    // Within the next interval: held, then delivered when the call answers, before the answer.
    call.progress!({ progress: 1001, total: 1001 });
    call.progress!({ progress: 1002, total: 1002, message: 'the last one' });
    expect(heard).toHaveLength(2);
    let heardAtAnswer = -1;
    answer({ value: { done: true } });
    const outcome = await running.then((o) => {
      heardAtAnswer = heard.length;
      return o;
    });
    expect(outcome).toMatchObject({ ok: true });
    expect(heardAtAnswer).toBe(3);
    expect(heard.at(-1)).toEqual({ invocationId: outcome.invocationId, progress: 1002, total: 1002, message: 'the last one' });
    // After the answer, reports are ignored.
    call.progress!({ progress: 2000 });
    await vi.advanceTimersByTimeAsync(PROGRESS_INTERVAL_MS * 2);
    expect(heard).toHaveLength(3);
  });

  it('paces each call on its own, and a report after a quiet interval goes out at once', async () => {
    const { backend, calls } = drivenBackend();
    const { invoke, heard } = await setup(backend);
    fakeClock();
    const a = invoke();
    const b = invoke();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    calls[0]!.call.progress!({ progress: 1 });
    calls[1]!.call.progress!({ progress: 1 });
    expect(heard).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(PROGRESS_INTERVAL_MS * 3);
    calls[0]!.call.progress!({ progress: 2 });
    expect(heard.map((p) => p.progress)).toEqual([1, 1, 2]);
    calls[0]!.answer({ value: 1 });
    calls[1]!.answer({ value: 2 });
    await Promise.all([a, b]);
  });

  it('redacts and cuts a message, drops a report that is no number, and tells a listener no more once it stops listening', async () => {
    const { backend, calls } = drivenBackend();
    const { invoke, heard, off } = await setup(backend);
    fakeClock();
    const running = invoke();
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    const { call, answer } = calls[0]!;
    call.progress!({ progress: Number.NaN });
    call.progress!({ progress: -1 });
    expect(heard).toEqual([]);
    call.progress!({ progress: 1, total: 0, message: `token sekrit-value-123 ${'x'.repeat(2000)}` });
    expect(heard).toHaveLength(1);
    expect(heard[0]!.total).toBeUndefined();
    expect(heard[0]!.message!.startsWith('token [redacted] xxx')).toBe(true);
    expect(heard[0]!.message!.length).toBe(500);
    off();
    await vi.advanceTimersByTimeAsync(PROGRESS_INTERVAL_MS);
    call.progress!({ progress: 2 });
    answer({ value: 1 });
    await running;
    expect(heard).toHaveLength(1);
  });

  it('starts the time limit again at each report, up to its cap; a call that reports nothing keeps its plain limit', async () => {
    const { backend, calls } = drivenBackend();
    const { invoke } = await setup(backend);
    fakeClock();
    // Silent: timed out at its limit.
    const silent = invoke({ timeoutMs: 1_000 });
    await vi.advanceTimersByTimeAsync(1_100);
    expect(await silent).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: 'the tool did not finish within 1000 ms' } });

    // Reporting every 500 ms: alive well past its 1 s limit, answered at 4 s.
    const alive = invoke({ timeoutMs: 1_000 });
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    for (let t = 0; t < 4_000; t += 500) {
      calls[1]!.call.progress!({ progress: t });
      await vi.advanceTimersByTimeAsync(500);
    }
    calls[1]!.answer({ value: 'done' });
    expect(await alive).toMatchObject({ ok: true, value: 'done' });

    // Reporting and then falling silent: timed out a limit after its last report.
    const quiet = invoke({ timeoutMs: 1_000 });
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    calls[2]!.call.progress!({ progress: 1 });
    await vi.advanceTimersByTimeAsync(1_100);
    expect(await quiet).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: 'the tool did not finish within 1000 ms of its last progress report' } });

    // Reporting for ever: ended at the cap.
    const endless = invoke({ timeoutMs: 1_000 });
    await vi.waitFor(() => expect(calls).toHaveLength(4));
    let settled = false;
    void endless.then(() => (settled = true));
    for (let t = 0; t < 1_000 * PROGRESS_TIMEOUT_FACTOR + 500 && !settled; t += 250) {
      calls[3]!.call.progress!({ progress: t });
      await vi.advanceTimersByTimeAsync(250);
    }
    expect(await endless).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: `the tool did not finish within ${1_000 * PROGRESS_TIMEOUT_FACTOR} ms (its limit of 1000 ms starts again at each progress report, up to ${PROGRESS_TIMEOUT_FACTOR} times that in all)` },
    });
    expect(calls[3]!.call.signal.aborted).toBe(true);
  });
});
