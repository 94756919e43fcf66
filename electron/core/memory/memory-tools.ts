/**
 * The memory tools as built-in local tools (bundle `memory` in resources/bundles): `block`
 * (functionId `memory.block`), `block_edit` (`memory.block-edit`) and `recall`
 * (`memory.recall`). Local tools reach both a model (the agent loop passes the conversation
 * as ctx.ownerId) and the `+` palette (the chat's conversation, too); the memory used and
 * the grant come from `actorOf(ownerId)`: a task's agent profile, or the conversation.
 */
import { AppError } from '../../../shared/errors';
import { BLOCK_EDIT_OPS, BLOCK_OPS, RECALL_OPS } from '../../../shared/model/memory';
import type { LocalFunction, WaitingLocalFunction } from '../invoke/types';
import { DEFAULT_CONSENT_TIMEOUT_MS } from './consent';
import { optInt, optString, reqString, type Args } from '../lib/args';
import type { Actor, MemoryService } from './memory-service';
import { startMemoryCall } from './tool-call';

/** The built-in `memory` bundle (resources/bundles/memory/bundle.json). */
export { MEMORY_BUNDLE_ID } from '../../../shared/model/memory';

export const MEMORY_FUNCTION_IDS = { block: 'memory.block', blockEdit: 'memory.block-edit', recall: 'memory.recall' } as const;

export interface MemoryToolDeps {
  memory: () => MemoryService | undefined;
  /** Whose memory and what grant a call from `ownerId` has; throws for an unknown owner. */
  actorOf: (ownerId: string) => Actor;
}

/** How long a `block` or `block-edit` call may take: the human's time to answer a consent card, and a minute more. */
export const MEMORY_CALL_TIMEOUT_MS = DEFAULT_CONSENT_TIMEOUT_MS + 60_000;

export function registerMemoryTools(functions: { register(id: string, fn: LocalFunction): unknown }, deps: MemoryToolDeps): void {
  const t = createMemoryTools(deps);
  // These two may wait for a consent card: longer than the dispatcher's default deadline.
  const waiting = (fn: LocalFunction): WaitingLocalFunction => Object.assign(fn, { timeoutMs: MEMORY_CALL_TIMEOUT_MS });
  functions.register(MEMORY_FUNCTION_IDS.block, waiting(t.block));
  functions.register(MEMORY_FUNCTION_IDS.blockEdit, waiting(t.blockEdit));
  functions.register(MEMORY_FUNCTION_IDS.recall, t.recall);
}

export function createMemoryTools(deps: MemoryToolDeps): { block: LocalFunction; blockEdit: LocalFunction; recall: LocalFunction } {
  const service = { get: () => deps.memory(), unavailable: 'memory is not available in this process', actorOf: (ownerId: string) => deps.actorOf(ownerId) };
  const setup = (tool: string, ctx: Parameters<LocalFunction>[0], rawArgs: unknown, ops: readonly string[]) => {
    const { args, service: memory, actor } = startMemoryCall(service, tool, ctx, rawArgs, ops);
    return { args, memory, actor: ctx.invocationId ? { ...actor, invocationId: ctx.invocationId } : actor };
  };
  return {
    block: async (ctx, rawArgs) => {
      const { args, memory, actor } = setup('block', ctx, rawArgs, BLOCK_OPS);
      const sourceId = optString(args, 'source_id', 200);
      return memory.block(actor, { op: args.op as (typeof BLOCK_OPS)[number], label: reqString(args, 'label', 200), ...(sourceId !== undefined ? { source_id: sourceId } : {}) }, ctx.signal);
    },
    blockEdit: async (ctx, rawArgs) => {
      const { args, memory, actor } = setup('block_edit', ctx, rawArgs, BLOCK_EDIT_OPS);
      return memory.blockEdit(
        actor,
        {
          op: args.op as (typeof BLOCK_EDIT_OPS)[number],
          label: reqString(args, 'label', 200),
          ...pick(args, 'content'),
          ...pick(args, 'old'),
          ...pick(args, 'new'),
          ...pick(args, 'field'),
          ...pick(args, 'patch'),
          ...(args.value !== undefined ? { value: args.value } : {}),
        },
        ctx.signal,
      );
    },
    recall: async (ctx, rawArgs) => {
      const { args, memory, actor } = setup('recall', ctx, rawArgs, RECALL_OPS);
      const metadata = args.metadata;
      if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
        throw new AppError('VALIDATION_FAILED', 'metadata is an object (for example {"tags": ["project-x"], "source": "meeting"})', { field: 'metadata' });
      }
      const tags = args.tags;
      if (tags !== undefined && (!Array.isArray(tags) || tags.some((x) => typeof x !== 'string'))) throw new AppError('VALIDATION_FAILED', 'tags is a list of strings', { field: 'tags' });
      const limit = optInt(args, 'limit', 1, 200);
      return memory.recallOp(actor, {
        op: args.op as (typeof RECALL_OPS)[number],
        ...pick(args, 'content'),
        ...pick(args, 'query'),
        ...pick(args, 'since'),
        ...pick(args, 'until'),
        ...(metadata !== undefined ? { metadata: metadata as Record<string, unknown> } : {}),
        ...(tags !== undefined ? { tags: tags as string[] } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
    },
  };
}

function pick<K extends string>(args: Args, name: K): Partial<Record<K, string>> {
  const v = optString(args, name);
  return v === undefined ? {} : ({ [name]: v } as Record<K, string>);
}
