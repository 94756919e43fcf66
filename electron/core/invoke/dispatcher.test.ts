import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../shared/errors';
import { EventBus } from '../events';
import { ProblemLog } from '../problems';
import { ToolStore } from '../bundles/tool-store';
import { countAbortControllers } from '../testing/abort-controllers';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { InvokeDispatcher, type Backend, type BackendResult } from './dispatcher';
import { InvocationLog } from './invocation-log';
import type { LocalFunction, Transport } from './types';

const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const FUNCTIONS: Record<string, LocalFunction> = {
  'test.echo': async (_ctx, args) => ({ echo: args.text }),
  'test.bad-output': async () => ({ echo: 42 }),
  'test.hang': () => new Promise(() => undefined),
  'test.throws': async () => {
    throw new TypeError('kaboom with sekrit-value-123 inside');
  },
  'test.refuses': async () => {
    throw new AppError('FORBIDDEN', 'not today');
  },
  // Two parameters: the signal is read from the context, where it is made on first read.
  'test.hang-ctx': (ctx) =>
    new Promise((_resolve, reject) => {
      seen.push(ctx.signal);
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
    }),
  // Three parameters: the signal comes as the third argument, the same object as the context's.
  'test.hang-arg': (ctx, _args, signal) =>
    new Promise((_resolve, reject) => {
      seen.push(signal, ctx.signal);
      signal.addEventListener('abort', () => reject(new Error('aborted, not an AppError')), { once: true });
    }),
  'test.late-signal': (ctx) =>
    new Promise((resolve) =>
      setTimeout(() => {
        seen.push(ctx.signal);
        resolve({ echo: 'late' });
      }, 150),
    ),
  'test.sync': ((_ctx: unknown, args: Record<string, unknown>) => ({ echo: args.text })) as unknown as LocalFunction,
};
const seen: AbortSignal[] = [];

const noTransport = {} as Transport;

async function setup(backends?: Partial<Record<'http', Backend>>, now?: () => Date) {
  const dataDir = await tempDir();
  const events = new EventBus();
  const store = new ToolStore({ dataDir, resourcesDir: RESOURCES_DIR, problems: new ProblemLog(events, () => new Date()), usageFlushMs: 10 });
  await store.open();
  const log = InvocationLog.open(':memory:');
  closers.push(() => store.close(), () => log.close());
  const dispatcher = new InvokeDispatcher({
    store,
    log,
    redact: (t) => t.replaceAll('sekrit-value-123', '[redacted]'),
    localFunctions: { get: (id) => FUNCTIONS[id] },
    localContext: () => ({ workspaceDir: dataDir, now: () => new Date(), transport: noTransport, allowedHosts: () => [] }),
    backends,
    now,
    defaultTimeoutMs: 5_000,
  });
  const bundleId = uuidv7();
  await store.putBundle(bundleId, { slug: 'tests', displayName: 'Tests', description: '', isEnabled: true });
  const put = (slug: string, functionId: string) =>
    store.putTool(bundleId, slug, '1', {
      displayName: slug,
      description: '',
      tags: [],
      type: 'local',
      argSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 20 } }, required: ['text'], additionalProperties: false },
      outputSchema: { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] },
      local: { functionId },
      isEnabled: true,
    });
  const slugs = [['echo', 'test.echo'], ['bad-output', 'test.bad-output'], ['hang', 'test.hang'], ['throws', 'test.throws'], ['refuses', 'test.refuses'], ['gone', 'test.gone']];
  slugs.push(['hang-ctx', 'test.hang-ctx'], ['hang-arg', 'test.hang-arg'], ['late-signal', 'test.late-signal'], ['sync', 'test.sync']);
  for (const [slug, fn] of slugs) {
    await put(slug!, fn!);
  }
  const call = (slug: string, args: unknown, extra: object = {}) => dispatcher.invoke({ bundleId, slug, version: '1', args, source: 'user', ...extra });
  return { store, log, dispatcher, bundleId, call };
}

/** An HTTP tool (version 1) whose calls go to the back-end the test gave `setup`. */
function putHttpTool(store: ToolStore, bundleId: string, slug: string, outputSchema: object) {
  return store.putTool(bundleId, slug, '1', {
    displayName: slug,
    description: '',
    tags: [],
    type: 'http',
    argSchema: { type: 'object' },
    outputSchema,
    http: { method: 'GET', urlTemplate: 'https://x.test/' },
    isEnabled: true,
  });
}

