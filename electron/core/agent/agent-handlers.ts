/** A conversation's model and tools, stopping a turn, approvals. */
import { AppError } from '../../../shared/errors';
import type { Provider } from '../../../shared/model/provider';
import type { Handler } from '../router';
import type { ConversationStore } from '../timeline/conversation-store';
import type { ApprovalStore } from './approvals';
import type { AgentLoop } from './types';

type AgentOps = 'conversations.setModel' | 'conversations.setTools' | 'conversations.setExtraction' | 'conversations.setOptions' | 'chat.stop' | 'approvals.respond' | 'approvals.check' | 'approvals.list' | 'approvals.revoke';

export interface AgentHandlerDeps {
  conversations: ConversationStore;
  loop: AgentLoop;
  approvals: ApprovalStore;
  /** The saved providers: a conversation's model must name one of them. */
  providers?: { list(): Provider[] };
}

export const providerNotFound = (id: string) => `no provider with id '${id}': add it in Settings → Models first`;

export function agentHandlers(deps: AgentHandlerDeps): { [N in AgentOps]: Handler<N> } {
  const { conversations, loop, approvals } = deps;
  return {
    'conversations.setModel': (input) => {
      conversations.get(input.id);
      if (input.model && deps.providers && !deps.providers.list().some((p) => p.id === input.model!.providerId)) {
        throw new AppError('NOT_FOUND', providerNotFound(input.model.providerId), { field: 'model.providerId', id: input.model.providerId });
      }
      return conversations.setModel(input.id, input.model);
    },
    'conversations.setTools': (input) => conversations.setTools(input.id, input.tools),
    'conversations.setExtraction': (input) => conversations.setExtraction(input.id, input.extraction),
    'conversations.setOptions': (input) =>
      conversations.setOptions(input.id, {
        ...(input.systemPrompt !== undefined ? { systemPrompt: input.systemPrompt } : {}),
        ...(input.params !== undefined ? { params: input.params } : {}),
      }),
    'chat.stop': (input) => {
      conversations.get(input.conversationId);
      return { stopped: loop.stop(input.conversationId) };
    },
    'approvals.respond': (input) => {
      conversations.get(input.conversationId);
      // A reason goes with a denial only.
      const reason = input.decision === 'deny' && input.reason ? [input.reason] : [];
      return { accepted: loop.respond(input.conversationId, input.invocationId, input.decision, input.args, ...reason) };
    },
    'approvals.check': (input) => {
      conversations.get(input.conversationId);
      const issues = loop.checkEdited(input.conversationId, input.invocationId, input.args);
      return { waiting: issues !== null, issues: issues ? [...issues] : [] };
    },
    'approvals.list': () => approvals.list(),
    'approvals.revoke': async (input) => {
      if (input.scope === 'conversation' && !input.conversationId) {
        throw new AppError('VALIDATION_FAILED', 'a rule for one conversation is revoked with its conversationId', { field: 'conversationId' });
      }
      return { revoked: await approvals.revoke(input.toolId, input.scope, input.conversationId) };
    },
  };
}
