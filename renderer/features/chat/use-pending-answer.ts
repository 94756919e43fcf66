/**
 * Answering a question a call waits on, from its card: an approval (ApprovalForm.tsx:
 * approvals.respond) or a memory consent (ConsentForm.tsx: memory.consent.respond). One answer
 * at a time: the one being sent is `busy` (its button says so, every button is off), and what
 * went wrong is `problem`: the call's error, or 'not-accepted' when the question was answered
 * already (elsewhere, or it timed out).
 */
import { useState } from 'react';
import type { ErrorInfo, Result } from '../../../shared/errors';

export type AnswerProblem = ErrorInfo | 'not-accepted';

/** What sending an answer came to: null when it was taken, else the problem to show. A call that throws is UNAVAILABLE with its message. */
export async function settleAnswer(send: () => Promise<Result<{ accepted: boolean }>>): Promise<AnswerProblem | null> {
  try {
    const r = await send();
    if (!r.ok) return r.error;
    return r.value.accepted ? null : 'not-accepted';
  } catch (e) {
    return { code: 'UNAVAILABLE', message: (e as Error).message };
  }
}

export function usePendingAnswer<A extends string>(): {
  busy: A | null;
  problem: AnswerProblem | null;
  /** Sends `answer` through `send`, unless an answer is on its way already. */
  answer: (answer: A, send: () => Promise<Result<{ accepted: boolean }>>) => Promise<void>;
} {
  const [busy, setBusy] = useState<A | null>(null);
  const [problem, setProblem] = useState<AnswerProblem | null>(null);
  const answer = async (a: A, send: () => Promise<Result<{ accepted: boolean }>>) => {
    if (busy) return;
    setBusy(a);
    setProblem(null);
    setProblem(await settleAnswer(send));
    setBusy(null);
  };
  return { busy, problem, answer };
}
