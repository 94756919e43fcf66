/**
 * Progressive discovery over MCP (./discovery.ts), checked with the SDK's own client over its
 * in-memory transport: the switch (off: every tool as before; on: the pinned tools, tool_search
 * and tool_output), a search that adds its tools to that client's list and says so
 * (notifications/tools/list_changed), calls of tools found or never listed, a user's tool whose
 * name is tool_search, and bad arguments. Then the list's size on the realistic registry.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { McpToolSearchSettings } from '../../../shared/model/mcp-serve';
import type { Bundle } from '../../../shared/model/bundle';
import { DEFAULT_TOOL_SEARCH_SETTINGS } from '../../../shared/model/tool-search';
import { createCore, type Core } from '../app';
import { seedServedBundle, startEchoServer, type EchoServer, type ServedFixture } from '../testing/mcp-serve-kit';
import { RESOURCES_DIR, useTempDirs } from '../testing/temp-dir';
import { realTools } from '../tool-search/testing/real-registry';
import { MAX_LISTED_TOOLS, ServedSearch, TOOL_SEARCH_NAME, type ToolSearchAnswer } from './discovery';
import type { ServedTool } from './served-tools';
import { SEARCH_INSTRUCTIONS, McpServeService, type McpServeOptions } from './service';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
const names = (tools: readonly Pick<Tool, 'name'>[]) => tools.map((t) => t.name).sort();

describe('progressive discovery over the served bundle', () => {
  let core: Core;
  let echo: EchoServer;
  let fx: ServedFixture;

  beforeEach(async () => {
    core = await createCore({ dataDir: await tempDir(), resourcesDir: RESOURCES_DIR, host: 'headless', watch: false });
    echo = await startEchoServer();
    fx = await seedServedBundle(core, echo.port);
    const s = await core.call('settings.set', { toolOutputs: { ...core.settings.get().toolOutputs, baseDir: await tempDir() } });
    if (!s.ok) throw new Error(s.error.message);
  });

  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await echo.close();
    await core.close();
  });

  async function discovery(toolSearch: McpToolSearchSettings, pinned: string[] = []) {
    const s = await core.call('settings.set', {
      mcpServer: { ...core.settings.get().mcpServer, toolSearch },
      toolSearch: { ...core.settings.get().toolSearch, pinned },
    });
    if (!s.ok) throw new Error(s.error.message);
  }

  async function connect(name = 'test-client') {
    const conn = core.mcpServer.createServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await conn.server.connect(serverSide);
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(clientSide);
    closers.push(async () => {
      await client.close();
      await conn.close();
    });
    return client;
  }

  const search = async (client: Client, args: Record<string, unknown>) => (await client.callTool({ name: TOOL_SEARCH_NAME, arguments: args })) as CallToolResult;

  it('is on by default past 50 tools only: the four served tools are listed whole, as before', async () => {
    expect(core.settings.get().mcpServer.toolSearch).toEqual({ mode: 'auto', maxTools: 50 });
    const client = await connect();
    expect(names((await client.listTools()).tools)).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_usage']);
    expect(client.getInstructions()).not.toContain(TOOL_SEARCH_NAME);
  });

  it('switched off, every tool is listed whatever the count, and tool_search is not served', async () => {
    await discovery({ mode: 'off', maxTools: 1 });
    const client = await connect();
    expect(names((await client.listTools()).tools)).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_usage']);
    const e = await client.callTool({ name: TOOL_SEARCH_NAME, arguments: { query: 'count words' } }).catch((x: unknown) => x);
    expect((e as McpError).code).toBe(ErrorCode.InvalidParams);
  });

  it('on, lists the pinned tools, tool_search and tool_output; auto turns on past its threshold', async () => {
    await discovery({ mode: 'always', maxTools: 50 }, ['kit/count']);
    const client = await connect();
    const { tools } = await client.listTools();
    expect(names(tools)).toEqual(['count', 'tool_output', TOOL_SEARCH_NAME, 'tool_usage']);
    const ts = tools.find((t) => t.name === TOOL_SEARCH_NAME)!;
    expect(ts.description).toContain('3 more tools are served but not listed');
    expect(ts.inputSchema).toMatchObject({ type: 'object', required: ['query'], properties: { query: { type: 'string' }, limit: { type: 'integer', maximum: 20 } } });
    expect(ts.annotations).toMatchObject({ readOnlyHint: true });
    expect(client.getInstructions()).toContain(SEARCH_INSTRUCTIONS.trim());

    await discovery({ mode: 'auto', maxTools: 4 });
    expect(names(core.mcpServer.listTools())).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_usage']);
    await discovery({ mode: 'auto', maxTools: 3 });
    expect(names(core.mcpServer.listTools())).toEqual(['tool_output', TOOL_SEARCH_NAME, 'tool_usage']);
  });

  it('a search answers the best tools with their input schemas, adds them to that client’s list, and says the list changed', async () => {
    await discovery({ mode: 'always', maxTools: 50 });
    const client = await connect();
    const other = await connect('other-client');
    expect(names((await client.listTools()).tools)).toEqual(['tool_output', TOOL_SEARCH_NAME, 'tool_usage']);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);

    const r = await search(client, { query: 'count the words in a text', limit: 2 });
    expect(r.isError).toBeFalsy();
    const answer = r.structuredContent as unknown as ToolSearchAnswer;
    // The text names each tool with its short description and arguments; the schemas are in the structured content.
    expect(text(r)).toContain(`Added to your tool list: ${answer.added.join(', ')}. Call any of these tools by name:\n- count: The count tool\n  arguments: text*: string`);
    expect(answer.tools.length).toBeLessThanOrEqual(2);
    expect(answer.tools[0]).toMatchObject({
      name: 'count',
      title: 'count',
      description: 'The count tool',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(answer.added).toEqual(answer.tools.map((t) => t.name));
    await vi.waitFor(() => expect(changed).toBe(1));

    const listed = (await client.listTools()).tools;
    expect(names(listed)).toEqual([...answer.added, TOOL_SEARCH_NAME, 'tool_output', 'tool_usage'].sort());
    // The whole definition now, as without discovery.
    expect(listed.find((t) => t.name === 'count')).toMatchObject({ description: 'The count tool', inputSchema: { required: ['text'] } });
    // Another client's list is its own.
    expect(names((await other.listTools()).tools)).toEqual(['tool_output', TOOL_SEARCH_NAME, 'tool_usage']);

    // The same search again adds nothing, and the list stays as it is.
    const again = (await search(client, { query: 'count the words in a text', limit: 2 })).structuredContent as unknown as ToolSearchAnswer;
    expect(again.added).toEqual([]);
    expect(names((await client.listTools()).tools)).toEqual(names(listed));
    // The in-memory transport keeps order: a notice sent with the answer would have come before it.
    expect(changed).toBe(1);
  });

  it('runs a found tool, and any served tool never listed, through the same path: logged and counted', async () => {
    await discovery({ mode: 'always', maxTools: 50 });
    const client = await connect();
    const found = (await search(client, { query: 'count words' })).structuredContent as unknown as ToolSearchAnswer;
    expect(found.tools.map((t) => t.name)).toContain('count');
    const r = (await client.callTool({ name: 'count', arguments: { text: 'two words' } })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ words: 2 });
    await vi.waitFor(() => expect(core.registry.store.usage(fx.ids.count!).callCount).toBe(1));
    await vi.waitFor(async () => {
      const log = await core.call('invocations.list', { toolId: fx.ids.count! });
      expect(log.ok && log.value.map((v) => v.source)).toEqual(['api']);
    });

    // Never searched for: it runs all the same, and asks as before (no window open: refused with why).
    const remote = (await client.callTool({ name: 'remote', arguments: { q: 'z' } })) as CallToolResult;
    expect(remote.structuredContent).toMatchObject({ path: '/search?q=z', key: '[redacted]' });
    const guarded = (await client.callTool({ name: 'guarded', arguments: { text: 'a' } })) as CallToolResult;
    expect([guarded.isError, text(guarded)]).toEqual([true, expect.stringContaining('no Toolsmith window is open')]);
    expect(names((await client.listTools()).tools)).not.toContain('remote');

    // A name that is not served points at tool_search.
    const e = await client.callTool({ name: 'hidden', arguments: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((e as McpError).message).toContain(`unknown tool 'hidden': call ${TOOL_SEARCH_NAME} with what you need to do`);
  });

  it('gives a user’s tool named tool_search another name while discovery may be on, and its own name while it is off', async () => {
    // A slug with a letter a provider does not accept becomes `_` in its name: `toolésearch` is served as `tool_search`.
    const t = await core.registry.store.putTool(fx.bundleId, 'toolésearch', '1', {
      displayName: 'Look up a word',
      description: 'Count the words of a text (a user tool whose name is tool_search)',
      tags: [],
      isEnabled: true,
      type: 'local',
      argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: {},
      local: { functionId: 'text.count' },
    });
    core.mcpServer.changed();

    await discovery({ mode: 'off', maxTools: 50 });
    const plain = await connect();
    expect(names((await plain.listTools()).tools)).toContain(TOOL_SEARCH_NAME);
    expect(((await plain.callTool({ name: TOOL_SEARCH_NAME, arguments: { text: 'a b c' } })) as CallToolResult).structuredContent).toMatchObject({ words: 3 });

    await discovery({ mode: 'auto', maxTools: 50 });
    const below = await connect();
    // Below the threshold every tool is listed, the user's under its other name.
    expect(names((await below.listTools()).tools)).toEqual(['big', 'count', 'guarded', 'remote', 'tool_output', 'tool_search_2', 'tool_usage']);

    await discovery({ mode: 'always', maxTools: 50 });
    const client = await connect();
    const answer = (await search(client, { query: 'a user tool whose name is tool_search' })).structuredContent as unknown as ToolSearchAnswer;
    expect(answer.tools.map((x) => x.name)).toContain('tool_search_2');
    const r = (await client.callTool({ name: 'tool_search_2', arguments: { text: 'one two' } })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ words: 2 });
    await vi.waitFor(() => expect(core.registry.store.usage(t.id).callCount).toBe(2));
  });

  it('answers bad arguments with a tool error the client’s model can read', async () => {
    await discovery({ mode: 'always', maxTools: 50 });
    const client = await connect();
    const need = 'tool_search needs a "query": what you need to do, in a sentence';
    const cases: [Record<string, unknown>, string][] = [
      [{}, need],
      [{ query: '' }, need],
      [{ query: '   ' }, need],
      [{ query: 42 }, need],
      [{ query: 'x'.repeat(1001) }, 'the query is too long: at most 1000 characters'],
      [{ query: 'count words', limit: 1_000_000 }, '"limit" must be a whole number from 1 to 20'],
      [{ query: 'count words', limit: 0 }, '"limit" must be a whole number from 1 to 20'],
      [{ query: 'count words', limit: 2.5 }, '"limit" must be a whole number from 1 to 20'],
      [{ query: 'count words', limit: '3' }, '"limit" must be a whole number from 1 to 20'],
    ];
    for (const [args, message] of cases) {
      const r = await search(client, args);
      expect([r.isError, text(r)], JSON.stringify(args).slice(0, 60)).toEqual([true, `VALIDATION_FAILED: ${message}`]);
    }
    // A query that matches nothing is an answer, not an error.
    const none = await search(client, { query: 'zyxwvut qqqq' });
    expect(none.isError).toBeFalsy();
    expect(none.structuredContent).toEqual({ tools: [], added: [], note: 'no tool matches: try other words, or describe the task differently' });
    expect(text(none)).toBe('no tool matches: try other words, or describe the task differently');
    expect(names((await client.listTools()).tools)).toEqual(['tool_output', TOOL_SEARCH_NAME, 'tool_usage']);
  });
});

describe('progressive discovery on the realistic registry (500 tools of eight services)', () => {
  const tools = realTools();
  const bundles = new Map<string, string>();
  for (const t of tools) bundles.set(t.tool.bundleId, t.bundleSlug);

  function service(toolSearch: McpToolSearchSettings, pinned: string[] = []): McpServeService {
    const opts = {
      store: {
        allTools: () => tools.map((t) => t.tool),
        isUsable: () => true,
        bundleById: (id: string) => ({ id, slug: bundles.get(id) ?? '' }) as Bundle,
      },
      settings: () => ({ enabled: true, bundleIds: [...bundles.keys()], toolSearch }),
      toolSearch: () => ({ ...DEFAULT_TOOL_SEARCH_SETTINGS, pinned }),
      toolOutputs: { endSession: async () => undefined },
      now: () => new Date(),
      version: '0.0.0',
      dataDir: '/nowhere',
    } as unknown as McpServeOptions;
    return new McpServeService(opts);
  }

  const size = (list: readonly object[]) => {
    const json = JSON.stringify({ tools: list });
    return { bytes: Buffer.byteLength(json), tokens: countTokens(json, { disallowedSpecial: new Set() }) };
  };

  it('lists a few hundred tokens instead of every definition, and a search finds and adds the tool a need names', async () => {
    const all = service({ mode: 'off', maxTools: 50 }).listTools();
    expect(all).toHaveLength(tools.length + 1);
    const svc = service({ mode: 'auto', maxTools: 50 }, ['github/repos-get']);
    const few = svc.listTools();
    expect(names(few)).toEqual(['repos-get', 'tool_output', TOOL_SEARCH_NAME]);
    const [whole, small] = [size(all), size(few)];
    expect(whole.bytes).toBeGreaterThan(500_000);
    // Under 1% of the whole list.
    expect(small.bytes * 100).toBeLessThan(whole.bytes);
    expect(small.tokens * 100).toBeLessThan(whole.tokens);

    const conn = svc.createServer();
    const found = await svc.callTool(conn.session, TOOL_SEARCH_NAME, { query: 'send an SMS message to a customer with Twilio' });
    const answer = found.structuredContent as unknown as ToolSearchAnswer;
    expect(answer.tools).toHaveLength(DEFAULT_TOOL_SEARCH_SETTINGS.results);
    expect(answer.tools.map((t) => t.name)).toContain('twilio__create-message');
    expect(answer.tools.every((t) => t.inputSchema.type === 'object' && t.description.length <= 240)).toBe(true);
    const listed = svc.listTools(conn.session);
    expect(listed).toHaveLength(few.length + answer.added.length);
    expect(size(listed).bytes * 20).toBeLessThan(whole.bytes);
    await conn.close();
  });

  it('stops adding to a client’s list at MAX_LISTED_TOOLS; what it finds past that is still answered and callable by name', async () => {
    const svc = service({ mode: 'always', maxTools: 50 });
    const conn = svc.createServer();
    const queries = ['repository', 'issue', 'pull request', 'payment', 'customer', 'message', 'file', 'folder', 'user', 'project', 'task', 'channel', 'invoice', 'comment', 'webhook', 'team', 'workspace', 'model', 'call', 'branch'];
    let notes = 0;
    for (const q of queries) {
      const answer = (await svc.callTool(conn.session, TOOL_SEARCH_NAME, { query: q, limit: 20 })).structuredContent as unknown as ToolSearchAnswer;
      if (answer.note?.includes(`it holds at most ${MAX_LISTED_TOOLS} tools`)) notes++;
    }
    expect(svc.listTools(conn.session)).toHaveLength(MAX_LISTED_TOOLS);
    expect(notes).toBeGreaterThan(0);
    await conn.close();
  });
});

describe('a client’s found tools', () => {
  it('give their room back once they are no longer served', async () => {
    const served = (name: string, description: string) =>
      ({ name, tool: { id: name, slug: name, displayName: name, description, tags: [], argSchema: { type: 'object' }, modifiedAt: 't' }, bundleSlug: 'kit', bundleName: 'Kit', description, inputSchema: { type: 'object' }, approval: null }) as unknown as ServedTool;
    const tools = [served('send-invoice', 'Send an invoice to a customer'), served('list-files', 'List the files of a folder')];
    const search = new ServedSearch(tools, new Map(tools.map((t) => [t.name, t])), { pinned: [], results: 5 });
    const found = new Set(['removed-tool', 'list-files']);
    const { added } = await search.search({ query: 'send an invoice' }, found, (t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }) as never);
    expect(added).toEqual(['send-invoice']);
    expect([...found].sort()).toEqual(['list-files', 'send-invoice']);
  });
});
