/**
 * The bytes of response bodies the transport holds in memory, all calls together. Each call
 * of `send` takes its bytes from one shared budget as they arrive and gives them back when it
 * ends (the body then belongs to the caller); a call that would take the budget past its
 * limit stops with PAYLOAD_TOO_LARGE, whatever its own limits.maxResponseBytes allows, so
 * parallel large responses cannot take the host's memory with them.
 */
import { AppError } from '../../../../shared/errors';

const MiB = 1024 * 1024;

/** The default: one response at the largest limits.maxResponseBytes (256 MiB), with room for smaller ones. */
export const DEFAULT_RESPONSE_BUDGET_BYTES = 320 * MiB;

export class ResponseBudget {
  private used = 0;

  constructor(readonly limit: number = DEFAULT_RESPONSE_BUDGET_BYTES) {}

  /** Bytes held right now by calls still reading. */
  get inUse(): number {
    return this.used;
  }

  /** Takes `n` bytes; false (and nothing taken) when that would pass the limit. */
  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

/** The budget every transport shares unless it is given its own. */
export const sharedResponseBudget = new ResponseBudget();

/** The error of a call stopped by the budget. */
export function budgetExceeded(where: string, budget: ResponseBudget, readBytes: number): AppError {
  const mib = (n: number) => `${Math.round((n / MiB) * 10) / 10} MiB`;
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `the response from '${where}' was stopped after ${readBytes} bytes: responses being read at the same time already hold ${mib(budget.inUse)}, and the app keeps at most ${mib(budget.limit)} of them in memory; try again when the other calls have finished, or lower limits.maxResponseBytes`,
    { stage: 'budget', readBytes, budget: budget.limit, inUse: budget.inUse },
  );
}
