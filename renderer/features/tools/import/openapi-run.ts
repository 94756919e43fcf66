/**
 * Saving the chosen OpenAPI operations, one tool after another, so that a long import can
 * be cancelled between two tools. Each save is one tools.put, which the core writes whole
 * or not at all; a cancel never cuts one short: the save in flight when the person cancels
 * is awaited and reported like the others. So every tool written is in `outcomes`, and the
 * person is shown each of them; what was not reached is counted in `notStarted`.
 *
 * A save refused because the bundle holds as many tools as Settings → Limits allow ('limit')
 * ends the run: the operations after it are not sent (each would be refused the same way) and
 * are listed as 'limit' too, so the report names every operation not imported and why.
 */

export interface RunOutcome {
  key: string;
  slug: string;
  /** 'limit': refused, or not sent, because the bundle is full (Settings → Limits → Tools per bundle). */
  status: 'created' | 'conflict' | 'limit' | 'error';
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
  /** Operations never sent because of a cancel. */
  notStarted: number;
  /** Operations not imported because the bundle is full: the refused one and those not sent after it. */
  limited: number;
}

/** The rule of the core's refusal when a bundle holds as many tools as Settings allow (electron/core/bundles/tool-limit.ts). */
export const BUNDLE_TOOL_LIMIT_RULE = 'bundle-tool-limit';

/** What a failed tools.put means for the report: the bundle is full, the <slug, version> exists, or another error. */
export function refusedStatus(code: string, details: unknown): 'conflict' | 'limit' | 'error' {
  if (code !== 'CONFLICT') return 'error';
  const rule = (details as { rule?: unknown } | undefined)?.rule;
  if (rule === BUNDLE_TOOL_LIMIT_RULE) return 'limit';
  return rule === 'exists' || rule === undefined ? 'conflict' : 'error';
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
  let full = false;
  for (const op of ops) {
    if (full) {
      outcomes.push({ key: op.key, slug: op.slug, status: 'limit' });
      continue;
    }
    if (signal.aborted) break;
    onProgress({ done: outcomes.length, total, current: op.slug, outcomes });
    const outcome = await put(op);
    outcomes.push(outcome);
    full = outcome.status === 'limit';
  }
  onProgress({ done: outcomes.length, total, outcomes });
  const notStarted = total - outcomes.length;
  const limited = outcomes.filter((o) => o.status === 'limit').length;
  return { outcomes, cancelled: notStarted > 0, notStarted, limited };
}

/** How many tools a run created. */
export function createdCount(outcomes: readonly RunOutcome[]): number {
  return outcomes.filter((o) => o.status === 'created').length;
}
