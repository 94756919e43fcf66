/**
 * The names of the contract's operations and events, and nothing else: what the preload
 * needs to refuse an unknown name without carrying the schemas (and zod) into the window.
 * Generated from shared/contract.ts by `npx tsx scripts/contract-names.ts`; do not edit.
 */
import type { EventName, OpName } from './contract';

export const OP_NAMES = [
  'app.info',
  'app.ping',
  'app.problems',
  'settings.get',
  'settings.set',
  'bundles.list',
  'bundles.get',
  'bundles.put',
  'bundles.patch',
  'bundles.delete',
  'tools.list',
  'tools.search',
  'tools.get',
  'tools.put',
  'tools.patch',
  'tools.delete',
  'tools.usage',
  'tools.invoke',
  'invocations.list',
  'invocations.get',
  'invocations.cancel',
  'tools.tryDraft',
  'testcases.list',
  'testcases.save',
  'testcases.delete',
  'testcases.runAll',
  'transfer.exportBundle',
  'transfer.importBundle',
  'transfer.parseOpenApi',
  'conversations.list',
  'conversations.create',
  'conversations.rename',
  'conversations.delete',
  'conversations.get',
  'conversations.setContext',
  'conversations.evaluateContext',
  'chat.send',
  'chat.runTool',
  'providers.list',
  'providers.save',
  'providers.delete',
  'providers.test',
  'providers.detect',
  'conversations.setModel',
  'conversations.setTools',
  'conversations.setExtraction',
  'chat.stop',
  'approvals.respond',
  'approvals.list',
  'approvals.revoke',
  'buffers.list',
  'buffers.read',
  'buffers.search',
  'buffers.export',
  'buffers.delete',
  'toolOutputs.list',
  'toolOutputs.read',
  'toolOutputs.extract',
  'toolOutputs.delete',
  'toolOutputs.choose',
  'workspace.list',
  'workspace.read',
  'workspace.open',
  'workflows.list',
  'workflows.run',
  'workflows.get',
  'workflows.cancel',
  'agents.list',
  'agents.get',
  'agents.put',
  'agents.delete',
  'documents.list',
  'documents.get',
  'documents.describe',
  'agents.setEnabled',
  'secrets.list',
  'secrets.set',
  'secrets.setHosts',
  'secrets.delete',
] as const satisfies readonly OpName[];

export const EVENT_NAMES = [
  'settings.changed',
  'app.problem',
  'store.changed',
  'invocation.event',
  'secrets.changed',
  'conversations.changed',
  'buffers.changed',
  'toolOutputs.changed',
  'agents.changed',
  'documents.changed',
  'chat.delta',
  'chat.turn',
  'providers.changed',
  'approvals.changed',
  'workflow.progress',
] as const satisfies readonly EventName[];

const OPS: ReadonlySet<string> = new Set(OP_NAMES);
const EVENTS: ReadonlySet<string> = new Set(EVENT_NAMES);

export function isOpName(name: unknown): name is OpName {
  return typeof name === 'string' && OPS.has(name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && EVENTS.has(name);
}
