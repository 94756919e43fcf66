/** Test helpers for local functions: a context on a workspace folder, and error capture. */
import { AppError } from '../../../shared/errors';
import type { LocalFunction, LocalToolContext, Transport } from '../invoke/types';

const noTransport: Transport = {
  send: () => Promise.reject(new AppError('UNAVAILABLE', 'no transport in this test')),
  stream: () => Promise.reject(new AppError('UNAVAILABLE', 'no transport in this test')),
};

export function testContext(workspaceDir: string, over: Partial<LocalToolContext> = {}): LocalToolContext {
  return {
    workspaceDir,
    signal: new AbortController().signal,
    now: () => new Date('2025-03-01T12:00:00.000Z'),
    transport: noTransport,
    allowedHosts: () => [],
    ...over,
  };
}

/** Calls a local function the way the dispatcher does. */
export function call(fn: LocalFunction, ctx: LocalToolContext, args: Record<string, unknown>): Promise<unknown> {
  return fn(ctx, args, ctx.signal);
}

/** The AppError a promise rejects with; fails when it resolves or rejects with anything else. */
export async function appError(p: Promise<unknown> | (() => Promise<unknown>)): Promise<AppError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw new Error(`expected an AppError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected an AppError, but the call succeeded');
}
