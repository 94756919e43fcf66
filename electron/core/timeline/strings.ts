/** What the chat says to the user, in one place. */

export const DEFAULT_TITLE = 'New conversation';

/** The longest title taken from a first message (longer lines are cut with an ellipsis). */
export const AUTO_TITLE_MAX_CHARS = 80;

export const NO_MODEL_NOTICE =
  'No model is connected to this conversation: the message was kept and its directives ran. Choose a model above the composer, or add a provider in Settings → Models (a local Ollama or LM Studio is offered when it runs). Meanwhile, use + to run a tool, or add `@model none` to run directives only.';
export const DIRECTIVES_ONLY_NOTICE =
  'The message holds only directives: they ran, and the model was not asked (it would have got an empty message). Write some text with them to ask the model, or add `@model none` to run directives without this notice.';
export const turnNotStarted = (why: string) => `The model was not asked: ${why}`;

export const conversationNotFound = (id: string) => `no conversation with id '${id}'`;
export const notAUserMessage = (id: string) => `message '${id}' is not one you wrote: only your own messages are edited and sent again`;
export const editWhileRunning = () => 'a model turn is running in this conversation: stop it (or wait for it) before editing a message';
export const NOTHING_TO_REGENERATE = 'there is no message of yours before this one to answer again';
export const REGENERATE_MODEL_NONE = 'that message says @model none: no model answers it, so there is nothing to ask again';
export const REGENERATE_NO_MODEL = 'no model is set for this conversation: pick one to ask again';
export const messageNotFound = (id: string) => `no message with id '${id}' in this conversation`;
export const attachmentNotFound = (n: number, messageId: string) => `message ${messageId} has no attachment ${n}: reload the conversation`;
export const conversationGone = (id: string) => `conversation '${id}' was deleted while this ran`;
export const duplicateSectionId = (id: string) => `two context sections have the id '${id}': each section needs its own`;
export const routingFailed = (dest: string, why: string) => `the result could not be written to ${dest}: ${why}`;
export const directivesFailed = (why: string) => `the directives could not run: ${why}`;
export const directiveErrorAt = (line: number, column: number, message: string) => `line ${line}, column ${column}: ${message}`;
export const APP_CLOSED_CALL = 'the app closed before this call finished';
export const APP_CLOSED_TASK = 'the app closed while this task ran';
export const taskNotFound = (id: string) => `no task with id '${id}'`;
export const notABranchPoint = (id: string) => `message '${id}' has no other versions: only a message that was edited and sent again can switch between them`;
export const noSuchBranch = (branch: number, count: number) => `there is no version ${branch + 1} of this message: it has ${count} (0 to ${count - 1})`;
export const switchWhileRunning = () => 'a model turn is running in this conversation: stop it (or wait for it) before switching to another version of a message';
