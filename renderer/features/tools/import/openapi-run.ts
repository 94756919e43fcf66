/**
 * Saving the chosen OpenAPI operations, one tool after another, so that a long import can
 * be cancelled between two tools. Each save is one tools.put, which the core writes whole
 * or not at all; a cancel never cuts one short: the save in flight when the person cancels
 * is awaited and reported like the others. So every tool written is in `outcomes`, and the
 * person is shown each of them; what was not reached is counted in `notStarted`.
 */

export interface RunOutcome {
  key: string;
  slug: string;
  status: 'created' | 'conflict' | 'error';
  message?: string;
}

export interface RunProgress {
  /** Saves finished so far. */
  done: number;
  total: number;
  /** The operation being saved now, if any. */
  current?: string;
  outcomes: readonly RunOutcome[];
}

export interface RunResult {
  outcomes: RunOutcome[];
  /** True when the run stopped before the last operation because of a cancel. */
  cancelled: boolean;
  /** Operations never sent. */
  notStarted: number;
}

/** Saves `ops` in order with `put` (which reports failures as outcomes, never throws) until done or `signal` fires. */
export async function runImport<Op extends { key: string; slug: string }>(
  ops: readonly Op[],
  put: (op: Op) => Promise<RunOutcome>,
  signal: AbortSignal,
  onProgress: (p: RunProgress) => void,
): Promise<RunResult> {
  const outcomes: RunOutcome[] = [];
  const total = ops.length;
  for (const op of ops) {
    if (signal.aborted) break;
    onProgress({ done: outcomes.length, total, current: op.slug, outcomes });
    outcomes.push(await put(op));
  }
  onProgress({ done: outcomes.length, total, outcomes });
  const notStarted = total - outcomes.length;
  return { outcomes, cancelled: notStarted > 0, notStarted };
}

/** How many tools a run created. */
export function createdCount(outcomes: readonly RunOutcome[]): number {
  return outcomes.filter((o) => o.status === 'created').length;
}
