/** Workflows (docs/workflows.md): step files run in order; a step for a model runs a turn of the agent loop. */
import { workflowHandlers } from './workflow-handlers';
import { defineModule } from '../platform/feature-module';
import { agentModule } from '../agent/module';
import { agentStepTurns } from './model-steps';
import { WorkflowRunner } from './workflow-runner';

export const workflowsModule = defineModule({
  name: 'workflows',
  start: ({ workspaceDir, routing, conversations, events, now, settings, use }) => {
    const { agent } = use(agentModule);
    const runTurn = agentStepTurns({ agent, conversations, events });
    const workflows = new WorkflowRunner({ workspaceDir, routing, conversations, events, now, runTurn, defaultModel: () => settings.get().defaultModel });
    return { api: workflows, handlers: workflowHandlers(workflows), stop: () => workflows.cancelAll() };
  },
});
