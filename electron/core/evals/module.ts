/** Evals (docs/evals.md): eval cases per bundle, runs of them against models as chat turns, saved runs compared. */
import { defineModule } from '../platform/feature-module';
import { agentModule } from '../agent/module';
import { providersModule } from '../agent/providers/module';
import { agentProfilesModule } from '../agent-profiles/module';
import { toolOutputModule } from '../tool-output/module';
import { toolSearchModule } from '../tool-search/module';
import { EvalCaseStore } from './eval-case-store';
import { evalHandlers, evalRuns } from './eval-handlers';
import type { EvalPlatform } from './eval-session';
import { runEvals, type EvalRunOptions } from './run-evals';
import { EvalRunStore } from './run-store';

export const evalsModule = defineModule({
  name: 'evals',
  start: ({ dataDir, now, problems, registry, dispatcher, routing, settings, redact, workspaceDir, turnContributions, conversations, events, forgetPrivateConversation, use }) => {
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
      // An attempt's conversations were never in the timeline: no window is told. Their buffers
      // go (the chat's delete removes a conversation's), then what every feature kept for them.
      forget: async (conversationIds) => {
        for (const id of conversationIds) {
          try {
            await routing.buffers.deleteOwner(id);
          } catch (e) {
            problems.report({ kind: 'io-error', path: id, message: `could not remove the buffers of an eval attempt: ${(e as Error).message}` });
          }
          await forgetPrivateConversation(id);
        }
      },
    };
    const saveFailed = (runId: string, message: string) => problems.report({ kind: 'io-error', path: saved.dir, message: `the eval run ${runId} could not be saved: ${message}` });
    // A run ends when it is saved (a run of no case is not): stop() waits for both.
    const run = async (o: EvalRunOptions) => {
      const done = await runEvals({ platform, store: registry.store, providers, clients, dispatcher, now }, o);
      if (done.results.length) await saved.save(done).catch((e: unknown) => saveFailed(done.id, (e as Error).message));
      return done;
    };
    const active = evalRuns(now);
    return {
      api: { cases, saved },
      handlers: evalHandlers({ cases, saved, run, active, toolStore: registry.store, conversations, events }),
      stop: async () => {
        active.cancelAll();
        await active.idle();
      },
    };
  },
});
