/**
 * Arguments mirrored into Mcp-Param-* headers (MCP 2026-07-28): which annotations are valid, how
 * values are written, and, against the v2 SDK's own 2026 server over HTTP (which refuses a call
 * whose headers do not match its body), that a call carries them, that a tool with a broken
 * annotation is not brought in (saying why), and that a tool whose annotations changed since its
 * list was read is called again with the new ones.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTempDirs } from '../testing/temp-dir';
import { addServer, call, openCore, serverView, slugs, until } from './testing/harness';
import { headerValue, paramHeaders, scanParamHeaders } from './param-headers';
import { invalidParamHeader } from './tool-sync';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('scanParamHeaders', () => {
  it('finds the annotated properties, nested ones through properties too', () => {
    const scan = scanParamHeaders(
      obj({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        opts: obj({ limit: { type: 'integer', 'x-mcp-header': 'Limit' }, dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } }),
        query: { type: 'string' },
      }),
    );
    expect(scan).toEqual({
      ok: true,
      headers: [
        { path: ['region'], name: 'Region' },
        { path: ['opts', 'limit'], name: 'Limit' },
        { path: ['opts', 'dry'], name: 'Dry-Run' },
      ],
    });
    expect(scanParamHeaders(obj({ q: { type: 'string' } }))).toEqual({ ok: true, headers: [] });
  });

  it.each([
    ['empty', obj({ v: { type: 'string', 'x-mcp-header': '' } }), /empty/],
    ['not a string', obj({ v: { type: 'string', 'x-mcp-header': 7 } }), /empty or not a string/],
    ['a space', obj({ v: { type: 'string', 'x-mcp-header': 'My Region' } }), /not an HTTP header name/],
    ['a colon', obj({ v: { type: 'string', 'x-mcp-header': 'Region:Primary' } }), /not an HTTP header name/],
    ['a letter outside ASCII', obj({ v: { type: 'string', 'x-mcp-header': 'Région' } }), /not an HTTP header name/],
    ['a control character', obj({ v: { type: 'string', 'x-mcp-header': 'Region\t1' } }), /not an HTTP header name/],
    ['an object', obj({ v: { type: 'object', 'x-mcp-header': 'Data' } }), /of type object/],
    ['an array', obj({ v: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Items' } }), /of type array/],
    ['null', obj({ v: { type: 'null', 'x-mcp-header': 'Nil' } }), /of type null/],
    ['a number', obj({ v: { type: 'number', 'x-mcp-header': 'Score' } }), /of type number.*a number may not/],
    ['no type', obj({ v: { enum: ['a'], 'x-mcp-header': 'E' } }), /of type \(none\)/],
    ['the same name twice', obj({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'Region' } }), /repeats 'Region'/],
    ['names that differ in case only', obj({ a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } }), /repeats 'MyField'/],
    ['the root', { type: 'object', 'x-mcp-header': 'Root' }, /the schema root/],
    ['under items', obj({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }), /reached from the root through "properties" alone/],
    ['under oneOf', { type: 'object', oneOf: [obj({ v: { type: 'string', 'x-mcp-header': 'V' } })] }, /through "properties" alone/],
    ['under $defs', { type: 'object', $defs: { v: { type: 'string', 'x-mcp-header': 'V' } }, properties: { v: { $ref: '#/$defs/v' } } }, /through "properties" alone/],
    ['under additionalProperties', { type: 'object', additionalProperties: { type: 'string', 'x-mcp-header': 'V' } }, /through "properties" alone/],
  ])('refuses an annotation with %s', (_what, schema, reason) => {
    const scan = scanParamHeaders(schema);
    expect(scan.ok).toBe(false);
    expect(!scan.ok && scan.reason).toMatch(reason);
  });
});

describe('header values', () => {
  it('writes a plain ASCII text as it is and anything else in the Base64 form (the spec’s examples)', () => {
    expect(headerValue('us-west1')).toBe('us-west1');
    expect(headerValue('us west 1')).toBe('us west 1');
    expect(headerValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(headerValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(headerValue('line1\nline2')).toBe('=?base64?bGluZTEKbGluZTI=?=');
    expect(headerValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
    expect(headerValue('\tindented')).toBe(`=?base64?${Buffer.from('\tindented').toString('base64')}?=`);
    expect(headerValue('')).toBe('=?base64??=');
  });

  it('mirrors strings, integers and booleans; leaves out what is null, absent or not a whole number', () => {
    const scan = scanParamHeaders(
      obj({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        priority: { type: 'integer', 'x-mcp-header': 'Priority' },
        verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
        debug: { type: 'boolean', 'x-mcp-header': 'Debug' },
        opts: obj({ limit: { type: 'integer', 'x-mcp-header': 'Limit' } }),
      }),
    );
    if (!scan.ok) throw new Error(scan.reason);
    expect(paramHeaders(scan.headers, { region: 'eu', priority: -7, verbose: null, debug: false, opts: { limit: 2 ** 60 }, query: 'x' })).toEqual({
      'Mcp-Param-Region': 'eu',
      'Mcp-Param-Priority': '-7',
      'Mcp-Param-Debug': 'false',
    });
  });
});

/** A 2026 server of the v2 SDK over HTTP, whose tools `make` registers afresh for each request (it holds no session). */
async function modernHttp(make: (server: McpServer) => void): Promise<{ url: string; headers: Record<string, string>[] }> {
  const headers: Record<string, string>[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'mirror-test', version: '1.0.0' });
    make(server);
    return server;
  });
  const node = toNodeHandler(handler);
  const server = http.createServer((req, res) => {
    headers.push(Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.startsWith('mcp-param-')).map(([k, v]) => [k, String(v)])));
    void node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    await handler.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, headers };
}

