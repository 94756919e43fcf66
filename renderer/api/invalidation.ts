import type { EventName, OpName } from '../../shared/contract';

/** Which queries each pushed event makes stale. */
export const INVALIDATES: { [E in EventName]: OpName[] } = {
  'settings.changed': ['settings.get', 'app.info'],
  'app.problem': ['app.problems'],
  'store.changed': ['bundles.list', 'bundles.get', 'tools.list', 'tools.search', 'tools.get'],
  'invocation.event': [],
  'secrets.changed': ['secrets.list'],
  'conversations.changed': ['conversations.list', 'conversations.get'],
  'buffers.changed': ['buffers.list', 'buffers.read', 'buffers.search'],
  'workflow.progress': ['workflows.get'],
  'chat.delta': [],
  'chat.turn': ['conversations.get'],
  'providers.changed': ['providers.list'],
  'approvals.changed': ['approvals.list'],
  'toolOutputs.changed': ['toolOutputs.list', 'toolOutputs.read'],
};
