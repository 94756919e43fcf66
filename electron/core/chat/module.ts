/** The chat: conversations, messages with directives, tools run from the `+` palette, and model turns started. */
import { chatHandlers } from '../handlers/chat-handlers';
import { defineModule } from '../platform/module';
import { agentModule } from '../agent/module';
import { toolOutputModule } from '../tool-output/module';
import { ChatService } from './chat-service';

export const chatModule = defineModule({
  name: 'chat',
  start: ({ conversations, routing, dispatcher, registry, now, events, settings, use }) => {
    const { agent } = use(agentModule);
    const toolOutputs = use(toolOutputModule);
    const chat = new ChatService({ conversations, routing, dispatcher, registry, now, agent, toolOutputs });
    return { api: chat, handlers: chatHandlers({ conversations, routing, dispatcher, registry, events, now, settings, agent, toolOutputs, chat }) };
  },
});
