/**
 * Oversized tool outputs.
 *
 *   (a) storing a 200 MB output (TOOL_OUTPUT_BENCH_MB) in the handle store, from a string, vs
 *       fs.writeFile of the same bytes                                         — target 1.3
 *   (b) the same from a stream of 64 KiB chunks (as an HTTP body arrives)       — target 1.3
 *   (c) read-grep's Grep over it vs `grep -c` (rare pattern, ~100 lines)        — target 2
 *   (d) tokens a model receives for a 5 MB result: the oversized message vs inline (estimate)
 *   (e) a 1 GB HTTP response (TOOL_OUTPUT_HTTP_MB) streamed into the store through the HTTP tool:
 *       peak extra RSS vs the 64 MB target (the baseline column is the target)
 *
 * Medians of 5 runs after a warm-up; the files are in the page cache for both sides.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FullHttpSpecSchema } from '../shared/model/http-spec';
import { executeHttpTool } from '../electron/core/invoke/http/http-tool';
import { RateLimiter } from '../electron/core/invoke/http/rate-limit';
import { HttpTransport } from '../electron/core/invoke/http/transport';
import { isStoredOutputRef, type ResponseSpill } from '../electron/core/invoke/stored-ref';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BufferSearcher } from '../electron/core/routing/buffer-search';
import { runGrepTool } from '../electron/core/tool-output/read-grep';
import { tooLargeMessage } from '../electron/core/tool-output/messages';
import { ToolOutputStore } from '../electron/core/tool-output/store';
import { estimateCounter, gptCounter } from '../electron/core/llm/tokens';
import { DEFAULT_POLICY } from '../electron/core/tool-output/types';
import { grepCount, result, timed, type BenchResult } from './harness';
import { payloadOf } from './route.bench';

const MB = 1024 * 1024;

export async function run(opts: { mb?: number; reps?: number } = {}): Promise<BenchResult[]> {
  const mb = opts.mb ?? Number(process.env.TOOL_OUTPUT_BENCH_MB ?? 200);
  const reps = opts.reps ?? Number(process.env.TOOL_OUTPUT_BENCH_REPS ?? 5);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-tool-output-bench-'));
  const store = new ToolOutputStore({ baseDir: () => dir, tokens: estimateCounter });
  const results: BenchResult[] = [];
  try {
    const payload = payloadOf(mb * MB);
    const bytes = Buffer.from(payload);
    const size = (bytes.length / MB).toFixed(0);
    const plain = path.join(dir, 'plain.txt');
    const putString = async () => {
      const o = await store.put('bench', payload, { toolName: 'bench', argsJson: '{}' });
      await store.delete(o.handle);
    };
    const putStream = async () => {
      async function* chunks() {
        for (let i = 0; i < bytes.length; i += 64 * 1024) yield bytes.subarray(i, i + 64 * 1024);
      }
      const o = await store.put('bench', chunks(), { toolName: 'bench', argsJson: '{}' });
      await store.delete(o.handle);
    };
    const writeFile = async () => {
      await fs.writeFile(plain, payload);
      await fs.rm(plain);
    };
    const base = await timed(reps, writeFile);
    results.push(result(`store a ${size} MB output (string) vs fs.writeFile`, 'ms', await timed(reps, putString), base, 1.3, 'ours also counts lines, characters and tokens and builds the line index'));
    results.push(result(`store a ${size} MB output (64 KiB chunks) vs fs.writeFile`, 'ms', await timed(reps, putStream), base, 1.3));

    const o = await store.put('bench', payload, { toolName: 'bench', argsJson: '{}' });
    await fs.writeFile(plain, payload);
    const searcher = new BufferSearcher();
    const ctx = { store, output: o, extract: '', policy: DEFAULT_POLICY, nonce: 'x', signal: new AbortController().signal, tokens: estimateCounter, searcher };
    const grepArgs = ['-c', '-F', 'NEEDLE', plain];
    let grepped: number;
    try {
      grepped = await grepCount(grepArgs);
    } catch (e) {
      results.push(result(`Grep over ${size} MB vs grep -c`, 'ms', NaN, NaN, 2, `grep is not available here: ${(e as Error).message}`));
      return results;
    }
    const ours = await runGrepTool(ctx, { file: o.handle, pattern: 'NEEDLE', regex: false, maxMatches: 500 });
    const found = Number(/^(\d+) matching lines/.exec(ours)?.[1] ?? 0);
    if (found !== Math.min(grepped, 500)) throw new Error(`Grep found ${found} lines, grep -c ${grepped}`);
    results.push(result(`Grep over ${size} MB vs grep -c`, 'ms', await timed(reps, () => runGrepTool(ctx, { file: o.handle, pattern: 'NEEDLE', regex: false, maxMatches: 500 })), await timed(reps, () => grepCount(grepArgs)), 2, `${grepped} matching lines`));

    const five = await store.put('bench', payload.slice(0, 5 * MB), { toolName: 'bench', argsJson: '{}' });
    const msgTokens = estimateCounter.count(tooLargeMessage(five, five.handle)).tokens;
    results.push(result('tokens the model receives for a 5 MB result: oversized message vs inline', 'tokens', msgTokens, five.tokens, undefined, `estimated at 4 bytes a token (${estimateCounter.name})`));
    results.push(await httpToStore(dir, Number(process.env.TOOL_OUTPUT_HTTP_MB ?? 1024)));
    return results;
  } finally {
    await store.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** A local server sends `mb` MiB of text; the HTTP tool spills it into the store; RSS is sampled meanwhile. */
async function httpToStore(dir: string, mb: number): Promise<BenchResult> {
  const chunk = Buffer.from(`${'0123456789abcdef'.repeat(63)}\n`.repeat(64)); // 64 KiB of 1 KiB lines
  const total = mb * 1024 * 1024;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) });
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const store = new ToolOutputStore({ baseDir: () => dir, tokens: gptCounter(false) });
  const spill: ResponseSpill = {
    thresholdBytes: 8 * 1024 * 1024,
    open: () => {
      const sink = store.beginSync('bench-http', { toolName: 'export', argsJson: '{}' });
      return { write: (c) => sink.write(c), finish: () => sink.finish(), discard: () => sink.discard() };
    },
  };
  const spec = FullHttpSpecSchema.parse({ method: 'GET', urlTemplate: `http://127.0.0.1:${port}/`, responseMode: 'text', limits: { maxSentBytes: 1024, maxResponseBytes: 1024, maxRetries: 0, maxRedirects: 0 } });
  // A saved tool may allow at most 256 MiB; the stream itself is what is measured here.
  spec.limits.maxResponseBytes = total + 1;
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const o = await executeHttpTool(spec, {}, { transport: new HttpTransport(), allowedHosts: [`127.0.0.1:${port}`], secrets: { resolve: () => '', values: () => [] }, redact: (t) => t, signal: new AbortController().signal, rateLimiter: new RateLimiter(), toolId: 'bench', spill });
    peak = Math.max(peak, process.memoryUsage().rss);
    if (!isStoredOutputRef(o.value) || o.value.$storedOutput.bytes !== total) throw new Error('the response was not stored whole');
  } finally {
    clearInterval(timer);
    await store.close();
    await new Promise<void>((r) => server.close(() => r()));
  }
  const extraMb = (peak - before) / (1024 * 1024);
  return result(`a ${mb} MB HTTP response streamed into the store: peak extra RSS vs the 64 MB target`, 'MB', extraMb, 64, 1, 'the ratio is our peak over the target; the body is written chunk by chunk as it arrives');
}
