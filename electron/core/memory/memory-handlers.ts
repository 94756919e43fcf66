/** Memory (docs/design/memory.md): blocks and recall entries for Inspect → Memory (electron/core/memory). */
import type { ChatConsent } from './consent-cards';
import type { MemoryService } from './memory-service';
import type { Handler } from '../router';

type MemoryOps = 'memory.blocks.list' | 'memory.blocks.get' | 'memory.blocks.create' | 'memory.blocks.history' | 'memory.blocks.undo' | 'memory.blocks.redo' | 'memory.recall.search' | 'memory.consent.respond';

export function memoryHandlers(memory: MemoryService, changed: (owner: string, label?: string) => void, consent: Pick<ChatConsent, 'respond'>): { [N in MemoryOps]: Handler<N> } {
  return {
    'memory.blocks.list': (input) => memory.blocks.list(input.owner),
    'memory.blocks.get': (input) => memory.blocks.view(input.owner, input.label),
    'memory.blocks.create': (input) => {
      const view = memory.blocks.create(input, 'user');
      changed(view.owner, view.label);
      return view;
    },
    'memory.blocks.history': (input) => memory.blocks.history(input.owner, input.label),
    'memory.blocks.undo': (input) => {
      const view = memory.blocks.undo(input.owner, input.label);
      changed(view.owner, view.label);
      return view;
    },
    'memory.blocks.redo': (input) => {
      const view = memory.blocks.redo(input.owner, input.label);
      changed(view.owner, view.label);
      return view;
    },
    'memory.recall.search': (input) => memory.recall.search(input),
    'memory.consent.respond': (input) => ({ accepted: consent.respond(input.id, input.answer) }),
  };
}
