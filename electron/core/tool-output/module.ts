/**
 * Oversized tool outputs (docs/design/tool-outputs.md): results too big for the chat are kept
 * behind a handle the model queries. Folders a crashed run left are swept at start; a
 * conversation's outputs go with it.
 */
import { defineModule } from '../platform/feature-module';
import { ToolOutputService } from './service';

export const toolOutputModule = defineModule({
  name: 'tool-outputs',
  start: async ({ settings, now, redact, problems, routing, events, hooks }) => {
    const toolOutputs = new ToolOutputService({
      settings: () => settings.get().toolOutputs,
      now,
      redact,
      onProblem: (message) => problems.report({ kind: 'io-error', path: settings.get().toolOutputs.baseDir || 'the temp folder', message }),
      // A `buffer` choice routes through the routing services.
      router: { route: (r) => routing.router.route(r) },
    });
    await toolOutputs.sweep();
    // A private conversation (an eval attempt's) ending is no window's business.
    const ending = new Set<string>();
    toolOutputs.store.onChange((conversationId) => {
      if (!ending.has(conversationId)) events.emit('toolOutputs.changed', { conversationId });
    });
    hooks.resolveHandle = (handle, ownerId) => toolOutputs.resolveHandle(handle, ownerId);
    hooks.spillFor = (ownerId, meta) => toolOutputs.spillFor(ownerId, meta);
    return {
      api: toolOutputs,
      conversationDeleted: async (conversationId, gone) => {
        if (gone.private) ending.add(conversationId);
        try {
          await toolOutputs.endSession(conversationId);
        } catch (e) {
          problems.report({ kind: 'io-error', path: conversationId, message: `could not remove the stored outputs of a deleted conversation: ${(e as Error).message}` });
        } finally {
          ending.delete(conversationId);
        }
      },
      close: () => toolOutputs.close(),
    };
  },
});
