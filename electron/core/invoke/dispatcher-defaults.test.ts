/**
 * Schema defaults reach the tool: an argument left out takes its argSchema `default` before
 * the back-end runs (an HTTP tool against a real server on 127.0.0.1, and a local function),
 * nested objects included, without touching the caller's object.
 */
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../events';
import { ProblemLog } from '../problems';
import { ToolStore } from '../bundles/tool-store';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { InvokeDispatcher } from './dispatcher';
import { httpBackend } from './http-backend';
import { RateLimiter } from './http/rate-limit';
import { startHttpServer, type TestServer } from './http/testing/servers';
import { HttpTransport } from './http/transport';
import { InvocationLog } from './invocation-log';
import type { LocalFunction } from './types';

const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const received: Record<string, unknown>[] = [];
const FUNCTIONS: Record<string, LocalFunction> = {
  'test.seen': async (_ctx, args) => {
    received.push(args);
    return { got: args };
  },
};

const ARG_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    units: { enum: ['metric', 'imperial'], default: 'metric' },
    options: {
      type: 'object',
      default: {},
      properties: { days: { type: 'integer', default: 3 }, lang: { type: 'string', default: 'en' } },
    },
  },
  required: ['city', 'units'],
  additionalProperties: false,
};

async function setup(server?: TestServer) {
  const dataDir = await tempDir();
  const store = new ToolStore({ dataDir, resourcesDir: RESOURCES_DIR, problems: new ProblemLog(new EventBus(), () => new Date()), usageFlushMs: 10 });
  await store.open();
  const log = InvocationLog.open(':memory:');
  closers.push(() => store.close(), () => log.close());
  const allowed = server ? [`127.0.0.1:${server.port}`] : [];
  const transport = new HttpTransport();
  const dispatcher = new InvokeDispatcher({
    store,
    log,
    redact: (t) => t,
    localFunctions: { get: (id) => FUNCTIONS[id] },
    localContext: () => ({ workspaceDir: dataDir, now: () => new Date(), transport, allowedHosts: () => allowed }),
    backends: {
      http: httpBackend({ transport, allowedHosts: () => allowed, secrets: { resolve: () => '', values: () => [] }, redact: (t) => t, rateLimiter: new RateLimiter() }),
    },
    defaultTimeoutMs: 5_000,
  });
  const bundleId = uuidv7();
  await store.putBundle(bundleId, { slug: 'tests', displayName: 'Tests', description: '', isEnabled: true });
  const common = { description: '', tags: [], argSchema: ARG_SCHEMA, outputSchema: {}, isEnabled: true };
  await store.putTool(bundleId, 'local', '1', { ...common, displayName: 'Local', type: 'local', local: { functionId: 'test.seen' } });
  if (server) {
    await store.putTool(bundleId, 'weather', '1', {
      ...common,
      displayName: 'Weather',
      type: 'http',
      http: { method: 'GET', urlTemplate: `${server.origin}/weather?city=\${city}&units=\${units}&days=\${options.days}&lang=\${options.lang}` },
    });
  }
  const call = (slug: string, args: unknown) => dispatcher.invoke({ bundleId, slug, version: '1', args, source: 'user' });
  return { call, dispatcher, store, bundleId };
}

describe('argument defaults', () => {
  it('fills a left-out argument, and a nested object’s, before an HTTP tool builds its URL', async () => {
    const server = await startHttpServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    closers.push(() => server.close());
    const { call } = await setup(server);

    const given = { city: 'Oslo' };
    const o = await call('weather', given);
    expect(o).toMatchObject({ ok: true, value: { ok: true } });
    expect(server.requests.map((r) => r.url)).toEqual(['/weather?city=Oslo&units=metric&days=3&lang=en']);
    // The caller's object is not written to.
    expect(given).toEqual({ city: 'Oslo' });

    // Given values win over defaults, at every level.
    await call('weather', { city: 'Oslo', units: 'imperial', options: { days: 7 } });
    expect(server.requests[1]!.url).toBe('/weather?city=Oslo&units=imperial&days=7&lang=en');
  });

  it('fills defaults for a local function, and still refuses what does not match', async () => {
    const { call } = await setup();
    received.length = 0;
    expect(await call('local', { city: 'Rome' })).toMatchObject({ ok: true });
    expect(received).toEqual([{ city: 'Rome', units: 'metric', options: { days: 3, lang: 'en' } }]);

    // Each call gets its own copy of the defaults: a function that changes them changes nothing for the next call.
    (received[0]!.options as Record<string, unknown>).days = 99;
    await call('local', { city: 'Rome' });
    expect(received[1]).toEqual({ city: 'Rome', units: 'metric', options: { days: 3, lang: 'en' } });

    const bad = await call('local', { city: 'Rome', units: 'kelvin' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', details: { phase: 'args' } } });
    expect(await call('local', { units: 'metric' })).toMatchObject({ ok: false, error: { message: expect.stringContaining("'city'") } });
    expect(received).toHaveLength(2);
  });

  it('answers a checked copy with defaults from checkArgs, for a draft as for a saved tool', async () => {
    const { dispatcher, store, bundleId } = await setup();
    const tool = store.getTool(bundleId, 'local', '1');
    expect(dispatcher.checkArgs(tool, { city: 'Lima' })).toEqual({ city: 'Lima', units: 'metric', options: { days: 3, lang: 'en' } });
    expect(() => dispatcher.checkArgs(tool, { city: 1 })).toThrow(/argSchema: \/city must be string/);

    received.length = 0;
    const draft = { displayName: 'D', description: '', tags: [], type: 'local', argSchema: ARG_SCHEMA, outputSchema: {}, local: { functionId: 'test.seen' }, isEnabled: true };
    const o = await dispatcher.invokeDraft({ bundleId, slug: 'draft', version: '1', args: { city: 'Kyiv' }, source: 'tester', body: draft });
    expect(o).toMatchObject({ ok: true });
    expect(received).toEqual([{ city: 'Kyiv', units: 'metric', options: { days: 3, lang: 'en' } }]);
  });

  it('argIssues checks a form’s arguments as a call would, defaults filled, and names a schema it cannot use', async () => {
    const { dispatcher } = await setup();
    expect(dispatcher.argIssues(ARG_SCHEMA, { city: 'Oslo' })).toEqual([]);
    expect(dispatcher.argIssues(ARG_SCHEMA, { city: 5, units: 'kelvin' })).toEqual([
      { path: '/city', message: 'must be string' },
      { path: '/units', message: expect.stringContaining('allowed values') },
    ]);
    expect(dispatcher.argIssues(ARG_SCHEMA, {})).toEqual([{ path: '(root)', message: "must have required property 'city'" }]);
    expect(dispatcher.argIssues({ type: 'nonsense' }, {})[0]).toMatchObject({ path: '(root)', message: expect.stringContaining('cannot be used') });
    expect(dispatcher.argIssues([], {})).toEqual([{ path: '(root)', message: 'the argSchema is not a JSON object' }]);
  });
});
