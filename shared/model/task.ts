/**
 * The task graph of a conversation (docs/design/orchestration.md): the conversation is the root
 * task (task 0); each delegation (`route_to_<agent>`) and each question (`ask_master`) is a task
 * below the one that made it, with its own timeline (a hidden conversation of its own for an
 * agent's task).
 */
import { z } from 'zod';
import { ToolCardSchema } from './conversation';

export const TaskStatusSchema = z.enum(['running', 'blocked', 'waiting', 'done', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export const TaskSchema = z
  .object({
    /** The task's own conversation (its timeline); for a question, its id. */
    id: z.string(),
    /** The user's conversation: task 0. */
    rootId: z.string(),
    /** The task that made this one (the root's id for its direct children). */
    parentId: z.string(),
    /** Task N, counted per root from 1. */
    number: z.number().int().min(1),
    /** agent: a delegation to a profile; question: ask_master, answered by the parent agent or the human. */
    kind: z.enum(['agent', 'question']),
    /** The profile that runs it (agent), or the one who asks (question). */
    agent: z.string(),
    status: TaskStatusSchema,
    /** What it was asked: the request, or the question. */
    request: z.string(),
    /** Documents passed down with it. */
    documents: z.array(z.string()),
    /** Its result, or the answer to the question. */
    result: z.string().optional(),
    /** Documents handed back. */
    resultDocuments: z.array(z.string()).optional(),
    /** Who answered a question: the parent agent's name, or "human". */
    answeredBy: z.string().optional(),
    /** 1 for the root's direct children. */
    depth: z.number().int().min(1),
    /** The call on the parent's timeline that made it (its card). */
    invocationId: z.string(),
    createdAt: z.string(),
    endedAt: z.string().optional(),
    error: z.string().optional(),
  })
  .strict();
export type Task = z.infer<typeof TaskSchema>;

/** A conversation's tasks for the graph: every node below the root, in the order they were made. */
export const TaskGraphSchema = z.object({ rootId: z.string(), tasks: z.array(TaskSchema) }).strict();
export type TaskGraph = z.infer<typeof TaskGraphSchema>;

/**
 * A model's call waiting for the user (an approval, or a memory consent) somewhere in a
 * conversation's task tree: the chat shows it on the root conversation's delegation card.
 */
export const TaskApprovalSchema = z
  .object({
    /** The timeline the call waits on (a task's own conversation): answer with approvals.respond there. */
    conversationId: z.string(),
    /** The task's number (absent when the call waits on the conversation asked about itself, the root). */
    taskNumber: z.number().int().min(1).optional(),
    /** The agents from the root conversation down to the task, e.g. ["analyst", "writer"]; empty for the root itself. */
    path: z.array(z.string()),
    /** The call's card as it waits. */
    card: ToolCardSchema,
  })
  .strict();
export type TaskApproval = z.infer<typeof TaskApprovalSchema>;
