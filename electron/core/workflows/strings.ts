/** What workflows say to the user, in one place. */
import type { WorkflowRun } from '../../../shared/model/workflow';

export const NO_STEPS = 'the workflow has no steps (a step starts with a "## " heading)';

export const NO_MODEL_STEP =
  'No model is set up, so this step was skipped after its directives ran: add a provider under Settings → Models and choose a model for the conversation (or a default model for new conversations), or add `@model none` to the step to run its directives only.';

export const turnEndedWithout = (state: string) => `the model turn ended ${state === 'stopped' ? 'stopped' : 'with an error'} without saying why`;

export const CANCELLED_BY_USER = 'cancelled by the user';

export const stepDirectiveError = (step: string, line: number, column: number, message: string) =>
  `step "${step}", line ${line}, column ${column}: ${message}`;

export const frontMatterError = (line: number, message: string) => `front matter, line ${line}: ${message}`;

export const moreErrors = (n: number) => (n > 0 ? ` (and ${n} more)` : '');

export const notInWorkflowsFolder = (p: string) => `a workflow is a .md file in the workspace's workflows folder (workflows/NAME.md): got '${p}'`;
export const workflowNotFound = (p: string) => `no workflow at '${p}'`;
export const leavesWorkspace = (p: string) => `'${p}' leads outside the workspace through a symbolic link`;
export const tooLarge = (p: string, max: number) => `'${p}' is larger than ${max} bytes`;
export const notText = (p: string) => `'${p}' is not UTF-8 text`;
export const runNotFound = (runId: string) => `no workflow run with id '${runId}' (finished runs are kept only while the app runs)`;

const STATUS_WORDS: Record<WorkflowRun['steps'][number]['status'], string> = {
  pending: 'waiting',
  running: 'running',
  done: 'done',
  error: 'failed',
  skipped: 'skipped (no model is set up)',
  cancelled: 'cancelled',
  'waiting-for-model': 'waiting for a model',
};

/** The notice a conversation gets when a step of a run in it finishes. */
export function stepNotice(run: WorkflowRun, index: number): string {
  const step = run.steps[index]!;
  const why = step.status === 'error' && step.error ? `: ${step.error.message}` : '';
  return `Workflow "${run.title}", step ${index + 1} of ${run.steps.length} "${step.title}": ${STATUS_WORDS[step.status]}${why}`;
}
