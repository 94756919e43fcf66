/**
 * The chat: conversations, messages with directives, tools run from the `+` palette, model
 * turns started, and a conversation's stored outputs as the user sees and routes them.
 */
import { chatHandlers } from './chat-handlers';
import { defineModule } from '../platform/feature-module';
import { agentModule } from '../agent/module';
import { toolOutputModule } from '../tool-output/module';
import { providersModule } from '../agent/providers/module';
import { ChatService } from './chat-service';
import { toolOutputHandlers } from './tool-output-handlers';

export const chatModule = defineModule({
  name: 'chat',
  start: ({ conversations, routing, dispatcher, registry, now, events, settings, use }) => {
    const { agent } = use(agentModule);
    const toolOutputs = use(toolOutputModule);
    const { clients } = use(providersModule);
    const chat = new ChatService({ conversations, routing, dispatcher, registry, now, agent, toolOutputs });
    return { api: chat, handlers: { ...chatHandlers({ conversations, routing, dispatcher, registry, events, now, settings, agent, toolOutputs, chat }), ...toolOutputHandlers({ toolOutputs, conversations, clients, settings }) } };
  },
});
