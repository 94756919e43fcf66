/**
 * Consent (docs/design/memory.md): a write to a Partner or Human block waits for the human. The
 * memory service asks through a ConsentAsker, which the app implements with a card in the chat;
 * without one, the call ends with a consent-required error and nothing changes. A timeout, or the
 * app closing, answers deny. "Allow for this conversation" is remembered by the service for the
 * block and the operation.
 */
import { AppError } from '../../../shared/errors';
import type { MemoryOperation, MemoryPermission } from '../../../shared/model/memory';

export interface ConsentRequest {
  /** The conversation (or task) the call runs in. */
  conversationId: string | undefined;
  /** The call's invocation id: the card in the chat the question goes on. */
  invocationId?: string | undefined;
  /** The memory the block belongs to: conversation:<id> or agent:<name>. */
  owner: string;
  label: string;
  operation: MemoryOperation;
  permission: MemoryPermission;
  /** One sentence: what would change. */
  summary: string;
  /** Edits: the content before and after, and a unified diff of them. */
  before?: string;
  after?: string;
  diff?: string;
}

/** `closed`: the app closed before the human answered (a deny). */
export type ConsentAnswer = 'allow-once' | 'allow-conversation' | 'deny' | 'timeout' | 'closed';
/** How the app closing answers a question still open. */
export const consentClosed = (label: string, op: string) => `refused by human consent: the app closed before the user answered ${op} on block '${label}', which counts as deny; nothing was changed`;

export interface ConsentAsker {
  /** Resolves with the human's answer; `timeout` when none came in time. Rejects CANCELLED when the signal aborts. */
  ask(request: ConsentRequest, signal: AbortSignal): Promise<ConsentAnswer>;
}

/** How long the human has to answer before the answer is deny. */
export const DEFAULT_CONSENT_TIMEOUT_MS = 5 * 60_000;

export const consentRequired = (reason: string) =>
  `consent required: ${reason}, and there is no chat here to ask the user in (consent cards are shown in a conversation); nothing was changed. Ask the user in your reply, or have them change the block's permission.`;
export const consentDenied = (label: string, op: string) => `refused by human consent: the user denied ${op} on block '${label}'; nothing was changed`;
export const consentTimedOut = (label: string, op: string, ms: number) =>
  `refused by human consent: no answer to ${op} on block '${label}' within ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}, which counts as deny; nothing was changed`;

/** Waits for an answer, at most `timeoutMs`: no answer in time is `timeout`. */
export async function askWithTimeout(asker: ConsentAsker, request: ConsentRequest, signal: AbortSignal, timeoutMs: number): Promise<ConsentAnswer> {
  const ctl = new AbortController();
  const onAbort = () => ctl.abort(signal.reason);
  if (signal.aborted) throw new AppError('CANCELLED', 'cancelled while waiting for consent');
  signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<ConsentAnswer>((resolve) => {
      timer = setTimeout(() => {
        // Settled first, so the asker's own rejection on abort does not win the race.
        resolve('timeout');
        ctl.abort(new AppError('TIMEOUT', 'consent timed out'));
      }, timeoutMs);
    });
    return await Promise.race([asker.ask(request, ctl.signal), timeout]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
