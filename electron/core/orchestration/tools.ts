/**
 * The orchestration tools a task's model may be given (docs/design/orchestration.md): one
 * `route_to_<name>` per agent profile it may delegate to (agent-as-tool), `handoff` (finish the
 * task) and `ask_master` (ask the task that delegated, or the human for the root's children).
 */
import type { AgentProfile } from '../../../shared/model/agent-profile';

export interface OrchestrationToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export const ROUTE_PREFIX = 'route_to_';
export const HANDOFF_NAME = 'handoff';
export const ASK_MASTER_NAME = 'ask_master';

const DOCUMENTS = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 4096 },
  maxItems: 50,
  description: 'Workspace paths of files to pass along (e.g. "reports/q3.md"); they are loaded into the receiver\'s context.',
} as const;

export function routeToolName(agent: string): string {
  return `${ROUTE_PREFIX}${agent}`;
}

/** The agent a `route_to_<name>` tool delegates to, or undefined. */
export function routedAgent(toolName: string): string | undefined {
  return toolName.startsWith(ROUTE_PREFIX) && toolName.length > ROUTE_PREFIX.length ? toolName.slice(ROUTE_PREFIX.length) : undefined;
}

export function routeToolSpec(p: AgentProfile): OrchestrationToolSpec {
  return {
    name: routeToolName(p.name),
    description: `Delegate a task to the ${p.displayName ?? p.name} agent and wait for its result. ${p.description}`,
    parameters: {
      type: 'object',
      properties: {
        request: { type: 'string', minLength: 1, maxLength: 64 * 1024, description: 'What the agent should do, with everything it needs to know: it sees nothing else of this conversation.' },
        documents: DOCUMENTS,
      },
      required: ['request'],
      additionalProperties: false,
    },
  };
}

export const HANDOFF_SPEC: OrchestrationToolSpec = {
  name: HANDOFF_NAME,
  description:
    'Finish your task: give your result to the one who asked, with the workspace files you made or used as documents. Call it once, when the task is done (or cannot be done: say why); nothing you do after it runs.',
  parameters: {
    type: 'object',
    properties: {
      result: { type: 'string', minLength: 1, maxLength: 64 * 1024, description: 'Your answer or a summary of what you did and found.' },
      documents: DOCUMENTS,
    },
    required: ['result'],
    additionalProperties: false,
  },
};

export const ASK_MASTER_SPEC: OrchestrationToolSpec = {
  name: ASK_MASTER_NAME,
  description:
    'Ask the one who gave you this task a question you cannot answer yourself (an ambiguity, a missing fact, a decision that is theirs). You wait for the answer, then go on.',
  parameters: {
    type: 'object',
    properties: {
      question: { type: 'string', minLength: 1, maxLength: 16 * 1024, description: 'The question, complete in itself.' },
      documents: DOCUMENTS,
    },
    required: ['question'],
    additionalProperties: false,
  },
};

/** The arguments of the three tools, checked loosely (the dispatcher-free path): strings where strings are due. */
export function documentsArg(args: Record<string, unknown>): string[] {
  const d = args.documents;
  if (d === undefined) return [];
  if (!Array.isArray(d) || d.some((x) => typeof x !== 'string' || x === '')) throw new Error('documents must be a list of workspace paths');
  return [...new Set(d as string[])];
}

export function textArg(args: Record<string, unknown>, name: 'request' | 'result' | 'question'): string {
  const v = args[name];
  if (typeof v !== 'string' || v.trim() === '') throw new Error(`${name} must be a non-empty string`);
  return v;
}
