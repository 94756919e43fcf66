/**
 * The two permission layers of memory (docs/design/memory.md), composed:
 * 1. the block's MemoryPermission: what is possible on the block at all (this table);
 * 2. the agent's AllowedOperations (and capabilities such as AdvancedEdit): what this agent may do.
 * A refusal names its layer and why. Partner and Human make a write wait for the human's
 * consent (./consent.ts), after the agent's layer has allowed it: the human is not asked
 * for what the agent may not do anyway.
 *
 * | operation                   | ReadOnly | Partner | Human | Append  | ReadWrite | Admin   |
 * | block load, info            | allowed  | allowed | allowed | allowed | allowed | allowed |
 * | block pin, unpin            | refused  | human   | human | allowed | allowed   | allowed |
 * | block archive               | refused  | human   | human | refused | refused   | allowed |
 * | block_edit append           | refused  | human   | human | allowed | allowed   | allowed |
 * | block_edit replace, patch, set_field | refused | human | human | refused | allowed | allowed |
 * | file load                   | allowed  | allowed | allowed | allowed | allowed | allowed |
 * | file append, create         | refused  | human   | human | allowed | allowed   | allowed |
 * | file save, replace          | refused  | human   | human | refused | allowed   | allowed |
 * | file delete                 | refused  | human   | human | refused | human     | allowed |
 * recall and source operations concern no block: only the agent's layer applies. For the
 * `file` ops the permission is the FileSource rule's for the path (sources/file-rules.ts),
 * and a save that only adds to the end of the file counts as an append. Deleting a file is
 * an escalation: below Admin it waits for the user's answer.
 */
import type { MemoryOperation, MemoryPermission } from '../../../shared/model/memory';
import { MEMORY_CAPABILITIES, MEMORY_OPERATIONS } from '../../../shared/model/memory';

export type Layer = 'file source rules' | 'block permission' | 'agent allowed operations' | 'agent capabilities' | 'human consent';

export type Decision =
  | { kind: 'allowed' }
  | { kind: 'needs-human'; layer: 'block permission' | 'file source rules'; reason: string }
  | { kind: 'refused'; layer: Layer; reason: string };

export type Outcome = 'allowed' | 'human' | 'refused';

