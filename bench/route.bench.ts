/**
 * Output routing workloads, on a 100 MB payload (ROUTE_BENCH_MB to change it):
 *
 *   (a) routing to `file:` — writeWorkspaceFile (what the router calls for `output=file:`)
 *       with write-mode replace (temp file, fsync, rename) and new (temp file, fsync,
 *       exclusive link), vs fs.writeFile of the same string                     — target 1.3
 *   (b) routing to a buffer — the peak extra memory while the buffer store writes the
 *       payload (encoding, index, sidecar), vs the payload's own size           — target 2
 *
 * Memory is sampled every millisecond (and around the write) as heapUsed + external
 * (external includes every Buffer's bytes), after a forced GC, minus the same figure just
 * before the write: that is the memory the write itself allocates, with the payload string
 * already held by the caller. RSS is reported beside it; it is noisier (pages the allocator
 * keeps after a GC stay counted), so it is not the ratio.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileBufferStore } from '../electron/core/routing/buffer-store';
import { writeWorkspaceFile } from '../electron/core/routing/file-writer';
import { median, result, type BenchResult } from './harness';

const MB = 1024 * 1024;

/** Lines of mixed text (a few multi-byte characters) up to `bytes` UTF-8 bytes. */
export function payloadOf(bytes: number): string {
  const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau'.split(' ');
  const lines: string[] = [];
  let total = 0;
  for (let i = 0; total < bytes; i++) {
    const line = `${i}: ${words[i % 19]} ${words[(i * 7) % 19]} lorem ipsum dolor sit amet${i % 20_011 === 0 ? ' NEEDLE' : ''}${i % 997 === 0 ? ' café' : ''} ${words[(i * 3) % 19]}\n`;
    lines.push(line);
    total += Buffer.byteLength(line);
  }
  return lines.join('');
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Medians of `ours` and `base` run in turn; `after` (untimed) cleans up after each run of either. */
async function timeAlternating(n: number, ours: () => Promise<unknown>, base: () => Promise<unknown>, after: () => Promise<unknown>): Promise<{ ours: number; base: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i <= n; i++) {
    gc();
    let t0 = performance.now();
    await base();
    if (i > 0) b.push(performance.now() - t0);
    await after();
    gc();
    t0 = performance.now();
    await ours();
    if (i > 0) a.push(performance.now() - t0);
    await after();
  }
  return { ours: median(a), base: median(b) };
}

async function toFile(dir: string, payload: string, reps: number): Promise<BenchResult[]> {
  const ws = path.join(dir, 'ws');
  await fs.mkdir(ws, { recursive: true });
  const plain = path.join(ws, 'plain.txt');
  const mb = (Buffer.byteLength(payload) / MB).toFixed(0);
  // Every write makes a new file: the files written are removed after each run (untimed).
  const clean = () => Promise.all([plain, path.join(ws, 'routed/out.txt'), path.join(ws, 'fresh/out-2.md')].map((f) => fs.rm(f, { force: true })));
  const replace = await timeAlternating(reps, () => writeWorkspaceFile(ws, 'routed/out.txt', payload, 'replace'), () => fs.writeFile(plain, payload), clean);
  // out.md exists, so each run takes out-2.md.
  await writeWorkspaceFile(ws, 'fresh/out.md', 'taken', 'replace');
  const fresh = await timeAlternating(
    reps,
    async () => {
      const r = await writeWorkspaceFile(ws, 'fresh/out.md', payload, 'new');
      if (r.path !== 'fresh/out-2.md') throw new Error(`expected fresh/out-2.md, wrote ${r.path}`);
    },
    () => fs.writeFile(plain, payload),
    clean,
  );
  return [
    result(`route ${mb} MB to file: (write-mode=replace) vs fs.writeFile`, 'ms', replace.ours, replace.base, 1.3, 'ours: temp file, fsync, atomic rename; fs.writeFile neither fsyncs nor is atomic'),
    result(`route ${mb} MB to file: (write-mode=new) vs fs.writeFile`, 'ms', fresh.ours, fresh.base, 1.3, 'ours: temp file, fsync, exclusive link to the first free numbered name'),
  ];
}

interface Mem {
  js: number;
  rss: number;
}
function mem(): Mem {
  const m = process.memoryUsage();
  return { js: m.heapUsed + m.external, rss: m.rss };
}

async function peakDuring(op: () => Promise<unknown>): Promise<Mem> {
  gc();
  const base = mem();
  let peak = { ...base };
  const sample = () => {
    const m = mem();
    peak = { js: Math.max(peak.js, m.js), rss: Math.max(peak.rss, m.rss) };
  };
  const timer = setInterval(sample, 1);
  try {
    await op();
  } finally {
    clearInterval(timer);
    sample();
  }
  return { js: peak.js - base.js, rss: peak.rss - base.rss };
}

async function toBuffer(dir: string, payload: string): Promise<BenchResult[]> {
  const store = new FileBufferStore({ dataDir: path.join(dir, 'data'), workspaceDir: path.join(dir, 'ws'), now: () => new Date() });
  const bytes = Buffer.byteLength(payload);
  try {
    await store.write('bench', 'warmup', payload.slice(0, 1_000_000), 'replace', 'bench');
    const replace = await peakDuring(() => store.write('bench', 'routed', payload, 'replace', 'bench'));
    const append = await peakDuring(() => store.write('bench', 'routed', payload, 'append', 'bench'));
    const plain = await peakDuring(() => fs.writeFile(path.join(dir, 'plain.txt'), payload));
    const mb = (bytes / MB).toFixed(0);
    const note = (m: Mem) => `rss grew ${(m.rss / MB).toFixed(1)} MB; fs.writeFile of the same string allocates ${(plain.js / MB).toFixed(1)} MB (rss ${(plain.rss / MB).toFixed(1)} MB)`;
    return [
      result(`route ${mb} MB to a buffer (replace): peak extra memory vs payload`, 'MB', replace.js / MB, bytes / MB, 2, note(replace)),
      result(`route ${mb} MB to a buffer (append to ${mb} MB): peak extra memory vs payload`, 'MB', append.js / MB, bytes / MB, 2, note(append)),
    ];
  } finally {
    await store.close();
  }
}

export async function run(opts: { mb?: number; reps?: number } = {}): Promise<BenchResult[]> {
  const mb = opts.mb ?? Number(process.env.ROUTE_BENCH_MB ?? 100);
  const reps = opts.reps ?? Number(process.env.ROUTE_BENCH_REPS ?? 5);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-route-bench-'));
  try {
    const payload = payloadOf(mb * MB);
    return [...(await toBuffer(dir, payload)), ...(await toFile(dir, payload, reps))];
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
