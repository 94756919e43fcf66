/** What the agent loop says, on the timeline and to the model, in one place. */

export const stepLimitNotice = (steps: number) =>
  `The model stopped after ${steps} steps without a final answer (the step limit). Send a message to let it go on.`;
export const taskStepLimit = (steps: number) => `it reached its step limit (${steps} steps) without handing off a result`;
export const loopNotice = (name: string, times: number) =>
  `The model called ${name} with the same arguments ${times} times in a row, so the turn was stopped. Send a message to let it go on, or change what you ask.`;
export const loopCallError = (times: number) => `not run: the same call was made ${times} times in a row`;
export const modelFailedNotice = (why: string) => `The model could not answer: ${why}`;
export const providerMissing = (why: string) => `The conversation's model cannot be reached: ${why}. Choose another model above the composer, or check Settings → Models.`;
export const STOPPED_NOTICE = 'Stopped.';
export const turnFailedNotice = (why: string) => `The turn ended with an unexpected error: ${why}`;
export const unknownToolError = (name: string, names: readonly string[]) =>
  `there is no tool named '${name}'${names.length ? `; the tools are: ${names.slice(0, 50).join(', ')}${names.length > 50 ? ', ...' : ''}` : ''}`;
export const malformedArgs = (why: string) => `the arguments are not valid JSON (${why}): send a JSON object`;
export const argsNotObject = 'the arguments must be a JSON object';
export const approvalCancelled = 'the turn was stopped before the user answered';
export const runningTurn = (conversationId: string) => `conversation '${conversationId}' already has a running turn: stop it or wait for it to end`;
