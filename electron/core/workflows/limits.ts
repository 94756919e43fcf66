/** Size limits of workflows: files read and runs kept. Internal constants, not user settings. */

/** The largest workflow file read (bytes); a bigger one is listed with an error and not run. */
export const WORKFLOW_FILE_MAX_BYTES = 1024 * 1024;

/** Workflow files `workflows.list` reads at most (the first ones by name). */
export const WORKFLOWS_LIST_MAX = 500;

/** Finished workflow runs kept in memory for workflows.get (the oldest go first). */
export const WORKFLOW_FINISHED_RUNS_KEPT = 50;
