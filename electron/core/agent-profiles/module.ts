/** Agent profiles (docs/design/orchestration.md): the agents a conversation's model may delegate to. */
import { agentProfileHandlers } from './agent-profile-handlers';
import { defineModule } from '../platform/feature-module';
import { AgentProfileStore } from './profile-store';

export const agentProfilesModule = defineModule({
  name: 'agent-profiles',
  start: async ({ dataDir, config, now, problems, events }) => {
    const agentProfiles = await AgentProfileStore.open({ dataDir, resourcesDir: config.resourcesDir, now, report: (p) => problems.report(p), onChange: () => events.emit('agents.changed', {}) });
    return { api: agentProfiles, handlers: agentProfileHandlers(agentProfiles) };
  },
});
