/** Workflows: Markdown files of steps in `<workspace>/workflows`, run step by step. */
import type { Handler } from '../router';
import type { WorkflowRunner } from './workflow-runner';

type WorkflowOps = 'workflows.list' | 'workflows.run' | 'workflows.get' | 'workflows.cancel';

export function workflowHandlers(runner: WorkflowRunner): { [N in WorkflowOps]: Handler<N> } {
  return {
    'workflows.list': () => runner.list(),
    'workflows.run': (input) => runner.start(input.path, input.conversationId),
    'workflows.get': (input) => runner.get(input.runId),
    'workflows.cancel': (input) => ({ cancelled: runner.cancel(input.runId) }),
  };
}
