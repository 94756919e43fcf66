/** Running tools as the user asks (the tester, the CLI), the invocation log, and usage figures (the dispatcher itself is part of the platform). */
import { invokeHandlers } from '../handlers/invoke-handlers';
import { usageHandlers } from '../handlers/usage-handlers';
import { defineModule } from '../platform/module';
import { toolOutputModule } from '../tool-output/module';

export const invokeModule = defineModule({
  name: 'invoke',
  start: ({ dispatcher, log, events, redact, registry, conversations, now, use }) => {
    const toolOutputs = use(toolOutputModule);
    return {
      api: undefined,
      handlers: { ...invokeHandlers(dispatcher, log, events, redact), ...usageHandlers({ log, registry, conversations, now, storedText: (h) => toolOutputs.inlineText(h) }) },
    };
  },
});
