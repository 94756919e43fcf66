/** Conversations, the chat's messages, the `+` palette's runs, context sections. */
import type { ChatService } from './chat-service';
import { exportConversation, importConversation } from './conversation-file';
import type { ConversationStore } from '../timeline/conversation-store';
import type { EventBus } from '../events';
import type { InvokeDispatcher } from '../invoke/dispatcher';
import type { Registry } from '../registry/registry';
import type { Handler } from '../router';
import type { RoutingServices } from '../routing';
import type { AgentLoopService } from '../agent/loop';
import type { SettingsStore } from '../settings/settings-store';

type ChatOps =
  | 'conversations.list'
  | 'conversations.create'
  | 'conversations.rename'
  | 'conversations.delete'
  | 'conversations.get'
  | 'conversations.export'
  | 'conversations.import'
  | 'conversations.attachment'
  | 'conversations.setContext'
  | 'conversations.evaluateContext'
  | 'chat.send'
  | 'chat.runTool'
  | 'chat.edit'
  | 'chat.regenerate'
  | 'conversations.switchBranch';

export interface ChatHandlerDeps {
  /** Emits 'conversations.changed' itself (the timeline's onChange, platform/platform.ts). */
  conversations: ConversationStore;
  routing: RoutingServices;
  dispatcher: Pick<InvokeDispatcher, 'invoke'>;
  registry: Pick<Registry, 'store'>;
  events: EventBus;
  now: () => Date;
  /** New conversations start with Settings' defaultModel. */
  settings?: Pick<SettingsStore, 'get'>;
  /** Oversized tool outputs: the gate of `+` runs. */
  toolOutputs?: import('../tool-output/service').ToolOutputService;
  /** The agent loop: messages for a model start turns; a deleted conversation's turn stops. */
  agent?: Pick<AgentLoopService, 'reserve' | 'stop' | 'runningTurnId' | 'streaming'>;
}

/** The chat's operations over a ChatService the app built (built by chat/module.ts). */
export function chatHandlers(deps: ChatHandlerDeps & { chat: ChatService }): { [N in ChatOps]: Handler<N> } {
  const { conversations, routing, chat } = deps;
  return {
    'conversations.list': (input) => conversations.list(input),
    'conversations.create': (input) => conversations.create(input.title, deps.settings?.get().defaultModel),
    'conversations.rename': (input) => conversations.rename(input.id, input.title),
    'conversations.delete': async (input) => {
      // Its tasks' hidden conversations go with it: their turns, buffers and stored outputs too.
      const taskIds = conversations.tasks(input.id).filter((t) => t.kind === 'agent').map((t) => t.id);
      conversations.delete(input.id);
      for (const id of [input.id, ...taskIds]) {
        deps.agent?.stop(id);
        try {
          await routing.buffers.deleteOwner(id);
        } catch (e) {
          // The conversation is gone either way; its buffers are only left over on disk.
          console.warn(`could not remove the buffers of conversation ${id}:`, (e as Error).message);
        }
        if (id !== input.id) await deps.toolOutputs?.endSession(id).catch(() => undefined);
      }
      return { deleted: true as const };
    },
    'conversations.get': (input) => {
      const runningTurnId = deps.agent?.runningTurnId(input.id);
      const streaming = runningTurnId ? deps.agent?.streaming(input.id) : undefined;
      const branches = conversations.branchPoints(input.id);
      return {
        conversation: conversations.get(input.id),
        messages: conversations.messages(input.id),
        contextSections: conversations.contextSections(input.id),
        ...(runningTurnId ? { runningTurnId } : {}),
        ...(streaming ? { streaming } : {}),
        ...(branches.length > 0 ? { branches } : {}),
      };
    },
    'conversations.export': (input) => exportConversation(conversations, input.id, input.format, deps.now()),
    'conversations.import': (input) => importConversation(conversations, input.text),
    'conversations.attachment': (input) => conversations.attachmentFile(input.id, input.messageId, input.index),
    'conversations.setContext': (input) => conversations.setContext(input.id, input.sections),
    'conversations.evaluateContext': (input) => chat.evaluateContext(input.id),
    'chat.send': (input) => chat.send(input.conversationId, input.text, input.attachments),
    'chat.runTool': (input) => chat.runTool(input),
    'chat.edit': (input) => chat.edit(input.conversationId, input.messageId, input.text),
    'chat.regenerate': (input) => chat.regenerate(input.conversationId, input.messageId),
    'conversations.switchBranch': (input) => chat.switchBranch(input.id, input.messageId, input.branch),
  };
}
