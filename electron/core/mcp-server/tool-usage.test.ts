/**
 * tool_usage and its page, served to MCP clients: the v2 SDK's client over the in-memory
 * transport (2025-11-25, capabilities from initialize) and over the 2026-07-28 handler
 * (capabilities in each request's envelope); the page itself driven through the extension's
 * messages in a small stand-in for a browser frame.
 */
import { Client, InMemoryTransport, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/client';
import fs from 'node:fs/promises';
import path from 'node:path';
import vm from 'node:vm';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '../app';
import { checkAppPage } from '../mcp-apps/resource';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { seedServedBundle, startEchoServer, type EchoServer, type ServedFixture } from '../testing/mcp-serve-kit';
import { APP_MIME, APPS_EXTENSION, TOOL_USAGE_PAGE, TOOL_USAGE_URI, unknownUsageTool } from './tool-usage';

const tempDir = useTempDirs();
let core: Core;
let echo: EchoServer;
let fx: ServedFixture;
const closers: (() => Promise<void>)[] = [];

const APPS: ClientCapabilities = { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME] } } } as ClientCapabilities;

beforeEach(async () => {
  core = await createCore({ dataDir: await tempDir(), resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
  echo = await startEchoServer();
  fx = await seedServedBundle(core, echo.port);
});

afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await echo.close();
  await core.close();
});

/** A 2025-11-25 client of the v2 SDK over the in-memory transport. */
async function connect(capabilities: ClientCapabilities = {}) {
  const conn = core.mcpServer.createServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await conn.server.connect(serverSide);
  const client = new Client({ name: 'usage-test', version: '1.0.0' }, { capabilities });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await conn.close();
  });
  return client;
}

/** A 2026-07-28 client of the v2 SDK, its requests handed straight to the server's stateless handler. */
async function connect2026(capabilities: ClientCapabilities = {}) {
  const handler = core.mcpServer.modernHandler();
  closers.push(() => core.mcpServer.closeModern());
  const client = new Client({ name: 'usage-2026', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) });
  await client.connect(transport);
  closers.push(() => client.close());
  return client;
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe('tool_usage in tools/list', () => {
  it('names its page only to a client that declared the apps extension; read only either way', async () => {
    const plain = await connect();
    const apps = await connect(APPS);
    const seen = (await plain.listTools()).tools.find((t) => t.name === 'tool_usage')!;
    const withApps = (await apps.listTools()).tools.find((t) => t.name === 'tool_usage')!;
    expect(seen.annotations).toMatchObject({ readOnlyHint: true });
    expect(seen._meta).toBeUndefined();
    expect(withApps._meta).toEqual({ ui: { resourceUri: TOOL_USAGE_URI }, 'ui/resourceUri': TOOL_USAGE_URI });
    // The other tools are listed as before, with no page.
    expect((await apps.listTools()).tools.filter((t) => t._meta).map((t) => t.name)).toEqual(['tool_usage']);
  });

  it('is listed beside tool_search and tool_output while clients search, and answers for a tool not in the list', async () => {
    await core.call('settings.set', { mcpServer: { ...core.settings.get().mcpServer, toolSearch: { mode: 'always', maxTools: 50 } } });
    const client = await connect();
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['tool_output', 'tool_search', 'tool_usage']);
    const r = (await client.callTool({ name: 'tool_usage', arguments: { tool: 'count' } })) as CallToolResult;
    expect([r.isError, (r.structuredContent as { calls?: number } | undefined)?.calls]).toEqual([undefined, 0]);
  });

  it('keeps its name: a registry tool that would be named tool_usage is served under another', async () => {
    // A slug a model's name cannot hold: its 'í' becomes '_'.
    await core.registry.store.putTool(fx.bundleId, 'toolíusage', '1', { displayName: 'mine', description: 'Mine', tags: [], isEnabled: true, type: 'local', argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, outputSchema: {}, local: { functionId: 'text.count' } });
    const client = await connect();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith('tool_usage'))).toEqual(['tool_usage_2', 'tool_usage']);
    const r = (await client.callTool({ name: 'tool_usage', arguments: { tool: 'kit/toolíusage' } })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ tool: 'tool_usage_2', title: 'mine' });
  });

  it('is not offered, nor its page, while serving is off', async () => {
    await core.call('settings.set', { mcpServer: { enabled: false, bundleIds: [fx.bundleId] } });
    const client = await connect(APPS);
    expect((await client.listTools()).tools).toEqual([]);
    expect((await client.listResources()).resources).toEqual([]);
  });
});

