/** Workflows: Markdown files of steps in `<workspace>/workflows`. */
import { z } from 'zod';
import { WorkflowRunSchema, WorkflowSummarySchema } from '../model/workflow';
import { Empty, Key, type EventTable, type OperationTable } from './common';

export const workflowsOperations = {
  'workflows.list': { input: Empty, output: z.array(WorkflowSummarySchema) },
  'workflows.run': { input: z.object({ path: z.string().min(1).max(4096), conversationId: Key.optional() }).strict(), output: WorkflowRunSchema },
  'workflows.get': { input: z.object({ runId: Key }).strict(), output: WorkflowRunSchema },
  'workflows.cancel': { input: z.object({ runId: Key }).strict(), output: z.object({ cancelled: z.boolean() }).strict() },
} as const satisfies OperationTable;

export const workflowsEvents = {
  /** A workflow run moved on (a step started or finished, the run ended). */
  'workflow.progress': WorkflowRunSchema,
} as const satisfies EventTable;
