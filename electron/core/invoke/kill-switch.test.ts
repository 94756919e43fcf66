/**
 * Switching a bundle off is the user's kill switch: two cores on one data folder (as the app
 * and a `toolsmith` command are), one switches a bundle off and the other's very next
 * invocation is refused, before its watcher has reloaded anything.
 */
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../app';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';

const tempDir = useTempDirs();
const closers: Core[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c.close();
});

const MATH = '01941f29-7c0f-7ad2-912a-3744428a5066';

async function core(dataDir: string, watch: boolean): Promise<Core> {
  const c = await createCore({ dataDir, resourcesDir: RESOURCES_DIR, host: 'headless', watch });
  c.functions.register('test.echo', async (_ctx, args) => ({ echo: args.text }));
  closers.push(c);
  return c;
}

/** Two cores on one folder with a user bundle holding `echo`; `runner` watches the folder as the app does. */
async function twoCores() {
  const dataDir = await tempDir();
  const writer = await core(dataDir, false);
  const bundleId = uuidv7();
  await writer.registry.store.putBundle(bundleId, { slug: 'tests', displayName: 'Tests', description: '', isEnabled: true });
  await writer.registry.store.putTool(bundleId, 'echo', '1', {
    displayName: 'Echo',
    description: '',
    tags: [],
    type: 'local',
    argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    outputSchema: { type: 'object' },
    local: { functionId: 'test.echo' },
    isEnabled: true,
  });
  const runner = await core(dataDir, true);
  const echo = () => runner.dispatcher.invoke({ bundleId, slug: 'echo', version: '1', args: { text: 'hi' }, source: 'api' });
  const calc = () => runner.dispatcher.invoke({ bundleId: MATH, slug: 'calc', version: '1', args: { expression: '1 + 2' }, source: 'api' });
  return { writer, runner, bundleId, echo, calc };
}

describe('the kill switch across processes', () => {
  it('a user bundle switched off in one core: the next call in the other is refused at once, and runs again once switched on', async () => {
    const { writer, runner, bundleId, echo } = await twoCores();
    expect(await echo()).toMatchObject({ ok: true, value: { echo: 'hi' } });

    await writer.registry.store.patchBundle(bundleId, { isEnabled: false });
    // Directly after the write returns: the runner's catalog has not heard of it yet.
    expect(runner.registry.store.bundleById(bundleId)?.isEnabled).toBe(true);
    const refused = await echo();
    expect(refused).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: "bundle 'tests' is switched off; switch it on in Tools to run 'echo'" } });
    expect(await echo()).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });

    await writer.registry.store.patchBundle(bundleId, { isEnabled: true });
    await expect.poll(async () => (await echo()).ok, { timeout: 10_000 }).toBe(true);
  });

  it('a built-in bundle switched off in one core (its override file) is refused in the other at once', async () => {
    const { writer, runner, calc } = await twoCores();
    expect(await calc()).toMatchObject({ ok: true });
    await writer.registry.store.patchBundle(MATH, { isEnabled: false });
    expect(runner.registry.store.bundleById(MATH)?.isEnabled).toBe(true);
    expect(await calc()).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: "bundle 'math' is switched off; switch it on in Tools to run 'calc'" } });
  });

  it('a bundle deleted in one core is refused in the other at once', async () => {
    const { writer, runner, bundleId, echo } = await twoCores();
    expect(await echo()).toMatchObject({ ok: true });
    await writer.registry.store.deleteBundle(bundleId);
    expect(runner.registry.store.bundleById(bundleId)?.softDeletedAt).toBeUndefined();
    expect(await echo()).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: "bundle 'tests' is deleted; its tools cannot run" } });
  });
});
