/**
 * A curl command imported as the Tools screen and `toolsmith import curl` do it (shared/model/curl.ts,
 * then tools.put through the core's router) runs as pasted: called with `{}` it sends the
 * command's values to a real server on 127.0.0.1, typed arguments a model gives replace them,
 * and a value of the wrong type is refused before anything is sent.
 */
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import { curlToTool, parseCurl } from '../../../shared/model/curl';
import { createCore, type Core } from '../app';
import { startHttpServer, type TestServer } from '../invoke/http/testing/servers';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function echoServer(): Promise<TestServer> {
  const server = await startHttpServer((req, res, body) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, body: body.toString('utf8') }));
  });
  closers.push(() => server.close());
  return server;
}

/** A core on a temp folder with the command imported into a new bundle; answers how to call the tool. */
async function imported(command: string, server: TestServer) {
  const core: Core = await createCore({ dataDir: await tempDir(), resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  closers.push(() => core.close());
  const proposal = curlToTool(parseCurl(command));
  const settings = await core.call('settings.set', { allowedHosts: proposal.hostsProposal });
  expect(settings.ok).toBe(true);
  const bundleId = uuidv7();
  expect((await core.call('bundles.put', { bundleId, body: { slug: 'weather', displayName: 'Weather', description: '', isEnabled: true } })).ok).toBe(true);
  const saved = await core.call('tools.put', { bundleId, slug: proposal.suggestedSlug, version: '1', body: proposal.tool });
  expect(saved.ok, JSON.stringify(saved)).toBe(true);
  expect(proposal.hostsProposal).toEqual([`127.0.0.1:${server.port}`]);
  const invoke = (args: unknown) => core.call('tools.invoke', { bundleId, slug: proposal.suggestedSlug, version: '1', args, source: 'api' });
  return { core, invoke, proposal };
}

describe('an imported curl command runs as pasted', () => {
  it('called with {} it sends the query of the command; typed arguments replace single values', async () => {
    const server = await echoServer();
    const { invoke } = await imported(`curl '${server.origin}/forecast?city=Oslo&days=2&metric=true'`, server);

    const asPasted = await invoke({});
    expect(asPasted, JSON.stringify(asPasted)).toMatchObject({ ok: true, value: { value: { url: '/forecast?city=Oslo&days=2&metric=true' } } });

    // What a model sends: JSON numbers and booleans.
    expect(await invoke({ days: 3 })).toMatchObject({ ok: true });
    expect(await invoke({ city: 'Bergen', days: 7, metric: false })).toMatchObject({ ok: true });
    expect(server.requests.map((r) => r.url)).toEqual(['/forecast?city=Oslo&days=2&metric=true', '/forecast?city=Oslo&days=3&metric=true', '/forecast?city=Bergen&days=7&metric=false']);

    // A value of the wrong type is refused before anything is sent.
    const wrong = await invoke({ days: 'two' });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(server.requests).toHaveLength(3);
  });

  it('a JSON body and a path id keep their values and JSON types', async () => {
    const server = await echoServer();
    const { invoke } = await imported(`curl '${server.origin}/cities/42/notes' --json '{"text":"hi","stars":4,"public":false,"tags":["a"]}'`, server);
    expect(await invoke({})).toMatchObject({ ok: true });
    expect(await invoke({ cityId: 7, stars: 5 })).toMatchObject({ ok: true });
    expect(server.requests.map((r) => [r.url, JSON.parse(r.body.toString('utf8'))])).toEqual([
      ['/cities/42/notes', { text: 'hi', stars: 4, public: false, tags: ['a'] }],
      ['/cities/7/notes', { text: 'hi', stars: 5, public: false, tags: ['a'] }],
    ]);
  });
});
