/** The task graph of a conversation, and the user's answers to agents' questions (seed 003). */
import type { Handler } from '../router';
import type { ConversationStore } from '../timeline/conversation-store';
import type { AgentLoopService } from '../agent/loop';

type TaskOps = 'tasks.graph' | 'tasks.answer';

export function taskHandlers(deps: { conversations: ConversationStore; loop: Pick<AgentLoopService, 'answer'> }): { [N in TaskOps]: Handler<N> } {
  const { conversations, loop } = deps;
  return {
    'tasks.graph': (input) => {
      // A task's own conversation leads to its root's graph.
      const rootId = conversations.taskOf(input.conversationId)?.rootId ?? input.conversationId;
      conversations.get(rootId);
      return { rootId, tasks: conversations.tasks(rootId) };
    },
    'tasks.answer': (input) => {
      conversations.task(input.questionId);
      return { accepted: loop.answer(input.questionId, input.answer) };
    },
  };
}
