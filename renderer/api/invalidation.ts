/**
 * What each pushed event does to the query cache. Queries are keyed [operation, input]
 * (see queryKey), so an event touches only the queries its payload names: a buffer's pages
 * by owner and name, one conversation by id. A conversation's new rows come with the event
 * and are put into the cache; nothing is read again for them.
 */
import type { Query, QueryClient } from '@tanstack/react-query';
import type { EventName, EventPayload, OpInput, OpName } from '../../shared/contract';
import { patchConversation, patchConversationLists, withMessages, withoutRunningTurn, withRunningTurn } from './conversation-cache';

type Handler<E extends EventName> = (qc: QueryClient, payload: EventPayload<E>) => void;

/** Marks the queries of these operations stale (the ones on screen are read again). */
export function invalidateOps(qc: QueryClient, ...ops: OpName[]): void {
  for (const op of ops) void qc.invalidateQueries({ queryKey: [op] });
}

/** Marks stale the queries of `op` whose input passes `test`. */
export function invalidateWhere<N extends OpName>(qc: QueryClient, op: N, test: (input: OpInput<N>) => boolean): void {
  void qc.invalidateQueries({ queryKey: [op], predicate: (q: Query) => test((q.queryKey[1] ?? {}) as OpInput<N>) });
}

const ops =
  (...names: OpName[]): Handler<EventName> =>
  (qc) =>
    invalidateOps(qc, ...names);

const conversation = (qc: QueryClient, id: string) => invalidateWhere(qc, 'conversations.get', (i) => i.id === id);

const HANDLERS: { [E in EventName]: Handler<E> } = {
  'settings.changed': ops('settings.get', 'app.info'),
  'app.problem': ops('app.problems'),
  'store.changed': ops('bundles.list', 'bundles.get', 'tools.list', 'tools.search', 'tools.get'),
  'invocation.event': () => undefined,
  // A suite's steps: the report that started it follows its own run id.
  'testcases.suiteProgress': () => undefined,
  'secrets.changed': ops('secrets.list'),
  'conversations.changed': (qc, c) => {
    if (c.kind === 'messages' && c.messages && c.conversation) {
      const { messages, conversation: now } = c;
      patchConversation(qc, c.conversationId, (old) => withMessages({ ...old, conversation: now }, messages));
      patchConversationLists(qc, now);
      return;
    }
    // created: only the lists know it; deleted, renamed, context, or rows without the event's copy: the one conversation too.
    invalidateOps(qc, 'conversations.list');
    if (c.kind !== 'created') conversation(qc, c.conversationId);
  },
  'buffers.changed': (qc, { ownerId, names }) => {
    invalidateWhere(qc, 'buffers.list', (i) => i.ownerId === ownerId);
    invalidateWhere(qc, 'buffers.read', (i) => i.ownerId === ownerId && names.includes(i.name));
    invalidateWhere(qc, 'buffers.search', (i) => i.ownerId === ownerId && names.includes(i.name));
  },
  'workflow.progress': (qc, run) => invalidateWhere(qc, 'workflows.get', (i) => i.runId === run.runId),
  'chat.delta': () => undefined,
  'chat.turn': (qc, t) => {
    patchConversation(qc, t.conversationId, (old) => (t.state === 'running' ? withRunningTurn(old, t.turnId) : withoutRunningTurn(old, t.turnId)));
  },
  'providers.changed': ops('providers.list'),
  'approvals.changed': ops('approvals.list'),
  'mcpServers.changed': ops('mcpServers.list', 'mcpServers.log'),
  'mcpServer.approvalsChanged': ops('mcpServer.approvals'),
  'toolOutputs.changed': (qc, { conversationId }) => {
    invalidateWhere(qc, 'toolOutputs.list', (i) => i.conversationId === undefined || i.conversationId === conversationId);
    // A read names a handle, not its conversation.
    invalidateOps(qc, 'toolOutputs.read');
  },
  'agents.changed': ops('agents.list', 'agents.get'),
  'documents.changed': ops('documents.list', 'documents.get'),
  'memory.changed': ops('memory.blocks.list', 'memory.blocks.get', 'memory.blocks.history', 'memory.recall.search', 'memory.sources.list'),
  // The file tool is there only while a FileSource is.
  'memory.sources.changed': ops('memory.sources.list', 'memory.sources.configs', 'tools.list', 'tools.search', 'tools.get', 'bundles.get'),
  'tasks.changed': ops('tasks.graph'),
};

/** Applies one pushed event to the cache. */
export function applyEvent<E extends EventName>(qc: QueryClient, name: E, payload: EventPayload<E>): void {
  (HANDLERS[name] as Handler<E>)(qc, payload);
}
