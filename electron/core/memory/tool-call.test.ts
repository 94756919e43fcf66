import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import type { LocalToolContext } from '../invoke/types';
import { agentActor, never, userActor } from './testing/memory-kit';
import { needsConversation, startMemoryCall, type MemoryToolService } from './tool-call';

const OPS = ['list', 'status'] as const;

function ctxOf(ownerId: string | undefined, signal: AbortSignal = never): LocalToolContext {
  return { ...(ownerId !== undefined ? { ownerId } : {}), signal } as unknown as LocalToolContext;
}

/** An AppError with this code and message. */
const appError = (code: string, message: string) => expect.objectContaining({ constructor: AppError, code, message });

describe('startMemoryCall', () => {
  const askedFor: string[] = [];
  const service: MemoryToolService<{ name: string }> = {
    get: () => ({ name: 'the service' }),
    unavailable: 'sources are not available in this process',
    actorOf: (ownerId) => {
      askedFor.push(ownerId);
      return ownerId === 'task-1' ? agentActor() : userActor(ownerId);
    },
  };

  it('gives the arguments, the service and the caller of the conversation or task it runs for', () => {
    askedFor.length = 0;
    const call = startMemoryCall(service, 'source', ctxOf('c7'), { op: 'status', source_id: 's1' }, OPS);
    expect(call.args).toEqual({ op: 'status', source_id: 's1' });
    expect(call.service).toEqual({ name: 'the service' });
    expect(call.actor).toEqual(userActor('c7'));
    expect(startMemoryCall(service, 'source', ctxOf('task-1'), { op: 'list' }, OPS).actor).toEqual(agentActor());
    expect(askedFor).toEqual(['c7', 'task-1']);
  });

  it("requires op, one of the tool's operations, and names them", () => {
    expect(() => startMemoryCall(service, 'source', ctxOf('c1'), {}, OPS)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', message: 'op is required: one of list, status', details: { field: 'op' } }));
    // Arguments that are not an object read as none.
    expect(() => startMemoryCall(service, 'source', ctxOf('c1'), ['list'], OPS)).toThrow(appError('VALIDATION_FAILED', 'op is required: one of list, status'));
    expect(() => startMemoryCall(service, 'source', ctxOf('c1'), { op: 'pause' }, OPS)).toThrow(appError('VALIDATION_FAILED', "op must be one of 'list', 'status'"));
  });

  it('checks in order: the arguments, a cancelled call, the service, then the owner', () => {
    const cancelled = AbortSignal.abort();
    const none: MemoryToolService<{ name: string }> = { ...service, get: () => undefined };
    // Bad arguments come first, even when the call is cancelled and nothing else is there.
    expect(() => startMemoryCall(none, 'source', ctxOf(undefined, cancelled), {}, OPS)).toThrow(appError('VALIDATION_FAILED', 'op is required: one of list, status'));
    expect(() => startMemoryCall(none, 'source', ctxOf(undefined, cancelled), { op: 'list' }, OPS)).toThrow(appError('CANCELLED', 'the call was cancelled'));
    expect(() => startMemoryCall(none, 'source', ctxOf(undefined), { op: 'list' }, OPS)).toThrow(appError('UNAVAILABLE', 'sources are not available in this process'));
    askedFor.length = 0;
    expect(() => startMemoryCall(service, 'recall', ctxOf(undefined), { op: 'list' }, OPS)).toThrow(appError('UNAVAILABLE', needsConversation('recall')));
    expect(needsConversation('recall')).toMatch(/^recall works on a conversation's memory/);
    expect(askedFor).toEqual([]);
  });
});
