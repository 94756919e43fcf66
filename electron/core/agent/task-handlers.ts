/** The task graph of a conversation, the approvals waiting in its tasks, and the user's answers to agents' questions (docs/design/orchestration.md). */
import type { Handler } from '../router';
import type { ConversationStore } from '../timeline/conversation-store';
import { waitingApprovals } from '../timeline/task-approvals';
import type { AgentLoopService } from './loop';

type TaskOps = 'tasks.graph' | 'tasks.approvals' | 'tasks.answer';

export function taskHandlers(deps: { conversations: ConversationStore; loop: Pick<AgentLoopService, 'answer' | 'isRunning'> }): { [N in TaskOps]: Handler<N> } {
  const { conversations, loop } = deps;
  return {
    'tasks.graph': (input) => {
      // A task's own conversation leads to its root's graph.
      const rootId = conversations.taskOf(input.conversationId)?.rootId ?? input.conversationId;
      conversations.get(rootId);
      return { rootId, tasks: conversations.tasks(rootId) };
    },
    'tasks.approvals': (input) => ({ approvals: waitingApprovals(conversations, input.conversationId, (id) => loop.isRunning(id)) }),
    'tasks.answer': (input) => {
      conversations.task(input.questionId);
      return { accepted: loop.answer(input.questionId, input.answer) };
    },
  };
}