async function core() {
  const c = await openCore(await tempDir());
  closers.push(() => c.close());
  return c;
}

const echo = async (args: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: JSON.stringify(args) }] });

describe('a 2026 server over HTTP whose tools ask for headers', () => {
  it('gets each call’s annotated arguments as headers, and a tool with a broken annotation is left out, saying why', async () => {
    const s = await modernHttp((server) => {
      server.registerTool('where', { inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), n: z.number().int().optional().meta({ 'x-mcp-header': 'N' }), q: z.string() }) }, echo);
      server.registerTool('scored', { inputSchema: z.object({ score: z.number().meta({ 'x-mcp-header': 'Score' }) }) }, echo);
    });
    const c = await core();
    const v = await addServer(c, { name: 'Mirror', connection: { transport: 'http', url: s.url } });
    expect(v.status.state, v.status.reason).toBe('connected');
    expect(slugs(c, v.bundleId)).toEqual(['where']);
    const scored = scanParamHeaders(obj({ score: { type: 'number', 'x-mcp-header': 'Score' } }));
    expect(v.status.skipped).toEqual([{ name: 'scored', reason: invalidParamHeader(scored.ok ? '' : scored.reason) }]);
    expect(v.status.skipped[0]!.reason).toContain('of type number');

    // The server refuses a call whose headers do not match its body: this one runs.
    expect(await call(c, v.bundleId, 'where', { region: 'Zürich', n: 3, q: 'x' })).toMatchObject({ ok: true, value: JSON.stringify({ region: 'Zürich', n: 3, q: 'x' }) });
    expect(s.headers.at(-1)).toEqual({ 'mcp-param-region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=`, 'mcp-param-n': '3' });
    expect(await call(c, v.bundleId, 'where', { region: 'eu', q: 'y' })).toMatchObject({ ok: true });
    expect(s.headers.at(-1)).toEqual({ 'mcp-param-region': 'eu' });
  });

  it('a tool that asks for a header since its list was read: the call is refused, the list read again, and the call made once more with it', async () => {
    let annotated = false;
    const s = await modernHttp((server) => {
      const region = annotated ? z.string().meta({ 'x-mcp-header': 'Region' }) : z.string();
      server.registerTool('where', { inputSchema: z.object({ region }) }, echo);
    });
    const c = await core();
    const v = await addServer(c, { name: 'Changing', connection: { transport: 'http', url: s.url } });
    expect(await call(c, v.bundleId, 'where', { region: 'eu' })).toMatchObject({ ok: true });
    expect(s.headers.at(-1)).toEqual({});

    annotated = true;
    expect(await call(c, v.bundleId, 'where', { region: 'eu' })).toMatchObject({ ok: true, value: JSON.stringify({ region: 'eu' }) });
    expect(s.headers.at(-1)).toEqual({ 'mcp-param-region': 'eu' });
    // The new definition is a new version; the call of version 1 ran as version 2 asks.
    await until(() => c.registry.store.toolsOf(v.bundleId).length === 2, 'the changed tool stored');
    const log = await c.call('mcpServers.log', { bundleId: v.bundleId });
    expect(log.ok && log.value.some((l) => l.text.includes('the server refused its headers'))).toBe(true);
    expect((await serverView(c, v.bundleId)).status.skipped).toEqual([]);
  });
});
