/**
 * What each pushed event does to the query cache. Queries are keyed [operation, input]
 * (see queryKey), so an event touches only the queries its payload names: a buffer's pages
 * by owner and name, one conversation by id. A conversation's new rows come with the event
 * and are put into the cache; nothing is read again for them.
 */
import type { Query, QueryClient } from '@tanstack/react-query';
import type { EventName, EventPayload, OpInput, OpName, OpOutput } from '../../shared/contract';
import type { Message } from '../../shared/model/conversation';
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

/**
 * The calls waiting for approval in task trees (tasks.approvals) are read again when a row may
 * change them: a call starting to wait, a row of a call listed as waiting (answered, cancelled),
 * or rows the event does not carry. Any conversation's rows count: a task's timeline is one.
 */
function approvalsTouched(qc: QueryClient, rows: readonly Message[] | undefined): void {
  const calls = rows?.filter((m) => m.tool) ?? [];
  if (rows && calls.length === 0) return;
  const listed = new Set<string>();
  for (const [, data] of qc.getQueriesData<OpOutput<'tasks.approvals'>>({ queryKey: ['tasks.approvals'] })) for (const a of data?.approvals ?? []) listed.add(a.card.invocationId);
  if (!rows || calls.some((m) => m.tool!.status === 'awaiting-approval' || listed.has(m.tool!.invocationId))) invalidateOps(qc, 'tasks.approvals');
}

const HANDLERS: { [E in EventName]: Handler<E> } = {
  'settings.changed': ops('settings.get', 'app.info'),
  'app.problem': ops('app.problems'),
  'store.changed': ops('bundles.list', 'bundles.get', 'tools.list', 'tools.search', 'tools.find', 'tools.get', 'tools.approval', 'tools.findability', 'tools.scriptSource'),
  'invocation.event': () => undefined,
  // A running call's progress: kept outside the query cache (components/invocation-progress.ts).
  'invocation.progress': () => undefined,
  'invocations.logged': (qc, { toolIds }) => {
    if (!toolIds) return invalidateOps(qc, 'invocations.list', 'tools.usageSummaries', 'tools.usageStats');
    invalidateWhere(qc, 'invocations.list', (i) => i.toolId === undefined || toolIds.includes(i.toolId));
    invalidateWhere(qc, 'tools.usageSummaries', (i) => i.toolIds.some((id) => toolIds.includes(id)));
    // Its input names the tool by bundle, slug and version, not by id: one is on screen at most.
    invalidateOps(qc, 'tools.usageStats');
  },
  // A suite's steps: the report that started it follows its own run id.
  'testcases.suiteProgress': () => undefined,
  // Its end: its calls reach the invocation log's readers with 'invocations.logged'.
  'testcases.suiteDone': () => undefined,
  // An eval run's steps: the report that started it follows its own run id.
  'evals.progress': () => undefined,
  // Its end: a run was saved.
  'evals.done': ops('evals.listRuns'),
  'secrets.changed': ops('secrets.list'),
  'conversations.changed': (qc, c) => {
    if (c.kind === 'messages') approvalsTouched(qc, c.messages);
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
  'mcpElicitations.changed': ops('mcpElicitations.list'),
  // An app the core closed: its frame finds out at its next request ("this app was closed").
  'mcpApps.closed': () => undefined,
  'toolOutputs.changed': (qc, { conversationId }) => {
    invalidateWhere(qc, 'toolOutputs.list', (i) => i.conversationId === undefined || i.conversationId === conversationId);
    // A read names a handle, not its conversation.
    invalidateOps(qc, 'toolOutputs.read');
  },
  'agents.changed': ops('agents.list', 'agents.get'),
  'documents.changed': ops('documents.list', 'documents.get'),
  'memory.changed': ops('memory.blocks.list', 'memory.blocks.get', 'memory.blocks.history', 'memory.recall.search', 'memory.sources.list'),
  // The file tool is there only while a FileSource is.
  'memory.sources.changed': ops('memory.sources.list', 'memory.sources.configs', 'tools.list', 'tools.search', 'tools.find', 'tools.get', 'bundles.get'),
  // A task that ends takes its waiting calls with it.
  'tasks.changed': ops('tasks.graph', 'tasks.approvals'),
};

/** Applies one pushed event to the cache. */
export function applyEvent<E extends EventName>(qc: QueryClient, name: E, payload: EventPayload<E>): void {
  (HANDLERS[name] as Handler<E>)(qc, payload);
}
