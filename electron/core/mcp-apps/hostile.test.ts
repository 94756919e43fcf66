/**
 * A server whose apps misbehave (testing/hostile-apps-server.mjs), brought in over stdio: the
 * page shown is the page consented to, a site not consented to asks again, a switched-off
 * bundle's server is not started to read a page, and a tool shown to apps only (with or without
 * a page) is never offered to a model but may be called by its server's app.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { usableTools } from '../agent/tools-for-model';
import type { Core } from '../app';
import { addServer, openCore, until, value } from '../mcp-client/testing/harness';
import { useTempDirs } from '../testing/temp-dir';

const SERVER = path.join(import.meta.dirname, 'testing', 'hostile-apps-server.mjs');
const tempDir = useTempDirs();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function hostile(): Promise<{ core: Core; bundleId: string; toolId: (name: string) => string }> {
  const core = await openCore(await tempDir());
  closers.push(() => core.close());
  const view = await addServer(core, { name: 'hostile', connection: { transport: 'stdio', command: process.execPath, args: [SERVER], env: {} } });
  await until(() => core.registry.store.toolsOf(view.bundleId).length >= 7, 'the hostile tools brought in', 20_000);
  core.mcpApps.setFrameHost({ origin: 'http://127.0.0.1:9', ancestors: ['http://127.0.0.1:8'] });
  const toolId = (name: string) => core.registry.store.toolsOf(view.bundleId).find((t) => t.mcp?.serverTool === name)!.id;
  return { core, bundleId: view.bundleId, toolId };
}

describe('hostile apps', () => {
  it('shows the page the person consented to, and asks again when an always-shown app reaches a new site', async () => {
    const { core, toolId } = await hostile();
    const id = toolId('shifty-app');
    // The ask shows a page that reaches no other site; the server declares one on every later read.
    expect(await value(core.call('mcpApps.open', { toolId: id }))).toMatchObject({ status: 'ask', domains: { connectDomains: [] } });
    const shown = await value(core.call('mcpApps.open', { toolId: id, consent: 'always' }));
    if (shown.status !== 'open') throw new Error(shown.status);
    expect(shown.domains.connectDomains).toEqual([]);
    const doc = core.mcpApps.frameDocument(shown.frameUrl.split('/').pop()!, { method: 'GET', secFetchDest: 'iframe' });
    expect(doc.headers['Content-Security-Policy']).toContain("connect-src 'none'");
    // Always shown now, but the page reaches a site that was not consented to: it asks again, naming it.
    const again = await value(core.call('mcpApps.open', { toolId: id }));
    expect(again).toMatchObject({ status: 'ask', domains: { connectDomains: ['https://exfil.example.com'] } });
    // Consented always: that site is remembered, and the next open shows it at once.
    expect(await value(core.call('mcpApps.open', { toolId: id, consent: 'always' }))).toMatchObject({ status: 'open', domains: { connectDomains: ['https://exfil.example.com'] } });
    expect(await value(core.call('mcpApps.open', { toolId: id }))).toMatchObject({ status: 'open' });
  }, 60_000);

  it('does not start a switched-off bundle’s server to read a page', async () => {
    const { core, bundleId, toolId } = await hostile();
    const off = await core.call('bundles.patch', { bundleId, isEnabled: false });
    expect(off.ok).toBe(true);
    await until(async () => (await value(core.call('mcpServers.list', {}))).find((s) => s.bundleId === bundleId)?.status.state === 'stopped', 'the server stopped');
    const r = await core.call('mcpApps.open', { toolId: toolId('nav-app'), consent: 'once' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.message).toBe("the app of 'hostile' is not shown: 'nav-app' or its bundle is switched off");
    expect((await value(core.call('mcpServers.list', {}))).find((s) => s.bundleId === bundleId)?.status.state).toBe('stopped');
  }, 60_000);

  it('never offers a model a tool shown to apps only, with or without a page, and lets its server’s app call it', async () => {
    const { core, bundleId, toolId } = await hostile();
    const poll = core.registry.store.toolById(toolId('poll'))!;
    expect(poll.mcp?.ui).toEqual({ visibility: ['app'] });
    const offered = usableTools(core.registry.store)
      .filter((c) => c.tool.bundleId === bundleId)
      .map((c) => c.tool.mcp?.serverTool)
      .sort();
    expect(offered).toEqual(['flood-app', 'nav-app', 'reach-app', 'shifty-app', 'wrong-type']);
    // A tool without a page has no app to open.
    const noPage = await core.call('mcpApps.open', { toolId: poll.id });
    expect(!noPage.ok && noPage.error.message).toBe("'poll' has no app: its server gives it no ui:// page");
    const app = await value(core.call('mcpApps.open', { toolId: toolId('reach-app'), consent: 'once' }));
    if (app.status !== 'open') throw new Error(app.status);
    expect(await value(core.call('mcpApps.callTool', { viewId: app.viewId, name: 'poll' }))).toMatchObject({ structuredContent: { ok: true } });
  }, 60_000);
});
