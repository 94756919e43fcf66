/** Agent profiles (docs/design/orchestration.md): the agents a model may delegate to. Built-ins are read-only. */
import { z } from 'zod';
import { AgentProfileViewSchema } from '../model/agent-profile';
import { Empty, type EventTable, type OperationTable } from './common';

export const agentProfilesOperations = {
  'agents.list': { input: Empty, output: z.array(AgentProfileViewSchema) },
  'agents.get': { input: z.object({ name: z.string().max(40) }).strict(), output: AgentProfileViewSchema },
  /** Creates or replaces a user profile (checked by the core; the answer says every field that is wrong). */
  'agents.put': { input: z.object({ profile: z.unknown() }).strict(), output: AgentProfileViewSchema },
  'agents.delete': { input: z.object({ name: z.string().max(40) }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  'agents.setEnabled': { input: z.object({ name: z.string().max(40), enabled: z.boolean() }).strict(), output: AgentProfileViewSchema },
} as const satisfies OperationTable;

export const agentProfilesEvents = {
  /** Agent profiles were added, changed, deleted, enabled or disabled. */
  'agents.changed': z.object({}).strict(),
} as const satisfies EventTable;
