/** Running tools as the user asks (the tester, the CLI) and the invocation log (the dispatcher itself is part of the platform). */
import { defineModule } from '../platform/feature-module';
import { invokeHandlers } from './invoke-handlers';

export const invokeModule = defineModule({
  name: 'invoke',
  start: ({ dispatcher, log, events, redact }) => {
    // Every running call's progress, whoever started it (the tester, the palette, a model), reaches the windows.
    const offProgress = dispatcher.onProgress((p) => events.emit('invocation.progress', p));
    // Each batch the log writes: the windows read the history and usage figures of those tools again.
    const offLogged = log.onWritten((toolIds) => events.emit('invocations.logged', toolIds ? { toolIds } : {}));
    const close = () => {
      offProgress();
      offLogged();
    };
    return { api: undefined, handlers: invokeHandlers(dispatcher, log, events, redact), close };
  },
});
