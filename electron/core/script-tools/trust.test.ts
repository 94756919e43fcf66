/**
 * A script tool not written in this app asks before its first run: one imported from another
 * Toolsmith's ZIP is refused (FORBIDDEN, rule script-not-trusted) until the user trusts it, its
 * approval says why, and trusting it (here, over MCP, or in the chat) lets it run from then on.
 * The ZIP carries the script: exported with its source, imported as a .js beside the .json.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { unzipSync } from 'fflate';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SCRIPT_NOT_TRUSTED_RULE } from '../../../shared/model/script-tool';
import { sha256Hex } from '../bundles/script-files';
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
    // The user reads it, then trusts it: what was shown, by its SHA-256.
    const shown = await k.core.call('tools.scriptSource', ref);
    expect(shown).toMatchObject({ ok: true, value: { source: SHOUT, sha256: sha256Hex(SHOUT) } });
    const changes: unknown[] = [];
    k.core.events.on('store.changed', (c) => changes.push(c));
    expect(await k.core.call('tools.trustScript', { ...ref, sha256: sha256Hex(SHOUT) })).toEqual({ ok: true, value: { trusted: true } });
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

describe('"Trust" trusts the source that was shown', () => {
  const EVIL = 'function run() { return "evil ran" }\n';
  const BENIGN = 'function run() { return "benign" }\n';

  it('is refused when the .js on disk does not hold what the tool records, or what was shown; nothing is trusted', async () => {
    const k = await kit();
    const store = k.core.registry.store;
    // A copied or synced data folder: the .json records EVIL, the .js beside it holds BENIGN.
    await store.putTool(k.bundleId, 'pkg', '1', scriptBody(EVIL));
    const toolsDir = path.join(k.dataDir, 'bundles', k.bundleId, 'tools');
    const js = path.join(toolsDir, (await fs.readdir(toolsDir)).find((n) => n.endsWith('.js'))!);
    await fs.writeFile(js, BENIGN);
    const ref = { bundleId: k.bundleId, slug: 'pkg', version: '1' };
    const shown = await k.core.call('tools.scriptSource', ref);
    expect(shown).toMatchObject({ ok: true, value: { source: BENIGN, sha256: sha256Hex(BENIGN), problem: expect.stringMatching(/was changed after this version was saved/) } });
    for (const sha256 of [sha256Hex(BENIGN), sha256Hex(EVIL)]) {
      const t = await k.core.call('tools.trustScript', { ...ref, sha256 });
      expect(t.ok || t.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/^'pkg' version '1' cannot be trusted: its script file .* was changed after this version was saved/) });
    }
    expect(store.isScriptTrusted(sha256Hex(EVIL))).toBe(false);
    expect(store.isScriptTrusted(sha256Hex(BENIGN))).toBe(false);
    // The file put back to what the .json records, while the user still has BENIGN on screen: refused too.
    await fs.writeFile(js, EVIL);
    const stale = await k.core.call('tools.trustScript', { ...ref, sha256: sha256Hex(BENIGN) });
    expect(stale.ok || stale.error).toMatchObject({ code: 'CONFLICT', message: "'pkg' version '1' was not trusted: its script is not the one that was shown (it changed since); read it again, then trust it" });
    const r = await k.invoke('pkg');
    expect(r.ok || r.error.code).toBe('FORBIDDEN');
    // Read again, then trusted: it runs.
    const again = await k.core.call('tools.scriptSource', ref);
    expect(again).toMatchObject({ ok: true, value: { source: EVIL, sha256: sha256Hex(EVIL) } });
    expect(await k.core.call('tools.trustScript', { ...ref, sha256: sha256Hex(EVIL) })).toEqual({ ok: true, value: { trusted: true } });
    expect((await k.invoke('pkg')).ok).toBe(true);
  });
});

describe('an MCP client asked, with no Toolsmith window open', () => {
  async function foreign(k: ScriptKit) {
    const tool = await k.core.registry.store.putTool(k.bundleId, 'foreign', '1', scriptBody('function run() { return { ran: true } }'));
    await k.core.call('settings.set', { mcpServer: { ...k.core.settings.get().mcpServer, enabled: true, bundleIds: [k.bundleId] } });
    return tool;
  }
  async function connect(k: ScriptKit, answer?: (message: string) => { action: 'accept'; content: { run: boolean } } | { action: 'decline' }) {
    const conn = k.core.mcpServer.createServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await conn.server.connect(serverSide);
    const client = new Client({ name: 'any-client', version: '1.0.0' }, answer ? { capabilities: { elicitation: {} } } : {});
    const asked: { message: string; schema: unknown }[] = [];
    if (answer) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        const p = req.params as { message: string; requestedSchema: unknown };
        asked.push({ message: p.message, schema: p.requestedSchema });
        return answer(p.message);
      });
    }
    await client.connect(clientSide);
    return { client, asked, close: async () => (await client.close(), await conn.close()) };
  }

  it("runs a script from outside once when the client's user confirms it, told what it is, and never trusts it", async () => {
    const k = await kit();
    const tool = await foreign(k);
    const c = await connect(k, () => ({ action: 'accept', content: { run: true } }));
    const r = (await c.client.callTool({ name: 'foreign', arguments: {} })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ ran: true });
    expect(c.asked).toHaveLength(1);
    expect(c.asked[0]!.message).toMatch(/^Toolsmith: 'scripts\/foreign' is a script that was not written in Toolsmith .* and is not trusted; its source is not shown here.* Run this script from outside once with \{\}\? It stays untrusted: to trust it, .*toolsmith invoke scripts\/foreign --trust\.$/);
    expect(JSON.stringify(c.asked[0]!.schema)).toContain('without trusting it');
    // Not trusted: the app still refuses it, and the next client call asks again.
    expect(k.core.registry.store.isScriptTrusted(tool.script!.sha256)).toBe(false);
    const palette = await k.invoke('foreign');
    expect(palette.ok || palette.error.code).toBe('FORBIDDEN');
    const second = (await c.client.callTool({ name: 'foreign', arguments: {} })) as CallToolResult;
    expect(second.structuredContent).toEqual({ ran: true });
    expect(c.asked).toHaveLength(2);
    expect(k.core.registry.store.isScriptTrusted(tool.script!.sha256)).toBe(false);
    await c.close();
  });

  it('refuses a script from outside, saying how to trust it, when the client cannot ask or its user declines', async () => {
    const k = await kit();
    const tool = await foreign(k);
    const mute = await connect(k);
    const r = (await mute.client.callTool({ name: 'foreign', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect((r.content as { text: string }[])[0]!.text).toMatch(/^'scripts\/foreign' is a script that was not written in Toolsmith and is not trusted yet, and no Toolsmith window is open to show it: .*"Trust and run".*toolsmith invoke scripts\/foreign --trust$/);
    await mute.close();
    const declining = await connect(k, () => ({ action: 'decline' }));
    const d = (await declining.client.callTool({ name: 'foreign', arguments: {} })) as CallToolResult;
    expect(d.isError).toBe(true);
    expect((d.content as { text: string }[])[0]!.text).toMatch(/did not confirm/);
    await declining.close();
    expect(k.core.registry.store.isScriptTrusted(tool.script!.sha256)).toBe(false);
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
  it("allowing a sequence whose step runs a script not written here trusts only what the card showed: the step's script stays untrusted and is refused at its turn", async () => {
    const h = await harness(await tempDir());
    harnesses.push(h);
    const step = await h.store.putTool(h.bundleId, 'imported', '1', scriptBody(SHOUT));
    await h.store.putTool(h.bundleId, 'wrapper', '1', {
      displayName: 'Wrapper',
      description: 'Runs the imported script',
      tags: [],
      type: 'sequence',
      argSchema: { type: 'object' },
      outputSchema: {},
      sequence: { steps: [{ id: 'a', tool: { bundleId: h.bundleId, slug: 'imported', version: '1' }, args: { text: '${args.text}' } }] },
      isEnabled: true,
    });
    const c = h.conversations.create(undefined, { providerId: 'p1', model: 'm1' });
    const toolRows = () => h.conversations.messages(c.id).filter((m) => m.role === 'tool');
    h.models.script = [{ toolCalls: [call('wrapper', { text: 'x' }, 'w1')] }, { text: 'ok' }];
    const sent = h.chat.send(c.id, 'please');
    const waiting = await until(() => toolRows().find((m) => m.tool!.status === 'awaiting-approval'));
    expect(waiting.tool!.approval).toEqual({ reason: { kind: 'step', step: 'a', tool: 'imported@1' } });
    expect(h.loop.respond(c.id, waiting.tool!.invocationId, 'allow-once')).toBe(true);
    await sent;
    await h.loop.settled(c.id);
    expect(h.store.isScriptTrusted(step.script!.sha256)).toBe(false);
    const row = toolRows().find((m) => m.tool!.invocationId === waiting.tool!.invocationId)!;
    expect(row.tool!.status).not.toBe('done');
  });
});
