/**
 * Memory and event-loop lag of the HTTP transport under decompression bombs: eight parallel
 * calls, each answered by a double-gzip body that inflates to 256 MiB (the largest
 * limits.maxResponseBytes), then one such call alone.
 *
 * Ours: the transport with its shared response budget. Baseline: the same transport with the
 * budget lifted (what every call reading its full limit at once costs). Figures: the growth
 * of the resident set over the run's start (peak, sampled every 10 ms, and after the calls
 * ended), and the longest event-loop delay seen while reading (perf_hooks).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { ResponseBudget } from '../electron/core/invoke/http/budget';
import { HttpTransport } from '../electron/core/invoke/http/transport';
import { result, type BenchResult } from './harness';

const MiB = 1024 * 1024;
const INFLATED = 256 * MiB;
const PARALLEL = 8;

async function doubleGzipBomb(size: number): Promise<Buffer> {
  const z = zlib.createGzip({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => z.on('end', r));
  const chunk = Buffer.alloc(MiB);
  for (let n = 0; n < size; n += MiB) if (!z.write(chunk)) await new Promise((r) => z.once('drain', r));
  z.end();
  await done;
  return zlib.gzipSync(Buffer.concat(out), { level: 9 });
}

interface Phase {
  peakRssMiB: number;
  afterRssMiB: number;
  maxLagMs: number;
  ok: number;
  refused: number;
}

async function phase(t: HttpTransport, url: string, calls: number): Promise<Phase> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const start = process.memoryUsage.rss();
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  let ok = 0;
  let refused = 0;
  await Promise.all(
    Array.from({ length: calls }, async () => {
      try {
        const r = await t.send({ method: 'GET', url, headers: {}, timeoutMs: 120_000, maxRedirects: 0, maxResponseBytes: INFLATED, signal: new AbortController().signal }, [url.replace(/^http:\/\/|\/$/g, '')]);
        if (r.body.byteLength === INFLATED) ok++;
      } catch {
        refused++;
      }
    }),
  );
  lag.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  gc?.();
  await new Promise((r) => setTimeout(r, 200));
  return { peakRssMiB: (peak - start) / MiB, afterRssMiB: (process.memoryUsage.rss() - start) / MiB, maxLagMs: lag.max / 1e6, ok, refused };
}

export async function run(): Promise<BenchResult[]> {
  const bomb = await doubleGzipBomb(INFLATED);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip, gzip', 'content-length': String(bomb.length) });
    res.end(bomb);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    const ours = new HttpTransport();
    const baseline = new HttpTransport({ responseBudget: new ResponseBudget(Number.POSITIVE_INFINITY) });
    const oursParallel = await phase(ours, url, PARALLEL);
    const oursSingle = await phase(ours, url, 1);
    const baseParallel = await phase(baseline, url, PARALLEL);
    const baseSingle = await phase(baseline, url, 1);
    await Promise.all([ours.close(), baseline.close()]);
    const note = (o: Phase, b: Phase) => `ours ${o.ok} read whole, ${o.refused} refused; baseline ${b.ok} read whole, ${b.refused} refused`;
    return [
      result(`http-memory: ${PARALLEL} parallel 256 MiB double-gzip bombs, peak RSS growth`, 'MiB', oursParallel.peakRssMiB, baseParallel.peakRssMiB, 0.5, note(oursParallel, baseParallel)),
      result(`http-memory: ${PARALLEL} parallel bombs, RSS growth after the calls ended`, 'MiB', Math.max(1, oursParallel.afterRssMiB), Math.max(1, baseParallel.afterRssMiB), undefined, 'each over the RSS at its own start; memory the allocator kept'),
      result(`http-memory: ${PARALLEL} parallel bombs, longest event-loop delay while reading`, 'ms', oursParallel.maxLagMs, baseParallel.maxLagMs, 1),
      result('http-memory: one 256 MiB double-gzip read, longest event-loop delay', 'ms', oursSingle.maxLagMs, baseSingle.maxLagMs, undefined, `${note(oursSingle, baseSingle)} (the same path: the budget does not apply to one call)`),
    ];
  } finally {
    server.close();
  }
}
