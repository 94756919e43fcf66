/** Guards on delegation (docs/design/orchestration.md): how deep a chain of tasks may go, and no agent twice in one chain. */
import { DELEGATION_DEPTH_DEFAULT } from '../../../shared/model/settings';

export const DEFAULT_MAX_DEPTH = DELEGATION_DEPTH_DEFAULT;

/**
 * Why `agent` may not take a task from `chain` (the agents of the tasks above the new one,
 * outermost first; empty when the conversation itself delegates), or undefined.
 */
export function delegationRefusal(chain: readonly string[], agent: string, maxDepth: number = DEFAULT_MAX_DEPTH): string | undefined {
  const path = ['conversation', ...chain, agent].join(' → ');
  if (chain.includes(agent)) {
    return `delegation cycle refused: ${path} (an agent cannot take a task from a chain it is already in); do the work here or give it to another agent`;
  }
  const depth = chain.length + 1;
  if (depth > maxDepth) return `delegation depth limit reached: ${path} would be ${depth} levels deep (the limit is ${maxDepth}); do the work here`;
  return undefined;
}
