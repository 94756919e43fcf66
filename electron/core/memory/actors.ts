/**
 * Who a memory call acts as. A call from the user's conversation (a model's turn there, or
 * the `+` palette) uses the conversation's memory with every operation and capability. A
 * call from a task uses its agent profile's `memory`: the task's own conversation's blocks,
 * or (scope `profile`) the profile's, shared by every task of it; its AllowedOperations
 * (default all) and capabilities (default none).
 */
import { MEMORY_OPERATIONS, type AgentMemory } from '../../../shared/model/memory';
import type { Actor } from './memory-service';
import { fullGrant } from './permissions';

export interface ActorLookup {
  /** The agent profile running the task whose conversation is `conversationId`, if it is a task. */
  agentOf(conversationId: string): { name: string; memory?: AgentMemory | undefined } | undefined;
}

export function actorFor(ownerId: string, lookup: ActorLookup): Actor {
  const agent = lookup.agentOf(ownerId);
  if (!agent) return { owner: `conversation:${ownerId}`, conversationId: ownerId, by: ownerId, grant: fullGrant('the conversation') };
  const m = agent.memory;
  return {
    owner: m?.scope === 'profile' ? `agent:${agent.name}` : `conversation:${ownerId}`,
    conversationId: ownerId,
    by: ownerId,
    grant: {
      who: `the ${agent.name} agent`,
      allowed: new Set(m?.allowedOperations ?? MEMORY_OPERATIONS),
      capabilities: new Set(m?.capabilities ?? []),
    },
  };
}