describe('InvokeDispatcher', () => {
  it('validates, runs, validates the output, records and counts a call', async () => {
    const { call, log, store } = await setup();
    const o = await call('echo', { text: 'hi' });
    expect(o).toMatchObject({ ok: true, value: { echo: 'hi' }, attempts: 1 });
    const record = log.get(o.invocationId)!;
    expect(record).toMatchObject({ slug: 'echo', ok: true, args: { text: 'hi' }, value: { echo: 'hi' }, source: 'user' });
    const tool = store.getTool(record.bundleId, 'echo', '1');
    await expect.poll(() => store.usage(tool.id).callCount).toBe(1);
    expect(store.getTool(record.bundleId, 'echo', '1').modifiedAt).toBe(tool.modifiedAt);
  });

  it('refuses args that fail the schema, naming each path, and runs nothing', async () => {
    const { call, log } = await setup();
    const o = await call('echo', { text: 'x'.repeat(50), extra: 1 });
    expect(o.ok).toBe(false);
    if (o.ok) return;
    expect(o.error.code).toBe('VALIDATION_FAILED');
    expect(o.error.details).toMatchObject({ phase: 'args' });
    const paths = (o.error.details as { issues: { path: string; message: string }[] }).issues.map((i) => `${i.path} ${i.message}`);
    expect(paths).toEqual(expect.arrayContaining([expect.stringContaining('/text'), expect.stringContaining("'extra'")]));
    expect(log.get(o.invocationId)).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect((await call('echo', 'not an object')).ok).toBe(false);
  });

  it('refuses a result that fails the outputSchema', async () => {
    const { call } = await setup();
    const o = await call('bad-output', { text: 'a' });
    expect(o).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', details: { phase: 'output' } } });
  });

  it('refuses tools that are switched off, in a switched-off bundle, or whose function is gone', async () => {
    const { call, store, bundleId } = await setup();
    expect(await call('gone', { text: 'a' })).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    await store.patchTool(bundleId, 'echo', '1', { isEnabled: false });
    expect(await call('echo', { text: 'a' })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: expect.stringContaining('switched off') } });
    await store.patchTool(bundleId, 'echo', '1', { isEnabled: true });
    await store.patchBundle(bundleId, { isEnabled: false });
    expect(await call('echo', { text: 'a' })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: expect.stringContaining("bundle 'tests'") } });
    expect(await call('nope', {})).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' }, attempts: 0 });
  });

  it('times out a tool that never answers, and cancels on request', async () => {
    const { call, dispatcher, log } = await setup();
    const timedOut = await call('hang', { text: 'a' }, { timeoutMs: 200 });
    expect(timedOut).toMatchObject({ ok: false, error: { code: 'TIMEOUT' }, attempts: 1 });
    expect(dispatcher.runningIds()).toEqual([]);
    expect(log.get(timedOut.invocationId)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });

    const invocationId = uuidv7();
    const pending = call('hang', { text: 'a' }, { invocationId });
    await expect.poll(() => dispatcher.runningIds()).toContain(invocationId);
    expect(dispatcher.cancel(invocationId)).toBe(true);
    expect(await pending).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(dispatcher.runningIds()).toEqual([]);
    expect(dispatcher.cancel(invocationId)).toBe(false);

    const outer = new AbortController();
    const viaSignal = call('hang', { text: 'a' }, { signal: outer.signal });
    outer.abort();
    expect(await viaSignal).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
  });

  it('gives local functions a signal that fires on timeout and cancel, whether they read it from the context or the third argument', async () => {
    const { call, dispatcher } = await setup();
    seen.length = 0;
    expect(await call('hang-ctx', { text: 'a' }, { timeoutMs: 50 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect(seen[0]!.aborted).toBe(true);

    seen.length = 0;
    const invocationId = uuidv7();
    const pending = call('hang-arg', { text: 'a' }, { invocationId });
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    dispatcher.cancel(invocationId);
    // The function's own (non-AppError) rejection after the cancel does not hide why the call ended.
    expect(await pending).toMatchObject({ ok: false, error: { code: 'CANCELLED', message: 'cancelled by the user' } });
    expect(seen[0]!.aborted).toBe(true);
    expect(seen[0]!.reason).toMatchObject({ code: 'CANCELLED' });

    // A signal first read after the call timed out is already aborted, with the reason.
    seen.length = 0;
    expect(await call('late-signal', { text: 'a' }, { timeoutMs: 30 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]!.aborted).toBe(true);
    expect(seen[0]!.reason).toMatchObject({ code: 'TIMEOUT' });
    expect(dispatcher.runningIds()).toEqual([]);
  });

  it('runs nothing for a caller whose signal has already fired, and refuses an invocation id already running', async () => {
    const { call, log } = await setup();
    seen.length = 0;
    const o = await call('hang-ctx', { text: 'a' }, { signal: AbortSignal.abort() });
    expect(o).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(seen).toHaveLength(0);
    expect(log.get(o.invocationId)).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });

    const invocationId = uuidv7();
    const first = call('hang', { text: 'a' }, { invocationId, timeoutMs: 50 });
    await expect(call('echo', { text: 'a' }, { invocationId })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await first).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
  });

  it('accepts a local function that answers without a promise, and logs when and how long', async () => {
    const clock = new Date('2026-03-01T10:00:00.000Z');
    const { call, log } = await setup(undefined, () => clock);
    const o = await call('sync', { text: 'now' });
    expect(o).toMatchObject({ ok: true, value: { echo: 'now' } });
    const record = log.get(o.invocationId)!;
    expect(record.startedAt).toBe(clock.toISOString());
    expect(record.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('ends a call whose back-end answers nothing usable with an error, not a hang', async () => {
    const broken: Backend = async () => undefined as unknown as BackendResult;
    const { store, bundleId, dispatcher } = await setup({ http: broken });
    await putHttpTool(store, bundleId, 'broken', {});
    const o = await dispatcher.invoke({ bundleId, slug: 'broken', version: '1', args: {}, source: 'tester' });
    expect(o).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('redacts a secret from the value a tool answers, wherever the value goes next', async () => {
    const { call } = await setup();
    expect(await call('echo', { text: 'sekrit-value-123' })).toMatchObject({ ok: true, value: { echo: '[redacted]' } });
    expect(await call('echo', { text: 'plain' })).toMatchObject({ ok: true, value: { echo: 'plain' } });
  });

  it('passes a tool’s own error on, turns a crash into INTERNAL, and redacts secrets from both', async () => {
    const { call, log } = await setup();
    expect(await call('refuses', { text: 'a' })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: 'not today' } });
    const crash = await call('throws', { text: 'sekrit-value-123' });
    expect(crash).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(JSON.stringify(crash)).not.toContain('sekrit-value-123');
    expect(JSON.stringify(log.get(crash.invocationId))).not.toContain('sekrit-value-123');
  });

  it('hands other tool types to their back-end, keeping attempts and the HTTP exchange', async () => {
    const http: Backend = async () => ({ value: { echo: 'from http' }, attempts: 3, http: { method: 'GET', url: 'https://x.test/', requestHeaders: {}, responseHeaders: {}, status: 200 } });
    const { store, bundleId, dispatcher } = await setup({ http });
    await putHttpTool(store, bundleId, 'remote', { type: 'object' });
    const o = await dispatcher.invoke({ bundleId, slug: 'remote', version: '1', args: {}, source: 'tester' });
    expect(o).toMatchObject({ ok: true, attempts: 3, http: { status: 200 } });
  });

  it('gives a back-end its signal when it reads it: none made for a call that never does, an aborted one after a cancel', async () => {
    const reads: AbortSignal[] = [];
    const calls: { signal: AbortSignal; ownerId?: string; args: Record<string, unknown> }[] = [];
    const finish: ((read: boolean) => void)[] = [];
    const http: Backend = (c) =>
      new Promise((resolve) => {
        calls.push(c);
        finish.push((read) => {
          if (read) reads.push(c.signal);
          resolve({ value: { echo: 'done' } });
        });
      });
    const { store, bundleId, dispatcher } = await setup({ http });
    await putHttpTool(store, bundleId, 'remote', { type: 'object' });
    const controllers = countAbortControllers();
    try {
      const first = dispatcher.invoke({ bundleId, slug: 'remote', version: '1', args: { a: 1 }, source: 'api', ownerId: 'owner-1', invocationId: uuidv7() });
      await vi.waitFor(() => expect(finish).toHaveLength(1));
      expect(calls[0]).toMatchObject({ args: { a: 1 }, ownerId: 'owner-1' });
      finish[0]!(false);
      expect(await first).toMatchObject({ ok: true, value: { echo: 'done' } });
      expect(controllers.made()).toBe(0);

      const id = uuidv7();
      const second = dispatcher.invoke({ bundleId, slug: 'remote', version: '1', args: {}, source: 'api', invocationId: id });
      await vi.waitFor(() => expect(finish).toHaveLength(2));
      expect(dispatcher.cancel(id)).toBe(true);
      expect(await second).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
      finish[1]!(true);
      expect(reads[0]!.aborted).toBe(true);
      expect(reads[0]!.reason).toMatchObject({ code: 'CANCELLED' });
      expect(controllers.made()).toBe(1);
    } finally {
      controllers.restore();
    }
  });

  it('runs a multi-step tool: each step through the dispatcher, values passed on', async () => {
    const { store, bundleId, dispatcher, log } = await setup();
    const seq = (slug: string, steps: unknown, result?: unknown) =>
      store.putTool(bundleId, slug, '1', {
        displayName: slug,
        description: '',
        tags: [],
        type: 'sequence',
        argSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
        outputSchema: { type: 'object' },
        sequence: { steps, ...(result === undefined ? {} : { result }) },
        isEnabled: true,
      });
    const echo = { bundleId, slug: 'echo', version: '1' };
    await seq('twice', [
      { id: 'first', tool: echo, args: { text: '${args.word}' } },
      { id: 'second', tool: echo, args: { text: 'again ${steps.first.value.echo}' } },
    ], { both: ['${steps.first.value.echo}', '${steps.second.value.echo}'] });
    const o = await dispatcher.invoke({ bundleId, slug: 'twice', version: '1', args: { word: 'hey' }, source: 'user' });
    expect(o).toMatchObject({ ok: true, value: { both: ['hey', 'again hey'] }, attempts: 2 });
    expect(log.list({ limit: 10 }).filter((r) => r.source === 'step')).toHaveLength(2);

    // A failing step names itself; nothing after it runs.
    await seq('breaks', [
      { id: 'too-long', tool: echo, args: { text: '${args.word}${args.word}${args.word}${args.word}${args.word}${args.word}' } },
      { id: 'never', tool: echo, args: { text: 'x' } },
    ]);
    const bad = await dispatcher.invoke({ bundleId, slug: 'breaks', version: '1', args: { word: 'abcd' }, source: 'user' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', message: expect.stringContaining("step 'too-long'") } });

    // A sequence that calls itself stops at the depth limit instead of looping.
    await seq('loop', [{ id: 'again', tool: { bundleId, slug: 'loop', version: '1' }, args: { word: '${args.word}' } }]);
    const loop = await dispatcher.invoke({ bundleId, slug: 'loop', version: '1', args: { word: 'x' }, source: 'user' });
    expect(loop).toMatchObject({ ok: false, error: { message: expect.stringContaining('nests sequences') } });
  });

  it('refuses a sequence whose steps refer to later or unknown steps when it is saved', async () => {
    const { store, bundleId } = await setup();
    const echo = { bundleId, slug: 'echo', version: '1' };
    const body = (steps: unknown) => ({
      displayName: 'x', description: '', tags: [], type: 'sequence', argSchema: { type: 'object' }, outputSchema: {}, sequence: { steps }, isEnabled: true,
    });
    await expect(store.putTool(bundleId, 's1', '1', body([{ id: 'a', tool: echo, args: { text: '${steps.b.value}' } }, { id: 'b', tool: echo, args: {} }]))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('not an earlier step'),
    });
    await expect(store.putTool(bundleId, 's2', '1', body([{ id: 'a', tool: echo, args: { text: '${secret:TOKEN}' } }]))).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(store.putTool(bundleId, 's3', '1', body([{ id: 'a', tool: echo, args: {} }, { id: 'a', tool: echo, args: {} }]))).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('used twice') });
  });
});
