/**
 * Approvals asked in the app for served tools. A window (the Electron window, or a browser on
 * the headless host) counts itself open while it is connected; a call that needs approval
 * waits here for its answer, and is refused when no window is open, when the last one
 * closes, when nobody answers in time, or when its client cancels it.
 */
import { v7 as uuidv7 } from 'uuid';
import type { McpApprovalDecision, McpApprovalRequest } from '../../../shared/model/mcp-serve';
import { OpenWindows } from '../lib/open-windows';
import { cleanClientText } from './client-name';

export type ApprovalOutcome = { decision: McpApprovalDecision } | { refused: string };

export interface ApprovalQueueOptions {
  now: () => Date;
  /** Told when the pending list changes (an event to the windows). */
  onChange?: () => void;
  /** How long a request waits for an answer (default 5 minutes). */
  timeoutMs?: number;
}

interface Pending {
  request: McpApprovalRequest;
  settle: (o: ApprovalOutcome) => void;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;

export const noAnswerInTime = (tool: string, ms: number) =>
  `'${tool}' requires approval, and nobody answered in Toolsmith within ${Math.round(ms / 1000)} seconds; the call was not run`;
export const windowClosed = (tool: string) => `'${tool}' requires approval, and Toolsmith's window was closed before anyone answered; the call was not run`;

export class McpApprovalQueue {
  /** The last window closing refuses every waiting request. */
  private readonly windows = new OpenWindows(() => {
    for (const p of [...this.pending.values()]) this.settle(p.request.id, { refused: windowClosed(p.request.toolName) });
  });
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly opts: ApprovalQueueOptions) {}

  /** A window connected; the answer detaches it (once). */
  attachWindow(): () => void {
    return this.windows.attach();
  }

  windowOpen(): boolean {
    return this.windows.any();
  }

  list(): McpApprovalRequest[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  /** Asks the open windows; settles with the user's decision, or refused with why. */
  ask(req: Omit<McpApprovalRequest, 'id' | 'requestedAt'>, signal?: AbortSignal): Promise<ApprovalOutcome> {
    const id = uuidv7();
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    return new Promise<ApprovalOutcome>((resolve) => {
      const timer = setTimeout(() => this.settle(id, { refused: noAnswerInTime(req.toolName, timeoutMs) }), timeoutMs);
      timer.unref?.();
      const onAbort = () => this.settle(id, { refused: `the client cancelled the call to '${req.toolName}' while it waited for approval` });
      const settle = (o: ApprovalOutcome) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(o);
      };
      // Cleaned again here: a request may come from another process (`toolsmith mcp` asking the app's window).
      this.pending.set(id, { request: { ...req, client: cleanClientText(req.client), id, requestedAt: this.opts.now().toISOString() }, settle });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.opts.onChange?.();
      if (signal?.aborted) onAbort();
    });
  }

  /** The user's answer; false when the request is no longer waiting. */
  respond(id: string, decision: McpApprovalDecision): boolean {
    return this.settle(id, { decision });
  }

  /** Refuses a waiting request with why (a window in another process could not answer it); false when it no longer waits. */
  refuse(id: string, reason: string): boolean {
    return this.settle(id, { refused: reason });
  }

  private settle(id: string, outcome: ApprovalOutcome): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    p.settle(outcome);
    this.opts.onChange?.();
    return true;
  }
}
