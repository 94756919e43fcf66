/** What the first-run checklist counts as done, from the data alone. */

/** The built-in `time` bundle (resources/bundles/time): its `now` tool is the one the checklist runs. */
export const TIME_BUNDLE_ID = '01941f29-7c0b-7443-983d-9bd9774e329a';
/** The tool in it the checklist runs. */
export const TIME_NOW_SLUG = 'now';

export interface ChecklistFacts {
  providers: number;
  allowedHosts: readonly string[];
  /** Invocations in the log (any tool, any caller). */
  invocations: number;
}

export interface ChecklistState {
  model: boolean;
  hosts: boolean;
  tool: boolean;
  done: number;
  total: number;
}

export function checklistState(f: ChecklistFacts): ChecklistState {
  const model = f.providers > 0;
  const hosts = f.allowedHosts.length > 0;
  const tool = f.invocations > 0;
  return { model, hosts, tool, done: [model, hosts, tool].filter(Boolean).length, total: 3 };
}
