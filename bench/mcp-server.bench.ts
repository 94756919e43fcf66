/**
 * The registry served over MCP: a call of a local echo tool through our MCP server (the SDK
 * client over its in-memory transport, our server, the dispatcher with argument and output
 * validation, the log, usage metrics and the oversized-output gate) vs the SDK's own McpServer
 * with the same function, over the same transport, both on the v2 SDK our server is built on
 * (a 2025-11-25 connection: the in-memory transport has no 2026 era). Goal: <= 1.2x.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { createCore } from '../electron/core/app';
import { median, result, type BenchResult } from './harness';

const RESOURCES = path.resolve(import.meta.dirname, '..', 'resources');
const echoFn = async (args: { text: string }) => ({ echo: args.text });

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function timedCalls(n: number, op: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op();
    out.push(performance.now() - t0);
  }
  return out;
}

async function connected(server: { connect(t: InMemoryTransport): Promise<void> }): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

export async function run(): Promise<BenchResult[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-bench-mcp-server-'));
  const core = await createCore({ dataDir: dir, resourcesDir: RESOURCES, host: 'headless', watch: false });
  core.functions.register('bench.echo', (_ctx, args) => echoFn(args as { text: string }));
  const bundleId = uuidv7();
  await core.registry.store.putBundle(bundleId, { slug: 'bench', displayName: 'Bench', description: '', isEnabled: true });
  const argSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };
  const outputSchema = { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] };
  await core.registry.store.putTool(bundleId, 'echo', '1', { displayName: 'echo', description: '', tags: [], type: 'local', argSchema, outputSchema, local: { functionId: 'bench.echo' }, isEnabled: true });
  await core.settings.set({ mcpServer: { ...core.settings.get().mcpServer, enabled: true, bundleIds: [bundleId] }, toolOutputs: { ...core.settings.get().toolOutputs, baseDir: dir } });

  const conn = core.mcpServer.createServer();
  const ours = await connected(conn.server);
  const oursCall = () => ours.callTool({ name: 'echo', arguments: { text: 'hello' } });
  const check = (await oursCall()) as { isError?: boolean; structuredContent?: unknown };
  if (check.isError || (check.structuredContent as { echo?: string })?.echo !== 'hello') throw new Error(`bench tool failed: ${JSON.stringify(check)}`);

  const sdkServer = new McpServer({ name: 'bench', version: '1.0.0' });
  sdkServer.registerTool('echo', { inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ echo: z.string() }) }, async ({ text }) => {
    const out = await echoFn({ text });
    return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
  });
  const sdk = await connected(sdkServer);
  const sdkCall = () => sdk.callTool({ name: 'echo', arguments: { text: 'hello' } });

  const N = 5000;
  const ROUNDS = 10;
  // Warm both paths until the JIT has settled (ours is the longer one to optimise).
  for (let i = 0; i < 3; i++) {
    await timedCalls(1000, oursCall);
    await timedCalls(1000, sdkCall);
  }
  // Interleaved rounds, so a slower stretch of the machine falls on both sides alike. Each
  // round starts from a collected heap: otherwise whichever side runs while the old generation
  // grows into fresh pages pays for the page faults (on a VM, most of a call's time).
  const oursMs: number[] = [];
  const sdkMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    gc();
    oursMs.push(...(await timedCalls(N / ROUNDS, oursCall)));
    gc();
    sdkMs.push(...(await timedCalls(N / ROUNDS, sdkCall)));
  }
  await ours.close();
  await sdk.close();
  await conn.close();
  await core.close();
  await fs.rm(dir, { recursive: true, force: true });
  const us = (ms: number) => (ms * 1000).toFixed(1);
  return [
    result('a tool call through our MCP server vs the SDK’s own McpServer with the same function (in-memory transport)', 'ms/call', median(oursMs), median(sdkMs), 1.2,
      `${N} calls each in ${ROUNDS} interleaved rounds; ours p50 ${us(median(oursMs))} us; SDK McpServer p50 ${us(median(sdkMs))} us`),
  ];
}
