/**
 * A script tool not written in this app asks before its first run: one imported from another
 * Toolsmith's ZIP is refused (FORBIDDEN, rule script-not-trusted) until the user trusts it, its
 * approval says why, and trusting it (here, over MCP, or in the chat) lets it run from then on.
 * The ZIP carries the script: exported with its source, imported as a .js beside the .json.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { unzipSync } from 'fflate';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SCRIPT_NOT_TRUSTED_RULE } from '../../../shared/model/script-tool';
import { call, harness, until, type Harness } from '../testing/agent-harness';
import { useTempDirs } from '../testing/temp-dir';
import { scriptBody, useScriptKits, type ScriptKit } from './testing/script-kit';

const kit = useScriptKits();
const tempDir = useTempDirs();
const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

const SHOUT = '/** Shouts. */\nfunction run(args) { return { text: String(args.text).toUpperCase() + "!" }; }\n';

/** A bundle with a script tool written in one Toolsmith, exported and imported into another: answers the importer. */
async function imported(): Promise<{ author: ScriptKit; k: ScriptKit; bundleId: string; zip: Record<string, Uint8Array> }> {
  const author = await kit();
  await author.put('shout', SHOUT, { limits: { timeLimitMs: 2000 } });
  const exported = await author.core.call('transfer.exportBundle', { bundleId: author.bundleId });
  if (!exported.ok) throw new Error(exported.error.message);
  const k = await kit();
  const report = await k.core.call('transfer.importBundle', { base64: exported.value.base64 });
  if (!report.ok || !report.value.bundleId) throw new Error(JSON.stringify(report));
  expect(report.value.asks).toEqual([{ tool: 'shout@1', message: 'a script not written in this app: will ask before its first run' }]);
  return { author, k, bundleId: report.value.bundleId, zip: unzipSync(Buffer.from(exported.value.base64, 'base64')) };
}

