/**
 * A real MCP App server (@modelcontextprotocol/server-basic-vanillajs, published with the
 * extension's SDK) brought in over stdio: its tool carries its app, the page is read and
 * checked, asked about until the person consents, served once as a frame document with its
 * CSP, and the page's calls run through the dispatcher as source "app", asking as the tool
 * requires. A model never sees an app-only tool.
 */
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import { usableTools } from '../agent/tools-for-model';
import type { Core } from '../app';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, openCore, until, value } from '../mcp-client/testing/harness';
import { FRAME_GONE_MESSAGE } from './frames';

const ENTRY = path.resolve(import.meta.dirname, '..', '..', '..', 'node_modules', '@modelcontextprotocol', 'server-basic-vanillajs', 'dist', 'index.js');
const PAGE = path.resolve(ENTRY, '..', 'mcp-app.html');
const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const FRAMES = { origin: 'http://127.0.0.1:9', ancestors: ['http://127.0.0.1:8'] };

async function withTimeApp(): Promise<{ core: Core; bundleId: string; toolId: string }> {
  const core = await openCore(await tempDir());
  closers.push(() => core.close());
  const view = await addServer(core, { name: 'time-app', connection: { transport: 'stdio', command: process.execPath, args: [ENTRY, '--stdio'], env: {} } });
  await until(() => core.registry.store.toolsOf(view.bundleId).length > 0, 'get-time brought in', 20_000);
  const tool = core.registry.store.toolsOf(view.bundleId).find((t) => t.mcp?.serverTool === 'get-time')!;
  core.mcpApps.setFrameHost(FRAMES);
  return { core, bundleId: view.bundleId, toolId: tool.id };
}

