/** Running tools as the user asks (the tester, the CLI) and the invocation log (the dispatcher itself is part of the platform). */
import { defineModule } from '../platform/feature-module';
import { invokeHandlers } from './invoke-handlers';

export const invokeModule = defineModule({
  name: 'invoke',
  start: ({ dispatcher, log, events, redact }) => ({ api: undefined, handlers: invokeHandlers(dispatcher, log, events, redact) }),
});
