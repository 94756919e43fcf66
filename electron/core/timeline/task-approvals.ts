/**
 * The calls waiting for the user's approval (or a memory consent) in a conversation's task tree
 * (docs/design/orchestration.md): a task's call waits on the task's own timeline, however deep it
 * is, and the chat shows it on the root conversation's delegation card, labelled with the task
 * path ("analyst → writer"). Read from the timelines: a call's latest row is its state.
 */
import type { ToolCard } from '../../../shared/model/conversation';
import type { Task, TaskApproval } from '../../../shared/model/task';
import type { ConversationStore } from './conversation-store';

const TASK_OPEN: ReadonlySet<Task['status']> = new Set(['running', 'blocked', 'waiting']);

/**
 * The waiting calls of `conversationId` (the root conversation, or a task's own) and of every
 * agent task below it, at any depth, in task order. Only timelines whose turn runs now are
 * read (`running`): a card left waiting by a turn that ended is no question for anyone.
 */
export function waitingApprovals(store: Pick<ConversationStore, 'get' | 'taskOf' | 'tasks' | 'messages'>, conversationId: string, running: (conversationId: string) => boolean): TaskApproval[] {
  store.get(conversationId);
  const here = store.taskOf(conversationId);
  const rootId = here?.rootId ?? conversationId;
  const tasks = store.tasks(rootId);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  // The tree below `conversationId`: tasks come in the order they were made, so a parent comes before its children.
  const inTree = new Set([conversationId]);
  for (const t of tasks) if (inTree.has(t.parentId)) inTree.add(t.id);
  const path = (t: Task | undefined): string[] => {
    const names: string[] = [];
    for (let at = t; at; at = byId.get(at.parentId)) names.unshift(at.agent);
    return names;
  };
  const out: TaskApproval[] = [];
  const read = (id: string, task: Task | undefined) => {
    if (!running(id)) return;
    for (const card of waitingCards(store.messages(id))) {
      out.push({ conversationId: id, ...(task ? { taskNumber: task.number } : {}), path: path(task), card });
    }
  };
  read(conversationId, here);
  for (const t of tasks) {
    if (t.id === conversationId || !inTree.has(t.id) || t.kind !== 'agent' || !TASK_OPEN.has(t.status)) continue;
    read(t.id, t);
  }
  return out;
}

/** The cards whose latest row waits for the user's approval (or consent), in the order they were first seen. */
function waitingCards(messages: readonly { tool?: ToolCard }[]): ToolCard[] {
  const latest = new Map<string, ToolCard>();
  for (const m of messages) if (m.tool) latest.set(m.tool.invocationId, m.tool);
  return [...latest.values()].filter((c) => c.status === 'awaiting-approval' && !c.consent?.answer);
}
