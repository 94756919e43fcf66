/** The tasks below a conversation: their graph, the calls waiting for approval in them, the answers to agents' questions. */
import { z } from 'zod';
import { TaskApprovalSchema, TaskGraphSchema } from '../model/task';
import { Key, type EventTable, type OperationTable } from './common';

export const tasksOperations = {
  /** The tasks below a conversation (docs/design/orchestration.md): delegations and questions, for the graph. A task's own id leads to its root's. */
  'tasks.graph': { input: z.object({ conversationId: Key }).strict(), output: TaskGraphSchema },
  /**
   * The calls waiting for the user's approval in a conversation and every task below it, at any
   * depth (a task's own id: that task and the tasks below it), each with its task path.
   */
  'tasks.approvals': { input: z.object({ conversationId: Key }).strict(), output: z.object({ approvals: z.array(TaskApprovalSchema) }).strict() },
  /** The user's answer to an agent's question (a question card); accepted false when it no longer waits. */
  'tasks.answer': { input: z.object({ questionId: Key, answer: z.string().trim().min(1, 'an answer is required').max(64 * 1024) }).strict(), output: z.object({ accepted: z.boolean() }).strict() },
} as const satisfies OperationTable;

export const tasksEvents = {
  /** A task below the conversation was made or changed. */
  'tasks.changed': z.object({ rootId: z.string() }).strict(),
} as const satisfies EventTable;