describe('resources', () => {
  it('declares resources, lists the page and reads it as an MCP App page that Toolsmith’s own client accepts', async () => {
    const client = await connect(APPS);
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    expect((await client.listResources()).resources).toEqual([expect.objectContaining({ uri: TOOL_USAGE_URI, mimeType: APP_MIME })]);
    const read = await client.readResource({ uri: TOOL_USAGE_URI });
    const item = read.contents[0] as { uri: string; mimeType: string; text: string; _meta?: unknown };
    expect([item.uri, item.mimeType, item._meta]).toEqual([TOOL_USAGE_URI, APP_MIME, { ui: { prefersBorder: true } }]);
    expect(item.text).toBe(await fs.readFile(path.join(RESOURCES_DIR, TOOL_USAGE_PAGE), 'utf8'));
    const page = checkAppPage(read, TOOL_USAGE_URI, 'toolsmith');
    expect([page.refused, page.prefersBorder, page.csp.connectDomains, page.csp.resourceDomains]).toEqual([[], true, [], []]);
  });

  it('answers a URI it does not serve with invalid params and a sentence', async () => {
    const client = await connect(APPS);
    const e = (await client.readResource({ uri: 'ui://toolsmith/nope.html' }).catch((x: unknown) => x)) as { code?: number; message: string };
    expect(e.code).toBe(-32602);
    expect(e.message).toContain("'ui://toolsmith/nope.html' is not a resource this server serves");
  });
});

describe('tools/call tool_usage', () => {
  it('answers the figures of a served tool after some calls: counts per day, errors, latency, and a summary', async () => {
    const client = await connect();
    await client.callTool({ name: 'count', arguments: { text: 'a b' } });
    await client.callTool({ name: 'count', arguments: { text: 'a b c' } });
    await client.callTool({ name: 'count', arguments: {} });
    await vi.waitFor(async () => {
      const r = (await client.callTool({ name: 'tool_usage', arguments: { tool: 'count' } })) as CallToolResult;
      expect(r.structuredContent).toMatchObject({ tool: 'count', title: 'count', toolId: fx.ids.count, calls: 3 });
    });
    const r = (await client.callTool({ name: 'tool_usage', arguments: { tool: 'kit/count', days: 7 } })) as CallToolResult;
    const s = r.structuredContent as { calls: number; errors: number; days: { calls: number; errors: number }[]; latencyMs?: unknown; errorsByCode: { code: string }[] };
    expect(r.isError).toBeFalsy();
    expect([s.calls, s.errors, s.days.length]).toEqual([3, 1, 7]);
    expect(s.days.at(-1)).toMatchObject({ calls: 3, errors: 1 });
    expect(s.days.slice(0, -1).every((d) => d.calls === 0)).toBe(true);
    expect(s.latencyMs).toBeDefined();
    expect(s.errorsByCode.map((e) => e.code)).toEqual(['VALIDATION_FAILED']);
    expect(text(r)).toMatch(/^count, last 7 days \(.+\): 3 calls, 1 error \(33%\); latency p50/);
    // The figures are those the app's own Tools screen shows.
    const same = await core.call('tools.usageStats', { bundleId: fx.bundleId, slug: 'count', version: '1', timeZone: (s as unknown as { timeZone: string }).timeZone });
    expect(same.ok && same.value.calls).toBe(3);
  });

  it('refuses a tool that is not served, and bad arguments, as tool errors saying what to give', async () => {
    const client = await connect();
    const unknown = (await client.callTool({ name: 'tool_usage', arguments: { tool: 'nope' } })) as CallToolResult;
    expect([unknown.isError, text(unknown)]).toEqual([true, unknownUsageTool('nope')]);
    // In the registry but not in a served bundle.
    const hidden = (await client.callTool({ name: 'tool_usage', arguments: { tool: 'other/hidden' } })) as CallToolResult;
    expect([hidden.isError, text(hidden)]).toEqual([true, unknownUsageTool('other/hidden')]);
    const days = (await client.callTool({ name: 'tool_usage', arguments: { tool: 'count', days: 0 } })) as CallToolResult;
    expect([days.isError, text(days)]).toEqual([true, expect.stringContaining('"days" must be a whole number from 1 to 90')]);
  });
});

