/**
 * A running call's progress (an MCP server's notifications/progress), as the dispatcher passes it
 * on: checked, its message redacted and cut, and at most one report per interval for each call
 * (a server that sends thousands does not flood the window), the latest held meanwhile and always
 * delivered: when the interval ends, or at the latest just before the call's answer.
 */
import { PROGRESS_MESSAGE_MAX_CHARS, type InvocationProgress } from '../../../shared/model/invocation';
import type { Redact } from './types';

/** What a back-end reports: how far the call is, of how much when known, and what it is doing. */
export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

export type ProgressListener = (p: InvocationProgress) => void;

/** At most this often per call (ten a second) a report goes to the listeners. */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * A call that reports progress has its time limit started again at each report, up to this many
 * times the limit in all (the same rule as an MCP call's own limit: connection.ts).
 */
export const PROGRESS_TIMEOUT_FACTOR = 10;

/** A report as it goes out, or undefined for one that says nothing usable (not a number, negative, infinite). */
export function cleanReport(invocationId: string, r: ProgressReport, redact: Redact): InvocationProgress | undefined {
  const { progress, total, message } = r;
  if (typeof progress !== 'number' || !Number.isFinite(progress) || progress < 0) return undefined;
  const p: InvocationProgress = { invocationId, progress };
  if (typeof total === 'number' && Number.isFinite(total) && total > 0) p.total = total;
  if (typeof message === 'string' && message !== '') {
    const text = redact(message);
    p.message = text.length > PROGRESS_MESSAGE_MAX_CHARS ? `${text.slice(0, PROGRESS_MESSAGE_MAX_CHARS - 1)}…` : text;
  }
  return p;
}

/** One call's progress: its time limit's extensions and the report held back by the interval. */
export class CallProgress {
  /** The time limit reached its cap: reports no longer extend it. */
  capped = false;
  /** performance.now() of the last report delivered. */
  private sentAt = Number.NEGATIVE_INFINITY;
  private held: InvocationProgress | undefined = undefined;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(
    private readonly deliver: (p: InvocationProgress) => void,
    private readonly intervalMs: number,
  ) {}

  /** Delivers `p` now when the interval allows, or holds it (replacing any held) until it does. */
  report(p: InvocationProgress, now: number): void {
    if (this.timer === undefined && now - this.sentAt >= this.intervalMs) {
      this.sentAt = now;
      this.deliver(p);
      return;
    }
    this.held = p;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.release(), Math.max(0, this.sentAt + this.intervalMs - now));
      this.timer.unref?.();
    }
  }

  /** The call ended: the report held back is delivered now, before its answer. */
  end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.release();
  }

  private release(): void {
    this.timer = undefined;
    const p = this.held;
    if (!p) return;
    this.held = undefined;
    this.sentAt = performance.now();
    this.deliver(p);
  }
}
