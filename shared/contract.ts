import type { z } from 'zod';
import { agentEvents, agentOperations } from './contract/agent';
import { agentProfilesEvents, agentProfilesOperations } from './contract/agent-profiles';
import { appEvents, appOperations } from './contract/app';
import { chatEvents, chatOperations } from './contract/chat';
import type { EventTable, OperationTable } from './contract/common';
import { documentsEvents, documentsOperations } from './contract/documents';
import { evalsEvents, evalsOperations } from './contract/evals';
import { invokeEvents, invokeOperations } from './contract/invoke';
import { mcpAppsEvents, mcpAppsOperations } from './contract/mcp-apps';
import { mcpClientEvents, mcpClientOperations } from './contract/mcp-client';
import { mcpServerEvents, mcpServerOperations } from './contract/mcp-server';
import { memoryEvents, memoryOperations } from './contract/memory';
import { providersEvents, providersOperations } from './contract/providers';
import { registryEvents, registryOperations } from './contract/registry';
import { routingEvents, routingOperations } from './contract/routing';
import { scriptToolsEvents, scriptToolsOperations } from './contract/script-tools';
import { secretsEvents, secretsOperations } from './contract/secrets';
import { tasksEvents, tasksOperations } from './contract/tasks';
import { testcasesEvents, testcasesOperations } from './contract/testcases';
import { toolOutputsEvents, toolOutputsOperations } from './contract/tool-outputs';
import { toolSearchEvents, toolSearchOperations } from './contract/tool-search';
import { transferEvents, transferOperations } from './contract/transfer';
import { usageEvents, usageOperations } from './contract/usage';
import { workflowsEvents, workflowsOperations } from './contract/workflows';

export { SchemaIssueSchema, type SchemaIssueInfo } from './contract/common';
export { InvokeResultSchema, type InvokeResult } from './contract/invoke';
export { SecretInfoSchema, type SecretInfo } from './contract/secrets';
export { FindHitSchema, SearchHitSchema, type FindHit, type SearchHit } from './contract/registry';
export { StoredOutputSchema, type StoredOutputSummary } from './contract/tool-outputs';

/**
 * The one contract between the renderer (and scripts) and the core, composed of one slice per
 * feature (shared/contract/<feature>.ts, each with its operations and its events).
 * Adding an operation: an entry in its feature's slice, a handler in the core's table (it will
 * not compile without one), and a call from the client. A new slice is spread into both tables
 * here and listed in shared/contract/slices.test.ts, which fails when the two lists differ or two
 * slices define the same name.
 */
export const operations = {
  ...appOperations,
  ...registryOperations,
  ...invokeOperations,
  ...secretsOperations,
  ...testcasesOperations,
  ...evalsOperations,
  ...transferOperations,
  ...routingOperations,
  ...chatOperations,
  ...workflowsOperations,
  ...agentProfilesOperations,
  ...tasksOperations,
  ...agentOperations,
  ...providersOperations,
  ...documentsOperations,
  ...memoryOperations,
  ...toolOutputsOperations,
  ...mcpClientOperations,
  ...mcpAppsOperations,
  ...mcpServerOperations,
  ...usageOperations,
  ...toolSearchOperations,
  ...scriptToolsOperations,
} as const satisfies OperationTable;

/** Events the core pushes to every connected window. */
export const events = {
  ...appEvents,
  ...registryEvents,
  ...invokeEvents,
  ...secretsEvents,
  ...testcasesEvents,
  ...evalsEvents,
  ...transferEvents,
  ...routingEvents,
  ...chatEvents,
  ...workflowsEvents,
  ...agentProfilesEvents,
  ...tasksEvents,
  ...agentEvents,
  ...providersEvents,
  ...documentsEvents,
  ...memoryEvents,
  ...toolOutputsEvents,
  ...mcpClientEvents,
  ...mcpAppsEvents,
  ...mcpServerEvents,
  ...usageEvents,
  ...toolSearchEvents,
  ...scriptToolsEvents,
} as const satisfies EventTable;

export type Operations = typeof operations;
export type OpName = keyof Operations;
export type OpInput<N extends OpName> = z.input<Operations[N]['input']>;
export type OpParsedInput<N extends OpName> = z.output<Operations[N]['input']>;
export type OpOutput<N extends OpName> = z.output<Operations[N]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<N extends EventName> = z.output<Events[N]>;

export const operationNames = Object.keys(operations) as OpName[];
export const eventNames = Object.keys(events) as EventName[];

export function isOpName(name: unknown): name is OpName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(operations, name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}

/** What both transports expose to the renderer: `window.toolsmith` has exactly this shape. */
export interface ContractClient {
  call<N extends OpName>(name: N, input: OpInput<N>): Promise<import('./errors').Result<OpOutput<N>>>;
  on<N extends EventName>(name: N, handler: (payload: EventPayload<N>) => void): () => void;
}
