/**
 * How a call of a memory tool starts (`block`, `block_edit` and `recall` in memory-tools.ts,
 * `source` and `file` in sources/source-tools.ts), in this order: the arguments read, `op`
 * required and one of the tool's operations, the call not cancelled, the service there in this
 * process, a conversation or task to act for, and the caller (`actorOf(ctx.ownerId)`).
 */
import { AppError } from '../../../shared/errors';
import type { LocalToolContext } from '../invoke/types';
import { argsOf, checkAborted, enumArg, type Args } from '../lib/args';
import type { Actor } from './memory-service';

/** The memory tools need a conversation: the tester and the REST API call them without one. */
export const needsConversation = (tool: string) =>
  `${tool} works on a conversation's memory: run it from a chat (the + palette) or let a model call it; the tester and the REST API have no conversation`;

export interface MemoryToolService<S> {
  /** The service the tool works with; undefined in a process without it. */
  get: () => S | undefined;
  /** The UNAVAILABLE message when there is none: `memory is not available in this process`. */
  unavailable: string;
  /** Whose memory and what grant a call from `ownerId` has; throws for an unknown owner. */
  actorOf: (ownerId: string) => Actor;
}

/** The checked start of a call of `tool`, whose operations are `ops`: its arguments, its service and its caller. */
export function startMemoryCall<S>(service: MemoryToolService<S>, tool: string, ctx: LocalToolContext | undefined, rawArgs: unknown, ops: readonly string[]): { args: Args; service: S; actor: Actor } {
  const args = argsOf(rawArgs);
  if (args.op === undefined) throw new AppError('VALIDATION_FAILED', `op is required: one of ${ops.join(', ')}`, { field: 'op' });
  enumArg(args, 'op', ops, ops[0]!);
  checkAborted(ctx?.signal);
  const s = service.get();
  if (!s) throw new AppError('UNAVAILABLE', service.unavailable);
  if (!ctx?.ownerId) throw new AppError('UNAVAILABLE', needsConversation(tool));
  return { args, service: s, actor: service.actorOf(ctx.ownerId) };
}
