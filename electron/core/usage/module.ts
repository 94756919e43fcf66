/** Usage figures: calls per tool and day from the invocation log, and the tokens tool results take in a conversation. */
import { defineModule } from '../platform/feature-module';
import { toolOutputModule } from '../tool-output/module';
import { usageHandlers } from './usage-handlers';

export const usageModule = defineModule({
  name: 'usage',
  start: ({ log, registry, conversations, now, use }) => {
    const toolOutputs = use(toolOutputModule);
    return { api: undefined, handlers: usageHandlers({ log, registry, conversations, now, storedText: (h) => toolOutputs.inlineText(h) }) };
  },
});
