/**
 * Invocation workloads:
 * - a local echo tool through the whole dispatcher (args and output validated, a record
 *   logged, usage counted) vs the same tool called through the MCP SDK's in-memory client
 *   and server — the path other apps take; also the direct function call, p50/p99 over 10k
 *   invocations and the event-loop lag meanwhile; and the same echo declaring its signal
 *   parameter, which costs an AbortSignal per call;
 * - an HTTP tool against a local server vs a raw fetch of the same request.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { createCore, type Core } from '../electron/core/app';
import { median, result, type BenchResult } from './harness';

const RESOURCES = path.resolve(import.meta.dirname, '..', 'resources');
const echoFn = async (args: { text: string }) => ({ echo: args.text });

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timed(n: number, op: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op();
    out.push(performance.now() - t0);
  }
  return out;
}

async function core(): Promise<{ core: Core; dir: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-bench-invoke-'));
  return { core: await createCore({ dataDir: dir, resourcesDir: RESOURCES, host: 'headless', watch: false }), dir };
}

async function localVsMcp(): Promise<BenchResult[]> {
  const { core: c, dir } = await core();
  // The echo functions join the built-ins for this run only. One declares the third
  // parameter (the signal), so the dispatcher makes an AbortSignal for each of its calls;
  // the other reads the signal (if ever) from its context, where it is made on first read.
  c.functions.register('bench.echo', (_ctx, args) => echoFn(args as { text: string }));
  c.functions.register('bench.echo-signal', (_ctx, args, signal) => (signal.aborted ? Promise.reject(signal.reason) : echoFn(args as { text: string })));
  const bundleId = uuidv7();
  await c.registry.store.putBundle(bundleId, { slug: 'bench', displayName: 'Bench', description: '', isEnabled: true });
  const argSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };
  const outputSchema = { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] };
  for (const [slug, functionId] of [['echo', 'bench.echo'], ['echo-signal', 'bench.echo-signal']] as const) {
    await c.registry.store.putTool(bundleId, slug, '1', { displayName: slug, description: '', tags: [], type: 'local', argSchema, outputSchema, local: { functionId }, isEnabled: true });
  }
  const ours = () => c.dispatcher.invoke({ bundleId, slug: 'echo', version: '1', args: { text: 'hello' }, source: 'api' });
  const oursSignal = () => c.dispatcher.invoke({ bundleId, slug: 'echo-signal', version: '1', args: { text: 'hello' }, source: 'api' });
  for (const op of [ours, oursSignal]) {
    const check = await op();
    if (!check.ok) throw new Error(`bench tool failed: ${check.error.message}`);
  }

  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() }, outputSchema: { echo: z.string() } }, async ({ text }) => {
    const out = await echoFn({ text });
    return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientSide);
  const mcp = () => client.callTool({ name: 'echo', arguments: { text: 'hello' } });

  const N = 10_000;
  const ROUNDS = 5;
  await timed(1000, ours);
  await timed(1000, oursSignal);
  await timed(1000, mcp);
  // Interleaved rounds, so a slower stretch of the machine (or the log's batched writes)
  // falls on every side alike.
  const oursMs: number[] = [];
  const signalMs: number[] = [];
  const mcpMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    oursMs.push(...(await timed(N / ROUNDS, ours)));
    signalMs.push(...(await timed(N / ROUNDS, oursSignal)));
    mcpMs.push(...(await timed(N / ROUNDS, mcp)));
  }
  const directMs = await timed(N, () => echoFn({ text: 'hello' }));
  // Event-loop lag: the same calls, each arriving as its own task (as calls from a window
  // do), with the loop's delay sampled meanwhile.
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  for (let i = 0; i < N; i++) {
    await ours();
    await new Promise((r) => setImmediate(r));
  }
  lag.disable();
  await client.close();
  await c.close();
  await fs.rm(dir, { recursive: true, force: true });
  const us = (ms: number) => (ms * 1000).toFixed(1);
  const mcpNote = `MCP p50 ${us(median(mcpMs))} us, p99 ${us(percentile(mcpMs, 99))} us`;
  return [
    result('local echo tool through the dispatcher vs the MCP SDK in-memory client/server', 'ms/call', median(oursMs), median(mcpMs), 0.3,
      `${N} calls each in ${ROUNDS} interleaved rounds; ours p50 ${us(median(oursMs))} us, p99 ${us(percentile(oursMs, 99))} us; ${mcpNote}; ` +
        `direct call p50 ${us(median(directMs))} us; event-loop delay over ${N} calls arriving as separate tasks: p99 ${(lag.percentile(99) / 1e6).toFixed(2)} ms, max ${(lag.max / 1e6).toFixed(2)} ms`),
    // No target: this row shows what making an AbortSignal per call costs (most of the difference).
    result('the same, with an echo that takes its AbortSignal (one made per call)', 'ms/call', median(signalMs), median(mcpMs), undefined,
      `${N} calls; ours p50 ${us(median(signalMs))} us, p99 ${us(percentile(signalMs, 99))} us; ${mcpNote}`),
  ];
}

async function httpVsFetch(): Promise<BenchResult> {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, ok: true }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const { core: c, dir } = await core();
  await c.settings.set({ allowedHosts: [`127.0.0.1:${port}`] });
  const bundleId = uuidv7();
  await c.registry.store.putBundle(bundleId, { slug: 'bench', displayName: 'Bench', description: '', isEnabled: true });
  await c.registry.store.putTool(bundleId, 'item', '1', {
    displayName: 'Item', description: '', tags: [], type: 'http',
    argSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    outputSchema: { type: 'object' },
    http: { method: 'GET', urlTemplate: `http://127.0.0.1:${port}/items/\${id}` },
    isEnabled: true,
  });
  const ours = () => c.dispatcher.invoke({ bundleId, slug: 'item', version: '1', args: { id: 'a1' }, source: 'api' });
  const check = await ours();
  if (!check.ok) throw new Error(`bench http tool failed: ${check.error.message}`);
  const raw = async () => (await fetch(`http://127.0.0.1:${port}/items/a1`)).json();
  const oursMs: number[] = [];
  const rawMs: number[] = [];
  for (let round = 0; round < 5; round++) {
    oursMs.push(median(await timed(200, ours)));
    rawMs.push(median(await timed(200, raw)));
  }
  await c.close();
  server.close();
  await fs.rm(dir, { recursive: true, force: true });
  return result('HTTP tool against a local server vs a raw fetch of the same request', 'ms/call', median(oursMs), median(rawMs), 1.3, '1000 calls each, 5 interleaved rounds');
}

export async function run(): Promise<BenchResult[]> {
  return [...(await localVsMcp()), await httpVsFetch()];
}
