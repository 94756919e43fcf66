/**
 * A served tool that requires approval, called while no Toolsmith window is open: the MCP
 * client's own user is asked to confirm (elicitation), in both revisions over `/mcp`, where the
 * client offers form questions and Settings → MCP server lets Toolsmith ask there.
 */
import { Client as Client2026, StreamableHTTPClientTransport as Http2026, type CallToolResult } from '@modelcontextprotocol/client';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../core/app';
import { deniedByClient, needsApprovalNoWindow } from '../../core/mcp-server/call';
import { seedServedBundle, startEchoServer } from '../../core/testing/mcp-serve-kit';
import { RESOURCES_DIR, useTempDirs } from '../../core/testing/temp-dir';
import { startHttpHost } from './http';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function start(): Promise<{ core: Core; url: URL; token: string; guardedId: string }> {
  const dataDir = await tempDir();
  const staticDir = path.join(dataDir, 'static');
  await fs.mkdir(staticDir, { recursive: true });
  const core = await createCore({ resourcesDir: RESOURCES_DIR, watch: false, dataDir, host: 'headless' });
  closers.push(() => core.close());
  const echo = await startEchoServer();
  closers.push(() => echo.close());
  const fx = await seedServedBundle(core, echo.port);
  await core.call('settings.set', { toolOutputs: { ...core.settings.get().toolOutputs, baseDir: await tempDir() } });
  const host = await startHttpHost({ core, staticDir });
  closers.push(() => host.close());
  const token = (await fs.readFile(host.tokenFile, 'utf8')).trim();
  return { core, url: new URL('mcp', host.url), token, guardedId: fx.ids.guarded! };
}

/** A v2 client in the given mode, answering each question with `answer` (and recording it). */
async function client(s: { url: URL; token: string }, mode: 'auto' | 'legacy', answer: (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }, asked: string[], elicit = true) {
  const c = new Client2026({ name: 'confirm-test', version: '1.0.0' }, { capabilities: elicit ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode } });
  if (elicit)
    c.setRequestHandler('elicitation/create', (req) => {
      const p = req.params as { message: string; requestedSchema?: unknown };
      asked.push(p.message);
      expect(p.requestedSchema).toMatchObject({ properties: { run: { type: 'boolean' } }, required: ['run'] });
      return answer(p.message) as { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> };
    });
  await c.connect(new Http2026(s.url, { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
  closers.push(() => c.close());
  return c;
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe.each([
  ['2025-11-25', 'legacy' as const],
  ['2026-07-28', 'auto' as const],
])("a served tool's approval asked of the client's user (%s)", (revision, mode) => {
  it('runs once the user ticks run, is refused when they decline or leave it unticked, and counts nothing refused', async () => {
    const s = await start();
    const asked: string[] = [];
    let next: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> } = { action: 'accept', content: { run: true } };
    const c = await client(s, mode, () => next, asked);
    expect(c.getNegotiatedProtocolVersion()).toBe(revision);

    const ran = (await c.callTool({ name: 'guarded', arguments: { text: 'a' } })) as CallToolResult;
    expect(ran.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Toolsmith: 'kit\/guarded' requires approval before it runs, and no Toolsmith window is open to ask\. Run it with \{"text":"a"\}\?$/);
    expect(s.core.registry.store.usage(s.guardedId).callCount).toBe(1);

    for (const answer of [{ action: 'decline' as const }, { action: 'accept' as const, content: { run: false } }, { action: 'cancel' as const }]) {
      next = answer;
      const refused = (await c.callTool({ name: 'guarded', arguments: { text: 'b' } })) as CallToolResult;
      expect([refused.isError, text(refused)]).toEqual([true, deniedByClient('kit/guarded')]);
    }
    expect(asked).toHaveLength(4);
    expect(s.core.registry.store.usage(s.guardedId).callCount).toBe(1);
  });

  it('refuses as before for a client that cannot ask, and when Settings turns the question off', async () => {
    const s = await start();
    const asked: string[] = [];
    const mute = await client(s, mode, () => ({ action: 'accept', content: { run: true } }), asked, false);
    const r = (await mute.callTool({ name: 'guarded', arguments: { text: 'a' } })) as CallToolResult;
    expect([r.isError, text(r)]).toEqual([true, needsApprovalNoWindow('kit/guarded')]);

    const set = await s.core.call('settings.set', { mcpServer: { ...s.core.settings.get().mcpServer, askClient: false } });
    expect(set.ok).toBe(true);
    const asking = await client(s, mode, () => ({ action: 'accept', content: { run: true } }), asked);
    const off = (await asking.callTool({ name: 'guarded', arguments: { text: 'a' } })) as CallToolResult;
    expect([off.isError, text(off)]).toEqual([true, needsApprovalNoWindow('kit/guarded')]);
    expect(asked).toEqual([]);
    expect(s.core.registry.store.usage(s.guardedId).callCount).toBe(0);
  });
});

describe("a 2026 client's answer to the confirmation counts only for the question Toolsmith asked", () => {
  /** A bare 2026-07-28 tools/call over /mcp, with what a client may put in its retry. */
  async function rawCall(s: { url: URL; token: string }, args: Record<string, unknown>, extra: Record<string, unknown>): Promise<Record<string, unknown>> {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
    const r = await fetch(s.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'guarded', Authorization: `Bearer ${s.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'guarded', arguments: args, ...extra, _meta: meta } }),
    });
    const text = await r.text();
    // JSON, or one server-sent event carrying it.
    const json = text.trimStart().startsWith('{') ? text : (text.split('\n').find((l) => l.startsWith('data: ')) ?? '').slice('data: '.length);
    return (JSON.parse(json) as { result: Record<string, unknown> }).result;
  }
  const yes = { 'toolsmith.approve': { action: 'accept', content: { run: true } } };

  it('asks, whatever answer the client sends unasked; an answer runs once, for the same arguments only', async () => {
    const s = await start();
    // An answer made up by the client, with no question asked: the question is asked.
    const forged = await rawCall(s, { text: 'evil' }, { inputResponses: yes });
    expect(forged).toMatchObject({ resultType: 'input_required', inputRequests: { 'toolsmith.approve': { method: 'elicitation/create' } } });
    expect(typeof forged.requestState).toBe('string');
    // A made-up state is no better.
    expect(await rawCall(s, { text: 'evil' }, { inputResponses: yes, requestState: 'x.y' })).toMatchObject({ resultType: 'input_required' });
    // The state of that question, with other arguments: asked again.
    expect(await rawCall(s, { text: 'other' }, { inputResponses: yes, requestState: forged.requestState })).toMatchObject({ resultType: 'input_required' });
    expect(s.core.registry.store.usage(s.guardedId).callCount).toBe(0);
    // A fresh question answered for its own arguments runs, once.
    const asked = await rawCall(s, { text: 'a b' }, {});
    const ran = await rawCall(s, { text: 'a b' }, { inputResponses: yes, requestState: asked.requestState });
    expect(ran.isError).toBeFalsy();
    expect(s.core.registry.store.usage(s.guardedId).callCount).toBe(1);
    // The same answer again: asked again.
    expect(await rawCall(s, { text: 'a b' }, { inputResponses: yes, requestState: asked.requestState })).toMatchObject({ resultType: 'input_required' });
    expect(s.core.registry.store.usage(s.guardedId).callCount).toBe(1);
  });
});