describe('an MCP App of a real server (server-basic-vanillajs)', () => {
  it('brings its tool in with its app, asks before the first one is shown, then serves the page once with its CSP', async () => {
    const { core, bundleId, toolId } = await withTimeApp();
    const tool = core.registry.store.toolById(toolId)!;
    expect(tool.mcp?.ui).toEqual({ resourceUri: 'ui://get-time/mcp-app.html' });

    const asked = await core.call('mcpApps.open', { toolId });
    if (!asked.ok) throw new Error(asked.error.message);
    expect(asked.value).toMatchObject({ status: 'ask', server: 'time-app', domains: { connectDomains: [], resourceDomains: [] } });
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(PAGE, 'utf8');
    expect(asked.value.status === 'ask' && asked.value.pageBytes).toBe(Buffer.byteLength(page));
    expect(core.mcpApps.openViews()).toBe(0);

    const opened = await core.call('mcpApps.open', { toolId, consent: 'once' });
    if (!opened.ok || opened.value.status !== 'open') throw new Error(JSON.stringify(opened));
    const app = opened.value;
    expect(app.frameUrl.startsWith(`${FRAMES.origin}/`)).toBe(true);
    expect(app.tool).toMatchObject({ name: 'get-time', _meta: { ui: { resourceUri: 'ui://get-time/mcp-app.html' }, 'ui/resourceUri': 'ui://get-time/mcp-app.html' } });
    // "Show the app" once does not trust the server: the next card asks again.
    expect(await value(core.call('mcpApps.open', { toolId }))).toMatchObject({ status: 'ask' });

    const id = app.frameUrl.slice(FRAMES.origin.length + 1);
    const first = core.mcpApps.frameDocument(id, { method: 'GET', secFetchDest: 'iframe' });
    expect(first.status).toBe(200);
    expect(first.body).toBe(page);
    expect(first.headers['Content-Security-Policy']).toContain("connect-src 'none'");
    expect(first.headers['Content-Security-Policy']).toContain('frame-ancestors http://127.0.0.1:8');
    expect(first.headers['X-Frame-Options']).toBeUndefined();
    const again = core.mcpApps.frameDocument(id, { method: 'GET', secFetchDest: 'iframe' });
    expect(again).toMatchObject({ status: 404, body: FRAME_GONE_MESSAGE });

    // "Always show apps of time-app" is saved with the server.
    const always = await core.call('mcpApps.open', { toolId, consent: 'always' });
    expect(always.ok && always.value.status).toBe('open');
    expect((await value(core.call('mcpServers.list', {}))).find((s) => s.bundleId === bundleId)?.apps).toBe('always');
    expect(await value(core.call('mcpApps.open', { toolId }))).toMatchObject({ status: 'open' });
    // Off: no app is shown, and the open ones are closed.
    await core.call('mcpApps.setTrust', { bundleId, apps: 'never' });
    expect(core.mcpApps.openViews()).toBe(0);
    expect(await value(core.call('mcpApps.open', { toolId }))).toMatchObject({ status: 'off' });
  }, 60_000);

  it("runs the page's call of its own server's tool through the dispatcher as source 'app', asking in the window as the tool requires", async () => {
    const { core, toolId } = await withTimeApp();
    closers.push(core.attachWindow());
    // get-time gives no hints and its server is not trusted: it asks, and the person allows it for this app.
    let asked = 0;
    core.events.on('mcpServer.approvalsChanged', () => {
      for (const r of core.mcpServer.queue.list()) {
        if (r.appOf === 'time-app' && r.toolName.endsWith('/get-time')) asked++;
        core.mcpServer.queue.respond(r.id, 'allow-session');
      }
    });
    const opened = await core.call('mcpApps.open', { toolId, consent: 'once' });
    if (!opened.ok || opened.value.status !== 'open') throw new Error(JSON.stringify(opened));
    const { viewId } = opened.value;

    const r = await core.call('mcpApps.callTool', { viewId, name: 'get-time', arguments: {} });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.isError).toBeUndefined();
    expect(typeof (r.value.structuredContent as { time?: unknown }).time).toBe('string');
    expect(asked).toBe(1);
    // The log is written in batches: it is read once the call's record is there.
    await until(async () => {
      const log = await core.call('invocations.list', { toolId, limit: 5 });
      return log.ok && log.value.some((rec) => rec.source === 'app');
    }, 'the call logged as source app');

    // Allowed for this app: the second call does not ask again.
    const before = asked;
    const second = await core.call('mcpApps.callTool', { viewId, name: 'get-time' });
    expect(second.ok && second.value.isError).toBeFalsy();
    expect(asked).toBe(before);

    // Another server's tool, or an unknown one, is refused to the app; a closed view refuses everything.
    const unknown = await core.call('mcpApps.callTool', { viewId, name: 'read-file' });
    expect(unknown.ok && unknown.value).toMatchObject({ isError: true, content: [{ type: 'text', text: "'read-file' is not a tool of 'time-app' that can run (it is unknown, or switched off in Tools)" }] });
    await core.call('mcpApps.close', { viewId });
    const closed = await core.call('mcpApps.callTool', { viewId, name: 'get-time' });
    expect(closed.ok).toBe(false);
    expect(!closed.ok && closed.error.message).toBe('this app was closed: show it again from its card');
  }, 60_000);
});

describe('app visibility', () => {
  it('leaves a tool its server shows to its app only out of what a model is offered', async () => {
    const core = await openCore(await tempDir());
    closers.push(() => core.close());
    const bundleId = uuidv7();
    await core.registry.store.putBundle(bundleId, { slug: 'vis', displayName: 'Vis', description: '', isEnabled: true });
    const body = (name: string, visibility?: ('model' | 'app')[]) => ({
      displayName: name,
      description: '',
      tags: [],
      type: 'mcp' as const,
      argSchema: { type: 'object' },
      outputSchema: {},
      mcp: { serverTool: name, ui: { resourceUri: `ui://vis/${name}.html`, ...(visibility ? { visibility } : {}) } },
      isEnabled: true,
    });
    await core.registry.store.putTool(bundleId, 'both', '1', body('both'));
    await core.registry.store.putTool(bundleId, 'app-only', '1', body('app-only', ['app']));
    await core.registry.store.putTool(bundleId, 'model-only', '1', body('model-only', ['model']));
    const offered = usableTools(core.registry.store)
      .filter((c) => c.tool.bundleId === bundleId)
      .map((c) => c.tool.slug)
      .sort();
    expect(offered).toEqual(['both', 'model-only']);
  });
});
