import { z } from 'zod';
import { ErrorInfoSchema } from '../errors';
import { DirectiveOutcomeSchema } from './conversation';

/**
 * A workflow is a Markdown file in the workspace (`workflows/*.md`):
 *   # Title
 *   ## Step title      (one heading level-2 per step, in order)
 *   directive lines (@input, @tools, @model none) and the step's prompt
 */
export const WorkflowSummarySchema = z
  .object({
    /** Relative to the workspace: `workflows/daily.md`. */
    path: z.string(),
    title: z.string(),
    steps: z.array(z.object({ title: z.string(), modelNone: z.boolean() }).strict()),
    /** Why the file cannot run (no steps, a directive error); absent when it can. */
    error: z.string().optional(),
  })
  .strict();
export type WorkflowSummary = z.infer<typeof WorkflowSummarySchema>;

export const StepStatusSchema = z.enum(['pending', 'running', 'done', 'error', 'skipped', 'cancelled', 'waiting-for-model']);

export const WorkflowRunSchema = z
  .object({
    runId: z.string(),
    path: z.string(),
    title: z.string(),
    /** Where its buffers live: the conversation it runs in, else the run id. */
    ownerId: z.string(),
    conversationId: z.string().optional(),
    status: z.enum(['running', 'done', 'error', 'cancelled']),
    startedAt: z.string(),
    finishedAt: z.string().optional(),
    steps: z.array(
      z
        .object({
          title: z.string(),
          status: StepStatusSchema,
          outcomes: z.array(DirectiveOutcomeSchema),
          error: ErrorInfoSchema.optional(),
          durationMs: z.number().optional(),
        })
        .strict(),
    ),
  })
  .strict();
export type WorkflowRun = z.infer<typeof WorkflowRunSchema>;
