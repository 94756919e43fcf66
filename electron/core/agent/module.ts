/**
 * The agent: model turns in a conversation (./loop.ts), the approvals they ask, and the tasks
 * a model delegates to agent profiles (docs/design/orchestration.md). What other features add
 * to a turn comes through the platform's turn contributions.
 */
import { agentHandlers } from './agent-handlers';
import { taskHandlers } from './task-handlers';
import { defineModule } from '../platform/feature-module';
import { agentProfilesModule } from '../agent-profiles/module';
import { toolOutputModule } from '../tool-output/module';
import { toolSearchModule } from '../tool-search/module';
import { ApprovalStore } from './approvals';
import { createAgentLoop } from './loop';
import { providersModule } from './providers/module';

/** How long close() waits for stopped model turns to end. */
const TURNS_SETTLE_MS = 2_000;

export const agentModule = defineModule({
  name: 'agent',
  start: async ({ dataDir, now, problems, events, conversations, dispatcher, registry, routing, settings, redact, workspaceDir, turnContributions, use }) => {
    const { clients, providers } = use(providersModule);
    const toolOutputs = use(toolOutputModule);
    const agentProfiles = use(agentProfilesModule);
    const { semantic } = use(toolSearchModule);
    const approvals = await ApprovalStore.open({ dataDir, now, problems: (p) => problems.report(p), onChange: () => events.emit('approvals.changed', {}) });
    const tasks = {
      agents: { enabled: (name: string) => agentProfiles.enabled(name), list: () => agentProfiles.list().filter((v) => v.enabled).map((v) => v.profile) },
      workspaceDir,
      maxDepth: () => settings.get().maxDelegationDepth,
    };
    const agent = createAgentLoop({ conversations, clients, dispatcher, registry, routing, approvals, settings, events, now, redact, toolOutputs, tasks, semantic, contributions: turnContributions });
    return {
      api: { agent, approvals },
      handlers: { ...taskHandlers({ conversations, loop: agent }), ...agentHandlers({ conversations, loop: agent, approvals, providers }) },
      // A conversation's remembered approvals go with it. A private one (an eval attempt's) has
      // none: an unattended run answers allow-once or deny and saves no rule.
      conversationDeleted: async (conversationId, gone) => {
        if (gone.private) return;
        await approvals.forgetConversation(conversationId);
      },
      // Stopped turns append their last rows (cancelled calls, the stop notice) before the
      // timeline closes; one that does not end in time is closed when the store next opens.
      stop: async () => {
        agent.stopAll();
        await agent.settledAll(TURNS_SETTLE_MS);
      },
    };
  },
});
