/** Evals (docs/evals.md): eval cases per bundle, runs of them against models as chat turns, saved runs compared. */
import { defineModule } from '../platform/feature-module';
import { agentModule } from '../agent/module';
import { providersModule } from '../agent/providers/module';
import { agentProfilesModule } from '../agent-profiles/module';
import { toolOutputModule } from '../tool-output/module';
import { toolSearchModule } from '../tool-search/module';
import { EvalCaseStore } from './eval-case-store';
import { evalHandlers } from './eval-handlers';
import { EvalRuns } from './eval-runs';
import type { EvalPlatform } from './eval-session';
import { runEvals } from './run-evals';
import { EvalRunStore } from './run-store';

export const evalsModule = defineModule({
  name: 'evals',
  start: ({ dataDir, now, problems, registry, dispatcher, routing, settings, redact, workspaceDir, turnContributions, conversations, events, use }) => {
    const { clients, providers } = use(providersModule);
    const { approvals } = use(agentModule);
    const toolOutputs = use(toolOutputModule);
    const { semantic } = use(toolSearchModule);
    const agentProfiles = use(agentProfilesModule);
    const cases = new EvalCaseStore({ dataDir, now, problems: (p) => problems.report(p) });
    const saved = new EvalRunStore({ dataDir, now, problems: (p) => problems.report(p) });
    // What a chat turn stands on (agent/module.ts builds the chat's loop from the same).
    const platform: EvalPlatform = {
      clients,
      dispatcher,
      routing,
      approvals,
      settings,
      store: registry.store,
      now,
      redact,
      toolOutputs,
      semantic,
      contributions: turnContributions,
      tasks: {
        agents: { enabled: (name: string) => agentProfiles.enabled(name), list: () => agentProfiles.list().filter((v) => v.enabled).map((v) => v.profile) },
        workspaceDir,
        maxDepth: () => settings.get().maxDelegationDepth,
      },
      // Told as any deleted conversation is, so every feature forgets what it kept for the attempt.
      forget: (conversationId) => events.emit('conversations.changed', { conversationId, kind: 'deleted' }),
    };
    const active = new EvalRuns((o) => runEvals({ platform, store: registry.store, providers, clients, dispatcher, now }, o), now);
    return {
      api: { cases, saved },
      handlers: evalHandlers({
        cases,
        saved,
        active,
        toolStore: registry.store,
        conversations,
        events,
        saveFailed: (runId, message) => problems.report({ kind: 'io-error', path: saved.dir, message: `the eval run ${runId} could not be saved: ${message}` }),
      }),
      stop: async () => {
        active.cancelAll();
        await active.idle();
      },
    };
  },
});
