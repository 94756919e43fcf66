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