const READ: Outcome[] = ['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'allowed'];
const ATTENTION: Outcome[] = ['refused', 'human', 'human', 'allowed', 'allowed', 'allowed'];
const LIFECYCLE: Outcome[] = ['refused', 'human', 'human', 'refused', 'refused', 'allowed'];
const APPEND: Outcome[] = ['refused', 'human', 'human', 'allowed', 'allowed', 'allowed'];
const REWRITE: Outcome[] = ['refused', 'human', 'human', 'refused', 'allowed', 'allowed'];
const DELETE: Outcome[] = ['refused', 'human', 'human', 'refused', 'human', 'allowed'];

export const LEVELS: readonly MemoryPermission[] = ['ReadOnly', 'Partner', 'Human', 'Append', 'ReadWrite', 'Admin'];

/** The table above, per operation on a block. */
export const PERMISSION_TABLE: Readonly<Partial<Record<MemoryOperation, readonly Outcome[]>>> = {
  'block.load': READ,
  'block.info': READ,
  'block.pin': ATTENTION,
  'block.unpin': ATTENTION,
  'block.archive': LIFECYCLE,
  'block_edit.append': APPEND,
  'block_edit.replace': REWRITE,
  'block_edit.patch': REWRITE,
  'block_edit.set_field': REWRITE,
  'file.load': READ,
  'file.create': APPEND,
  'file.append': APPEND,
  'file.save': REWRITE,
  'file.replace': REWRITE,
  'file.delete': DELETE,
};

/** What the table makes of an operation at a permission level. */
export function outcomeOf(permission: MemoryPermission, op: MemoryOperation): Outcome {
  const row = PERMISSION_TABLE[op];
  return row ? row[LEVELS.indexOf(permission)]! : 'allowed';
}

export const PERMISSION_WHAT: Record<MemoryPermission, string> = {
  ReadOnly: 'is read-only',
  Partner: "changes only with its partner's (the user's) consent",
  Human: "changes only with a human's consent",
  Append: 'takes appends only',
  ReadWrite: 'may be read and written, not archived',
  Admin: 'allows everything',
};

/** Layer 1: what the block's permission makes of an operation. */
export function blockDecision(permission: MemoryPermission, op: MemoryOperation, label: string): Decision {
  const row = PERMISSION_TABLE[op];
  if (!row) return { kind: 'allowed' };
  const outcome = row[LEVELS.indexOf(permission)];
  const shown = opText(op);
  if (outcome === 'allowed') return { kind: 'allowed' };
  if (outcome === 'human') return { kind: 'needs-human', layer: 'block permission', reason: `block '${label}' has permission ${permission}: it ${PERMISSION_WHAT[permission]}, so ${shown} waits for the user's answer` };
  return { kind: 'refused', layer: 'block permission', reason: `block '${label}' has permission ${permission}: it ${PERMISSION_WHAT[permission]}, so ${shown} is not possible${needs(op)}` };
}

/** What an agent may do: its AllowedOperations and capabilities. */
export interface AgentGrant {
  /** Who is asking, for messages: "the conversation", "the researcher agent". */
  who: string;
  allowed: ReadonlySet<MemoryOperation>;
  capabilities: ReadonlySet<(typeof MEMORY_CAPABILITIES)[number]>;
}

/** The user's own conversation: every operation and capability. */
export function fullGrant(who: string): AgentGrant {
  return { who, allowed: new Set(MEMORY_OPERATIONS), capabilities: new Set(MEMORY_CAPABILITIES) };
}

/** Layer 2: the agent's AllowedOperations, then its capabilities (patch needs AdvancedEdit). */
export function agentDecision(grant: AgentGrant, op: MemoryOperation): Decision {
  if (!grant.allowed.has(op)) {
    return { kind: 'refused', layer: 'agent allowed operations', reason: `${grant.who} may not use ${opText(op)}: it is not in its AllowedOperations (${[...grant.allowed].join(', ') || 'none'})` };
  }
  if (op === 'block_edit.patch' && !grant.capabilities.has('AdvancedEdit')) {
    return { kind: 'refused', layer: 'agent capabilities', reason: `${grant.who} may not use block_edit patch: applying a unified diff needs the AdvancedEdit capability; use replace or append instead` };
  }
  return { kind: 'allowed' };
}

/**
 * Both layers: a refusal of either wins (the block's first), then the human's consent when
 * the block asks for it.
 */
export function decide(permission: MemoryPermission | undefined, grant: AgentGrant, op: MemoryOperation, label: string): Decision {
  const block = permission ? blockDecision(permission, op, label) : ({ kind: 'allowed' } as const);
  if (block.kind === 'refused') return block;
  const agent = agentDecision(grant, op);
  if (agent.kind === 'refused') return agent;
  return block;
}

/** A refusal as the tool says it: "refused by <layer>: <why>". */
export const refusalText = (d: { layer: Layer; reason: string }) => `refused by ${d.layer}: ${d.reason}`;

export function opText(op: MemoryOperation): string {
  const [tool, name] = op.split('.');
  return `${tool} ${name}`;
}

export function needs(op: MemoryOperation): string {
  if (op === 'block.archive') return ' (archive needs Admin)';
  if (op === 'file.delete') return ' (deleting a file needs Admin, or ReadWrite and the user\'s consent)';
  if (op === 'block_edit.append' || op === 'file.append' || op === 'file.create' || op === 'block.pin' || op === 'block.unpin') return ' (it needs Append, ReadWrite or Admin)';
  return ' (it needs ReadWrite or Admin)';
}
