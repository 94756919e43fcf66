import { execFile } from 'node:child_process';

/** What every benchmark reports: our figure, a baseline measured in the same run, the ratio. */
export interface BenchResult {
  name: string;
  unit: string;
  ours: number;
  baseline: number;
  ratio: number;
  /** The ratio we aim to stay at or under. */
  target?: number;
  note?: string;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Times `op` `n` times after `warmup` runs; returns the median in milliseconds. */
export async function timeMedian(op: () => Promise<unknown> | unknown, n: number, warmup = Math.min(50, n)): Promise<number> {
  for (let i = 0; i < warmup; i++) await op();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

export function result(name: string, unit: string, ours: number, baseline: number, target?: number, note?: string): BenchResult {
  return { name, unit, ours, baseline, ratio: ours / baseline, target, note };
}

/** `grep ARGS` in a child process, answering its count (exit 1, no match, is a count of 0). */
export function grepCount(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile('grep', args, { maxBuffer: 1024 * 1024 }, (err, stdout) => {
      if (err && (err as { code?: unknown }).code !== 1) reject(err);
      else resolve(Number(String(stdout).trim()));
    });
  });
}

/** Runs `op` once to warm up, then `n` times; answers the median in milliseconds. */
export async function timed(n: number, op: () => Promise<unknown>): Promise<number> {
  await op();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op();
    xs.push(performance.now() - t0);
  }
  return median(xs);
}
