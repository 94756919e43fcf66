/**
 * Oversized outputs through the whole core and the scripted model server: a model's call
 * returns 5 MB, the gate stores it behind a handle, the model is told the oversized message and
 * offered tool_output, extracts with read-grep, and the store's folders go with the session.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { v7 } from 'uuid';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { httpToolBody } from '../bundles/testing/fixtures';
import { useAgentCore } from '../testing/agent-core';
import { useTempDirs } from '../testing/temp-dir';
import { nonceOf } from '../testing/tool-output-kit';
import type { RecordedRequest } from '../testing/scripted-model-server';
import { tooLargeMessage } from './messages';

const start = useAgentCore();
const tempDir = useTempDirs();

type Msg = { role: string; content: unknown; tool_calls?: unknown };
const msgs = (r: RecordedRequest) => (r.body.messages ?? []) as Msg[];
const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const lastTool = (r: RecordedRequest) => String(msgs(r).filter((m) => m.role === 'tool').at(-1)?.content ?? '');
const isMain = (r: RecordedRequest) => r.api === 'openai' && !String(msgs(r)[0]?.content ?? '').startsWith('You are an internal extraction agent');

function bigLog(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 60_000; i++) lines.push(i === 41_234 ? 'ERROR order 77 failed: stock exhausted' : `INFO line ${i} all is well, nothing to see here ${'.'.repeat(40)}`);
  return lines.join('\n') + '\n';
}

async function setup() {
  const t = await start();
  const base = await tempDir();
  await t.call('settings.set', { toolOutputs: { ...(await t.call('settings.get', {})).toolOutputs, baseDir: base } });
  await fs.writeFile(path.join(t.core.workspaceDir(), 'big.log'), bigLog());
  const created = await t.call('conversations.create', { title: 'logs' });
  const conv = await t.call('conversations.setModel', { id: created.id, model: t.model });
  return { ...t, base, conv };
}

describe('oversized tool outputs in a model turn', () => {
  it('stores a 5 MB result behind a handle, tells the model §2a, and extracts with read-grep', { timeout: 120_000 }, async () => {
    const { server, send, messages, base, conv, core, call } = await setup();
    let handle = '';
    server.script([
      { kind: 'tools', calls: [{ name: 'readfile', arguments: { path: 'big.log', maxBytes: 10_485_760 } }] },
      (req) => {
        handle = /handle = "([0-9a-f-]{36})"/.exec(lastTool(req))![1]!;
        return { kind: 'tools', calls: [{ name: 'tool_output', arguments: { handle, extract: 'the ERROR line and the order it names' } }] };
      },
      // The read-grep sub-agent: Grep, then its final report.
      () => ({ kind: 'tools', calls: [{ name: 'Grep', arguments: { file: handle, pattern: 'ERROR' } }] }),
      (req) => ({ kind: 'text', text: `<ai-agent-${nonceOf(req)}-FINAL format="text">line 41234: ERROR order 77 failed: stock exhausted</ai-agent-${nonceOf(req)}-FINAL>` }),
      { kind: 'text', text: 'Order 77 failed: stock exhausted.' },
    ]);
    await send(conv.id, 'what failed in big.log?');

    const main = server.requests.filter(isMain);
    expect(main).toHaveLength(3);
    // Step 1: the store is empty, tool_output is not offered.
    expect(toolNames(main[0]!)).not.toContain('tool_output');
    // Step 2: the model got the exact message instead of 5 MB, and tool_output is listed.
    const rows = await messages(conv.id);
    const readCard = rows.filter((r) => r.tool?.slug === 'readfile').at(-1)!.tool!;
    expect(readCard.stored).toMatchObject({ handle, choice: 'handle', reason: 'bytes', lines: 60_000, tokensExact: false });
    expect(lastTool(main[1]!)).toBe(tooLargeMessage(readCard.stored!, handle));
    expect(toolNames(main[1]!)).toContain('tool_output');
    expect(JSON.stringify(msgs(main[1]!)).length).toBeLessThan(20_000);
    // The card keeps a preview, not the 5 MB.
    expect(String(readCard.value).length).toBeLessThanOrEqual(2000);
    // The stored bytes are exactly the file's.
    const file = path.join(base, `toolsmith-${conv.id}`, handle);
    expect((await fs.readFile(file)).equals(await fs.readFile(path.join(core.workspaceDir(), 'big.log')))).toBe(true);
    // Step 3: the extraction's answer, in the exact success text.
    expect(lastTool(main[2]!)).toBe(`ABSTRACT FROM TOOL OUTPUT readfile WITH HANDLE ${handle}, STRATEGY:read-grep:\n\nline 41234: ERROR order 77 failed: stock exhausted`);
    const extraction = rows.filter((r) => r.tool?.slug === 'tool_output').at(-1)!.tool!.extraction!;
    expect(extraction).toMatchObject({ handle, requested: 'auto', used: 'read-grep', modelCalls: 2, notFound: false });
    expect(rows.at(-1)!.text).toBe('Order 77 failed: stock exhausted.');

    // Inspect → Stored outputs lists it and reads its lines.
    const list = await call('toolOutputs.list', { conversationId: conv.id });
    expect(list.map((o) => [o.handle, o.toolName, o.lines])).toEqual([[handle, 'readfile', 60_000]]);
    const read = await call('toolOutputs.read', { handle, startLine: 41_233, endLine: 41_235 });
    expect(read.text.split('\n')[1]).toBe('ERROR order 77 failed: stock exhausted');

    // The session ends with the conversation: its folder goes.
    await call('conversations.delete', { id: conv.id });
    await expect.poll(() => fs.stat(path.join(base, `toolsmith-${conv.id}`)).then(() => 'there', () => 'gone')).toBe('gone');
    expect(await call('toolOutputs.list', {})).toEqual([]);
  });

  it('a + run\'s oversized result is gated too, and the folders go when the app closes', async () => {
    const { call, core, base, conv } = await setup();
    const tool = (await call('tools.search', { q: 'readfile' })).items[0]!.tool;
    const msg = await call('chat.runTool', { conversationId: conv.id, bundleId: tool.bundleId, slug: tool.slug, version: tool.version, args: { path: 'big.log', maxBytes: 10_485_760 } });
    expect(msg.tool!.stored).toMatchObject({ choice: 'handle', reason: 'bytes' });
    const handle = msg.tool!.stored!.handle!;
    await expect(fs.stat(path.join(base, `toolsmith-${conv.id}`, handle))).resolves.toBeTruthy();
    // A small result passes whole.
    await fs.writeFile(path.join(core.workspaceDir(), 'small.txt'), 'hello');
    const small = await call('chat.runTool', { conversationId: conv.id, bundleId: tool.bundleId, slug: tool.slug, version: tool.version, args: { path: 'small.txt' } });
    expect(small.tool!.stored).toBeUndefined();
    expect(small.tool!.valueTruncated).toBeUndefined();
    await core.close();
    expect((await fs.readdir(base)).filter((n) => n.startsWith('toolsmith-'))).toEqual([]);
  });

  it('the gate\'s choice changes on the card and is remembered for the tool', async () => {
    const { call, conv } = await setup();
    const tool = (await call('tools.search', { q: 'readfile' })).items[0]!.tool;
    const run = () => call('chat.runTool', { conversationId: conv.id, bundleId: tool.bundleId, slug: tool.slug, version: tool.version, args: { path: 'big.log', maxBytes: 10_485_760 } });
    const first = await run();
    const buffered = await call('toolOutputs.choose', { conversationId: conv.id, invocationId: first.tool!.invocationId, choice: 'buffer', remember: true });
    expect(buffered.tool!.manifest!.text).toMatch(/^\[tool routed\] readfile -> variable:readfile-output/);
    expect((await call('settings.get', {})).toolOutputs.perTool[tool.id]).toBe('buffer');
    // The next run follows the remembered choice: routed, nothing stored.
    const second = await run();
    expect(second.tool!.stored).toMatchObject({ choice: 'buffer' });
    expect(second.tool!.manifest).toBeDefined();
    const dropped = await call('toolOutputs.choose', { conversationId: conv.id, invocationId: first.tool!.invocationId, choice: 'drop' });
    expect(dropped.tool!.stored!.handle).toBeUndefined();
    await expect(call('toolOutputs.choose', { conversationId: conv.id, invocationId: first.tool!.invocationId, choice: 'inline' })).rejects.toThrow(/was not kept/);
    expect(await call('toolOutputs.list', { conversationId: conv.id })).toEqual([]);
  });

  it('passes a stored output by handle into writefile and into an HTTP body, never through the model', async () => {
    const { call, core, conv } = await setup();
    const readfile = (await call('tools.search', { q: 'readfile' })).items[0]!.tool;
    const run = await call('chat.runTool', { conversationId: conv.id, bundleId: readfile.bundleId, slug: 'readfile', version: readfile.version, args: { path: 'big.log', maxBytes: 10_485_760 } });
    const handle = run.tool!.stored!.handle!;
    const writefile = (await call('tools.search', { q: 'writefile' })).items.find((h) => h.tool.slug === 'writefile')!.tool;
    const wrote = await call('chat.runTool', { conversationId: conv.id, bundleId: writefile.bundleId, slug: 'writefile', version: writefile.version, args: { path: 'copy.log', content: { $handle: handle } } });
    expect(wrote.tool!.status).toBe('ok');
    expect((await fs.readFile(path.join(core.workspaceDir(), 'copy.log'))).equals(await fs.readFile(path.join(core.workspaceDir(), 'big.log')))).toBe(true);
    // The card keeps the reference as given, not 5 MB.
    expect(wrote.tool!.args).toEqual({ path: 'copy.log', content: { $handle: handle } });

    // Into an HTTP body: a local server counts the bytes it received.
    let received = 0;
    const server = http.createServer((req, res) => {
      req.on('data', (c: Buffer) => (received += c.length));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      await call('settings.set', { allowedHosts: [`127.0.0.1:${port}`] });
      const bundleId = v7();
      await call('bundles.put', { bundleId, body: { slug: 'upload', displayName: 'Upload', description: '', isEnabled: true } });
      await call('tools.put', {
        bundleId,
        slug: 'post',
        version: '1',
        body: httpToolBody({
          argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          outputSchema: {},
          http: { method: 'POST', urlTemplate: `http://127.0.0.1:${port}/upload`, body: { kind: 'text', template: '${text}', contentType: 'text/plain' }, limits: { maxSentBytes: 64 * 1024 * 1024, maxResponseBytes: 1 << 20, maxRetries: 0, maxRedirects: 0 } },
        }) as never,
      });
      const posted = await call('chat.runTool', { conversationId: conv.id, bundleId, slug: 'post', version: '1', args: { text: { $handle: handle } } });
      expect(posted.tool!.status).toBe('ok');
      expect(received).toBe((await fs.stat(path.join(core.workspaceDir(), 'big.log'))).size);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }

    // An unknown handle, and one of another conversation, are refused clearly.
    const other = await call('conversations.create', {});
    const refused = await call('chat.runTool', { conversationId: other.id, bundleId: writefile.bundleId, slug: 'writefile', version: writefile.version, args: { path: 'x.log', content: { $handle: handle } } });
    expect(refused.tool!.status).toBe('error');
    expect(refused.tool!.error!.message).toMatch(/no stored tool output has the handle/);
    await expect(fs.stat(path.join(core.workspaceDir(), 'x.log'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('an HTTP body too large for memory streams straight into the store, byte for byte', { timeout: 120_000 }, async () => {
    const { call, base, conv } = await setup();
    // 20 MB of text, sent in 64 KiB pieces, each line numbered.
    const line = (i: number) => `row ${i} ${'x'.repeat(60)}\n`;
    const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => line(i)).join(''));
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      let i = 0;
      const pump = () => {
        while (i < body.length) {
          const ok = res.write(body.subarray(i, i + 65_536));
          i += 65_536;
          if (!ok) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      await call('settings.set', { allowedHosts: [`127.0.0.1:${port}`] });
      const bundleId = v7();
      await call('bundles.put', { bundleId, body: { slug: 'dump', displayName: 'Dump', description: '', isEnabled: true } });
      await call('tools.put', {
        bundleId,
        slug: 'export',
        version: '1',
        body: httpToolBody({
          argSchema: { type: 'object', properties: {} },
          outputSchema: { type: 'string' },
          http: { method: 'GET', urlTemplate: `http://127.0.0.1:${port}/export`, responseMode: 'text', limits: { maxSentBytes: 1 << 20, maxResponseBytes: 64 * 1024 * 1024, maxRetries: 0, maxRedirects: 0 } },
        }) as never,
      });
      const m = await call('chat.runTool', { conversationId: conv.id, bundleId, slug: 'export', version: '1', args: {} });
      expect(m.tool!.status).toBe('ok');
      expect(m.tool!.stored).toMatchObject({ choice: 'handle', reason: 'bytes', bytes: body.length, lines: 300_000 });
      expect(String(m.tool!.value).startsWith('row 0 xxx')).toBe(true);
      const file = path.join(base, `toolsmith-${conv.id}`, m.tool!.stored!.handle!);
      expect((await fs.readFile(file)).equals(body)).toBe(true);
      const list = await call('toolOutputs.list', { conversationId: conv.id });
      expect(list.map((o) => o.bytes)).toEqual([body.length]);
      // Routed elsewhere (output=), the body is the value routed, never a stored reference.
      const routed = await call('chat.runTool', { conversationId: conv.id, bundleId, slug: 'export', version: '1', args: {}, output: 'variable:dump' });
      expect(routed.tool!.manifest!.text).toBe(`[tool routed] export -> variable:dump (total ${body.length.toLocaleString('en-US')} chars)`);
      const page = await call('buffers.read', { ownerId: conv.id, name: 'dump', startLine: 299_999, endLine: 300_000 });
      expect(page.text).toBe(line(299_998) + line(299_999));
      expect((await call('toolOutputs.list', { conversationId: conv.id })).length).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
