/** Test helpers of the memory folder: a service on a temp file, actors, a fake consent asker. */
import path from 'node:path';
import { MEMORY_OPERATIONS, type MemoryOperation } from '../../../../shared/model/memory';
import type { ConsentAnswer, ConsentAsker, ConsentRequest } from '../consent';
import { MemoryService, type Actor } from '../memory-service';
import { fullGrant } from '../permissions';

export function openTestMemory(dir: string, opts: { consent?: ConsentAsker; consentTimeoutMs?: number; now?: () => Date } = {}): MemoryService {
  let t = Date.parse('2026-03-01T10:00:00Z');
  return MemoryService.open({
    file: path.join(dir, 'memory.sqlite'),
    now: opts.now ?? (() => new Date((t += 1000))),
    ...(opts.consent ? { consent: () => opts.consent } : {}),
    ...(opts.consentTimeoutMs !== undefined ? { consentTimeoutMs: () => opts.consentTimeoutMs! } : {}),
  });
}

export const userActor = (conversationId = 'c1'): Actor => ({ owner: `conversation:${conversationId}`, conversationId, by: conversationId, grant: fullGrant('the conversation') });

export function agentActor(allowed: readonly MemoryOperation[] = MEMORY_OPERATIONS, capabilities: 'AdvancedEdit'[] = [], conversationId = 't1'): Actor {
  return { owner: `conversation:${conversationId}`, conversationId, by: conversationId, grant: { who: 'the researcher agent', allowed: new Set(allowed), capabilities: new Set(capabilities) } };
}

/** Answers every request with the next scripted answer ('never': waits until aborted); records the requests. */
export class FakeConsent implements ConsentAsker {
  readonly asked: ConsentRequest[] = [];
  constructor(private readonly answers: (ConsentAnswer | 'never')[]) {}
  ask(request: ConsentRequest, signal: AbortSignal): Promise<ConsentAnswer> {
    this.asked.push(request);
    const a = this.answers.shift() ?? 'deny';
    if (a !== 'never') return Promise.resolve(a);
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  }
}

export const never = new AbortController().signal;