describe('a script tool from another Toolsmith', () => {
  it('travels in the ZIP with its source and limits, and is stored as a .js beside its .json', async () => {
    const { k, bundleId, zip } = await imported();
    const entry = JSON.parse(Buffer.from(zip['tools/shout@1.json']!).toString('utf8')) as { type: string; script: unknown };
    expect(entry.type).toBe('script');
    expect(entry.script).toEqual({ source: SHOUT, timeLimitMs: 2000 });
    const names = await fs.readdir(path.join(k.dataDir, 'bundles', bundleId, 'tools'));
    expect(names.filter((n) => n.endsWith('.js'))).toHaveLength(1);
    expect(await fs.readFile(path.join(k.dataDir, 'bundles', bundleId, 'tools', names.find((n) => n.endsWith('.js'))!), 'utf8')).toBe(SHOUT);
  });

  it('is refused until the user trusts it, its approval says why, and then it runs without asking', async () => {
    const { k, bundleId } = await imported();
    const ref = { bundleId, slug: 'shout', version: '1' };
    expect(await k.core.call('tools.approval', ref)).toEqual({ ok: true, value: { reason: { kind: 'script' } } });
    const refused = await k.core.call('tools.invoke', { ...ref, args: { text: 'hi' }, source: 'user' });
    expect(refused.ok || refused.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/'shout' version '1' is a script tool that was not written in this app .* read its script and trust it before it runs/),
      details: { rule: SCRIPT_NOT_TRUSTED_RULE },
    });
    // The user reads it, then trusts it.
    expect(await k.core.call('tools.scriptSource', ref)).toMatchObject({ ok: true, value: { source: SHOUT } });
    const changes: unknown[] = [];
    k.core.events.on('store.changed', (c) => changes.push(c));
    expect(await k.core.call('tools.trustScript', ref)).toEqual({ ok: true, value: { trusted: true } });
    expect(changes).toEqual([expect.objectContaining({ kind: 'tool', op: 'patch', bundleId })]);
    expect(await k.core.call('tools.approval', ref)).toEqual({ ok: true, value: null });
    const ran = await k.core.call('tools.invoke', { ...ref, args: { text: 'hi' }, source: 'user' });
    expect(ran.ok && (ran.value as { value: unknown }).value).toEqual({ text: 'HI!' });
    // Trust is the user's, kept in the data folder: a core opened again on it still trusts it.
    const trust = JSON.parse(await fs.readFile(path.join(k.dataDir, 'script-trust.json'), 'utf8')) as { scripts: Record<string, { how: string }> };
    expect(Object.values(trust.scripts).map((g) => g.how).sort()).toEqual(['allowed']);
  });

  it('the same source saved here is trusted wherever it is; a script the author saved runs at once for the author', async () => {
    const { author, k, bundleId } = await imported();
    const own = await author.invoke('shout', { text: 'a' });
    expect(own.ok).toBe(true);
    // In the importer, a tool saved through the editor with the same source makes it trusted.
    await k.put('shout-copy', SHOUT);
    const r = await k.core.call('tools.invoke', { bundleId, slug: 'shout', version: '1', args: { text: 'b' }, source: 'user' });
    expect(r.ok).toBe(true);
  });

  it('served over MCP, it asks in the app before its first call; allowed once, it is trusted for every client', async () => {
    const { k, bundleId } = await imported();
    await k.core.call('settings.set', { mcpServer: { ...k.core.settings.get().mcpServer, enabled: true, bundleIds: [bundleId] } });
    const detach = k.core.mcpServer.queue.attachWindow();
    const connect = async (name: string) => {
      const conn = k.core.mcpServer.createServer();
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await conn.server.connect(serverSide);
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(clientSide);
      return { client, close: async () => (await client.close(), await conn.close()) };
    };
    const first = await connect('first');
    const { tools } = await first.client.listTools();
    expect(tools.map((t) => t.name)).toContain('shout');
    const pending = first.client.callTool({ name: 'shout', arguments: { text: 'mcp' } });
    await vi.waitFor(() => expect(k.core.mcpServer.queue.list()).toHaveLength(1));
    expect(k.core.mcpServer.queue.list()[0]).toMatchObject({ toolName: expect.stringMatching(/\/shout$/), approval: { reason: { kind: 'script' } } });
    k.core.mcpServer.queue.respond(k.core.mcpServer.queue.list()[0]!.id, 'allow-once');
    expect(((await pending) as CallToolResult).structuredContent).toEqual({ text: 'MCP!' });
    detach();
    // Trusted now: another client, with no window open, runs it at once.
    const second = await connect('second');
    const again = (await second.client.callTool({ name: 'shout', arguments: { text: 'again' } })) as CallToolResult;
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toEqual({ text: 'AGAIN!' });
    await first.close();
    await second.close();
  });
});

describe('in the chat', () => {
  it("a model's call of a script not written here waits for approval, naming why; allowing it trusts the script", async () => {
    const h = await harness(await tempDir());
    harnesses.push(h);
    // Put straight into the store, as an import does: not trusted.
    const tool = await h.store.putTool(h.bundleId, 'imported', '1', scriptBody(SHOUT));
    expect(h.store.isScriptTrusted(tool.script!.sha256)).toBe(false);
    const c = h.conversations.create(undefined, { providerId: 'p1', model: 'm1' });
    const toolRows = () => h.conversations.messages(c.id).filter((m) => m.role === 'tool');
    h.models.script = [{ toolCalls: [call('imported', { text: 'x' }, 'i1')] }, { text: 'ok' }];
    const sent = h.chat.send(c.id, 'please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    expect(waiting.tool!.approval).toEqual({ reason: { kind: 'script' } });
    expect(h.loop.respond(c.id, waiting.tool!.invocationId, 'allow-once')).toBe(true);
    await sent;
    await h.loop.settled(c.id);
    expect(h.store.isScriptTrusted(tool.script!.sha256)).toBe(true);
  });
});
