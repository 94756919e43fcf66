/**
 * TOOL_BEHAVIOR (docs/design/orchestration.md, "Tool kinds"): what the agent loop does with a
 * call of each kind of tool, as data. The loop reads the flags and calls the handler registered
 * for the kind; a kind with no handler yet (handoff, agent-as-tool, ask-master) is answered to
 * the model with a clear error, so adding its handler later does not rewrite the loop.
 *
 * | kind           | creates node | blocks parent | executes code | logs          | passes documents | agent action               |
 * | function       | no           | no            | yes           | input+result  | no               | continue (with result)     |
 * | non-function   | no           | no            | no            | input only    | no               | continue (instant)         |
 * | handoff        | no           | no            | no            | input+docs    | yes              | stop + inject docs         |
 * | agent-as-tool  | yes          | yes           | no            | input+status  | yes              | block, then continue       |
 * | ask-master     | yes          | yes           | no            | input+answer  | yes              | block, then continue       |
 * | root           | yes          | no            | no            | task payload  | no               | entry point                |
 */
import { TOOL_OUTPUT_DESCRIPTION, TOOL_OUTPUT_NAME, TOOL_OUTPUT_SCHEMA } from '../tool-output/messages';
import type { ModelToolSpec } from './types';

export type ToolKind = 'function' | 'non-function' | 'handoff' | 'agent-as-tool' | 'ask-master' | 'root';

export type AgentAction = 'continue-with-result' | 'continue-instant' | 'stop-inject-docs' | 'block-then-continue' | 'entry-point';

export interface ToolBehavior {
  createsNode: boolean;
  blocksParent: boolean;
  executesCode: boolean;
  /** What the timeline records of a call. */
  logs: 'input+result' | 'input' | 'input+docs' | 'input+status' | 'input+answer' | 'task-payload';
  passesDocuments: boolean;
  action: AgentAction;
}

export const TOOL_BEHAVIOR: Readonly<Record<ToolKind, Readonly<ToolBehavior>>> = {
  function: { createsNode: false, blocksParent: false, executesCode: true, logs: 'input+result', passesDocuments: false, action: 'continue-with-result' },
  'non-function': { createsNode: false, blocksParent: false, executesCode: false, logs: 'input', passesDocuments: false, action: 'continue-instant' },
  handoff: { createsNode: false, blocksParent: false, executesCode: false, logs: 'input+docs', passesDocuments: true, action: 'stop-inject-docs' },
  'agent-as-tool': { createsNode: true, blocksParent: true, executesCode: false, logs: 'input+status', passesDocuments: true, action: 'block-then-continue' },
  'ask-master': { createsNode: true, blocksParent: true, executesCode: false, logs: 'input+answer', passesDocuments: true, action: 'block-then-continue' },
  root: { createsNode: true, blocksParent: false, executesCode: false, logs: 'task-payload', passesDocuments: false, action: 'entry-point' },
};

/** After a call: go on with the next step, or end the turn (a handoff). */
export function turnGoesOn(kind: ToolKind): boolean {
  const action = TOOL_BEHAVIOR[kind].action;
  return action === 'continue-with-result' || action === 'continue-instant' || action === 'block-then-continue';
}

/** The bundle id the timeline gives the model-only tools (they live in no bundle). */
export const MODEL_TOOLS_BUNDLE = 'model';

/** A tool only the model has: nothing runs; the call is logged and answered at once. */
export interface ModelOnlyTool {
  kind: ToolKind;
  spec: ModelToolSpec;
  displayName: string;
}

/** The non-function tools: a place for the model to think or plan, logged on the timeline. */
export const NON_FUNCTION_TOOLS: readonly ModelOnlyTool[] = [
  {
    kind: 'non-function',
    displayName: 'Stop and think',
    spec: {
      name: 'stop_and_think',
      description:
        'Think before acting: write down your reasoning about what you know, what is missing and what to do next. Nothing runs; the thought is kept on the timeline.',
      parameters: {
        type: 'object',
        properties: { thought: { type: 'string', description: 'Your reasoning, in a few sentences.' } },
        required: ['thought'],
        additionalProperties: false,
      },
    },
  },
  {
    kind: 'non-function',
    displayName: 'Plan next steps',
    spec: {
      name: 'plan_next_steps',
      description: 'Write down the steps you will take next, in order. Nothing runs; the plan is kept on the timeline.',
      parameters: {
        type: 'object',
        properties: {
          steps: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'The steps, in order, one short sentence each.' },
        },
        required: ['steps'],
        additionalProperties: false,
      },
    },
  },
];

/** What the model is told when it calls a tool of a kind this version cannot handle yet. */
export const kindNotHandled = (name: string, kind: ToolKind) =>
  `the tool '${name}' is a ${kind} tool, and ${kind} calls cannot run in this version of Toolsmith; go on without it`;

/**
 * `tool_output` (docs/design/tool-outputs.md): a function tool only the model has, offered while
 * the conversation has stored outputs and not on the turn's last step (decisions 14, 15 there).
 */
export const TOOL_OUTPUT_TOOL: ModelOnlyTool = {
  kind: 'function',
  displayName: 'Tool output',
  spec: { name: TOOL_OUTPUT_NAME, description: TOOL_OUTPUT_DESCRIPTION, parameters: TOOL_OUTPUT_SCHEMA },
};
