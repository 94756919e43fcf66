import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { LIMITS } from '../../shared/limits';
import { createCore, type Core } from './app';
import { operationNames } from '../../shared/contract';
import { createRouter, defineHandlers, type HandlerTable } from './router';
import { RESOURCES_DIR, useTempDirs } from './testing/temp-dir';

const tempDir = useTempDirs();
const cores: Core[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
});

async function core(): Promise<Core> {
  const c = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir: await tempDir(), host: 'headless' });
  cores.push(c);
  return c;
}

async function router() {
  return (await core()).router;
}

describe('router', () => {
  it('answers a valid call with { ok: true, value }', async () => {
    const r = await (await router()).call('app.ping', { echo: 'hi' });
    expect(r).toMatchObject({ ok: true, value: { echo: 'hi' } });
  });

  it('refuses an unknown operation, including names on the prototype', async () => {
    const rt = await router();
    for (const name of ['no.such.op', '__proto__', 'constructor', 'toString']) {
      const r = await rt.call(name, {});
      expect(r).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      if (!r.ok) expect(r.error.message).toContain('unknown operation');
    }
  });

  it('refuses a wrong type and names the field', async () => {
    const r = await (await router()).call('app.ping', { echo: 42 });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('VALIDATION_FAILED');
      expect(r.error.details).toMatchObject({ issues: [{ path: 'echo' }] });
    }
  });

  it('refuses extra fields', async () => {
    const r = await (await router()).call('settings.set', { theme: 'dark', evil: true });
    expect(r).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });

  it('refuses malformed JSON and oversized input before parsing, and keeps working', async () => {
    const rt = await router();
    expect(await rt.callJson('app.ping', '{"echo": ')).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    const big = JSON.stringify({ echo: 'x'.repeat(10 * 1024 * 1024) });
    expect(big.length).toBeGreaterThan(LIMITS.maxInputBytes);
    expect(await rt.callJson('app.ping', big)).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(await rt.callJson('app.ping', '{"echo":"still here"}')).toMatchObject({ ok: true, value: { echo: 'still here' } });
  });

  it('turns a thrown AppError into its envelope and anything else into INTERNAL', async () => {
    const base = await core();
    const handlers = defineHandlers({
      ...(Object.fromEntries(operationNames.map((n) => [n, () => undefined])) as unknown as HandlerTable),
      'app.info': () => {
        throw new AppError('NOT_FOUND', 'nothing here', { id: 1 });
      },
      'app.ping': () => {
        throw new TypeError('boom');
      },
      'app.problems': () => [],
      'settings.get': () => base.settings.get(),
      // A handler that breaks the contract's output schema is caught, not passed on.
      'settings.set': () => ({ theme: 'purple' }) as never,
    });
    const rt = createRouter(handlers);
    expect(await rt.call('app.info', {})).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'nothing here', details: { id: 1 } } });
    expect(await rt.call('app.ping', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(await rt.call('settings.set', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });
});