describe('2026-07-28', () => {
  it('reads the apps extension from each request’s capabilities, and serves the page and the call', async () => {
    const plain = await connect2026();
    const apps = await connect2026(APPS);
    expect(plain.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await plain.listTools()).tools.find((t) => t.name === 'tool_usage')!._meta).toBeUndefined();
    expect((await apps.listTools()).tools.find((t) => t.name === 'tool_usage')!._meta).toEqual({ ui: { resourceUri: TOOL_USAGE_URI }, 'ui/resourceUri': TOOL_USAGE_URI });
    const read = await apps.readResource({ uri: TOOL_USAGE_URI });
    expect((read.contents[0] as { mimeType: string }).mimeType).toBe(APP_MIME);
    const r = await apps.callTool({ name: 'tool_usage', arguments: { tool: 'count' } });
    expect(r.structuredContent).toMatchObject({ tool: 'count', calls: 0 });
  });
});

describe('the page', () => {
  const page = () => fs.readFile(path.join(RESOURCES_DIR, TOOL_USAGE_PAGE), 'utf8');

  it('is self-contained: one inline style and one inline script, nothing loaded from elsewhere, no eval', async () => {
    const html = await page();
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script>']);
    expect(html.match(/<style\b[^>]*>/g)).toEqual(['<style>']);
    expect(html).not.toMatch(/\b(?:src|href|action|srcset)\s*=/i);
    expect(html).not.toMatch(/url\(|@import|<link\b|<iframe\b|<img\b/i);
    expect(html).not.toMatch(/\beval\(|new Function\(|innerHTML|fetch\(|XMLHttpRequest|WebSocket/);
    // The only URL in it is SVG's namespace name, which loads nothing.
    expect(html.match(/https?:\/\/[^\s'"]+/g)).toEqual(['http://www.w3.org/2000/svg']);
    expect(html.split('\n').length).toBeLessThan(200);
  });

  it('speaks the extension’s protocol: initialize, initialized, the result drawn, its height, ping and teardown answered, the theme followed', async () => {
    const frame = fakeFrame();
    vm.runInContext(scriptOf(await page()), frame.context);
    const [init] = frame.sent;
    expect(init).toMatchObject({ jsonrpc: '2.0', method: 'ui/initialize', params: { protocolVersion: '2026-01-26', appCapabilities: {}, appInfo: { name: expect.any(String) } } });
    frame.deliver({ jsonrpc: '2.0', id: (init as { id: number }).id, result: { protocolVersion: '2026-01-26', hostInfo: { name: 'test', version: '1' }, hostCapabilities: {}, hostContext: { theme: 'dark' } } });
    await vi.waitFor(() => expect(frame.sent.map((m) => (m as { method?: string }).method)).toContain('ui/notifications/initialized'));
    expect(frame.documentElement.dataset.theme).toBe('dark');

    const days = Array.from({ length: 7 }, (_, i) => ({ date: `2026-03-0${i + 1}`, calls: i === 6 ? 3 : 0, errors: i === 6 ? 1 : 0 }));
    const stats = { tool: 'count', title: 'Count', toolId: 't', timeZone: 'UTC', calls: 3, errors: 1, errorRate: 1 / 3, latencyMs: { p50: 4, p95: 9, max: 9 }, latencyHistogram: [], errorsByCode: [{ code: 'VALIDATION_FAILED', count: 1 }], otherErrors: 0, days };
    frame.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [{ type: 'text', text: 'x' }], structuredContent: stats } });
    const shown = frame.text();
    for (const part of ['Count (count)', 'Last 7 days', '3', 'errors (33%)', '4 ms', '9 ms', 'VALIDATION_FAILED: 1']) expect(shown).toContain(part);
    expect(frame.count('rect')).toBe(2);
    expect(frame.sent.filter((m) => (m as { method?: string }).method === 'ui/notifications/size-changed').at(-1)).toMatchObject({ params: { height: expect.any(Number) } });

    frame.deliver({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
    frame.deliver({ jsonrpc: '2.0', id: 't1', method: 'ui/resource-teardown', params: {} });
    expect(frame.sent.slice(-2)).toEqual([
      { jsonrpc: '2.0', id: 'p1', result: {} },
      { jsonrpc: '2.0', id: 't1', result: {} },
    ]);
    frame.deliver({ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'light' } });
    expect(frame.documentElement.dataset.theme).toBe('light');

    frame.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { isError: true, content: [{ type: 'text', text: unknownUsageTool('nope') }] } });
    expect(frame.text()).toBe(unknownUsageTool('nope'));
    // Messages from anywhere but the host are ignored.
    frame.deliver({ jsonrpc: '2.0', id: 'x', method: 'ping' }, {});
    expect(frame.sent.at(-1)).not.toMatchObject({ id: 'x' });
  });
});

describe('the page under the extension’s own host bridge', () => {
  it('initializes with ext-apps’ AppBridge (as Toolsmith’s chat card hosts apps), draws the result it sends, reports its size and answers teardown', async () => {
    const transport = {
      onmessage: undefined as ((m: unknown) => void) | undefined,
      start: async () => undefined,
      send: async (m: unknown) => frame.deliver(JSON.parse(JSON.stringify(m))),
      close: async () => undefined,
    };
    const frame = fakeFrame((m) => transport.onmessage?.(m));
    const bridge = new AppBridge(null, { name: 'host', version: '1.0.0' }, { serverTools: {} }, { hostContext: { theme: 'dark' } });
    const sizes: number[] = [];
    bridge.addEventListener('sizechange', ({ height }) => void (height !== undefined && sizes.push(height)));
    const initialized = new Promise<void>((resolve) => bridge.addEventListener('initialized', () => resolve()));
    await bridge.connect(transport as never);
    vm.runInContext(scriptOf(await fs.readFile(path.join(RESOURCES_DIR, TOOL_USAGE_PAGE), 'utf8')), frame.context);
    await initialized;
    expect(frame.documentElement.dataset.theme).toBe('dark');
    const days = [{ date: '2026-03-01', calls: 2, errors: 0 }];
    await bridge.sendToolResult({ content: [{ type: 'text', text: 'x' }], structuredContent: { tool: 'count', title: 'Count', toolId: 't', timeZone: 'UTC', calls: 2, errors: 0, errorRate: 0, latencyHistogram: [], errorsByCode: [], otherErrors: 0, days } });
    await vi.waitFor(() => expect(frame.text()).toContain('Count (count)'));
    await vi.waitFor(() => expect(sizes.length).toBeGreaterThan(0));
    await expect(bridge.teardownResource({})).resolves.toEqual({});
    await bridge.close();
  });
});

function scriptOf(html: string): string {
  const m = /<script>([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('the page has no inline script');
  return m[1]!;
}

/** Just enough of a browser frame for the page's script: elements, SVG elements, the parent window and its messages. */
function fakeFrame(onPost?: (m: unknown) => void) {
  interface Node {
    tag: string;
    attrs: Record<string, string>;
    children: (Node | string)[];
    textContent: string;
  }
  const make = (tag: string) => {
    const n = {
      tag,
      attrs: {} as Record<string, string>,
      children: [] as (Node | string)[],
      dataset: {} as Record<string, string>,
      set textContent(v: string) {
        n.children = [v];
      },
      get textContent(): string {
        return n.children.map((c) => (typeof c === 'string' ? c : c.textContent)).join('');
      },
      setAttribute: (k: string, v: string) => void (n.attrs[k] = v),
      append: (...c: (Node | string)[]) => void n.children.push(...c),
      replaceChildren: () => void (n.children = []),
      getBoundingClientRect: () => ({ height: 40 + n.textContent.length }),
    };
    return n;
  };
  const root = make('main');
  const documentElement = make('html');
  documentElement.children.push(root);
  const sent: unknown[] = [];
  const listeners: ((e: { source: unknown; data: unknown }) => void)[] = [];
  const parent = {
    postMessage: (m: unknown) => {
      sent.push(JSON.parse(JSON.stringify(m)));
      onPost?.(JSON.parse(JSON.stringify(m)));
    },
  };
  const window = { parent, addEventListener: (type: string, l: (e: { source: unknown; data: unknown }) => void) => type === 'message' && listeners.push(l) };
  const document = { documentElement, getElementById: () => root, createElement: make, createElementNS: (_ns: string, tag: string) => make(tag) };
  const context = vm.createContext({ window, document, Map, Promise, JSON, Math, Object, Array, String, Number });
  const count = (tag: string, n: Node = documentElement): number => n.children.reduce((sum, c) => sum + (typeof c === 'string' ? 0 : (c.tag === tag ? 1 : 0) + count(tag, c)), 0);
  return {
    context,
    sent,
    documentElement,
    deliver: (data: unknown, source: unknown = parent) => listeners.forEach((l) => l({ source, data })),
    text: () => root.textContent,
    count,
  };
}
