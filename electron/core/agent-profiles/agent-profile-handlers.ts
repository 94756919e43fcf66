/** Agent profiles: listed, read, saved, deleted, enabled (electron/core/agent-profiles). */
import type { AgentProfileStore } from './profile-store';
import type { Handler } from '../router';

type AgentProfileOps = 'agents.list' | 'agents.get' | 'agents.put' | 'agents.delete' | 'agents.setEnabled';

export function agentProfileHandlers(store: AgentProfileStore): { [N in AgentProfileOps]: Handler<N> } {
  return {
    'agents.list': () => store.list(),
    'agents.get': (input) => store.get(input.name),
    'agents.put': (input) => store.put(input.profile),
    'agents.delete': async (input) => {
      await store.delete(input.name);
      return { deleted: true as const };
    },
    'agents.setEnabled': (input) => store.setEnabled(input.name, input.enabled),
  };
}
