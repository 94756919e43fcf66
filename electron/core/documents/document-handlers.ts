/** Documents: listed, read with their versions, described (electron/core/documents). */
import type { DocumentStore } from './document-store';
import type { Handler } from '../router';

type DocumentOps = 'documents.list' | 'documents.get' | 'documents.describe';

export function documentHandlers(store: DocumentStore): { [N in DocumentOps]: Handler<N> } {
  return {
    // Reads wait for the records queued by writes before them.
    'documents.list': async (q) => {
      await store.idle();
      return store.list(q);
    },
    'documents.get': async (input) => {
      await store.idle();
      return store.get(input.path);
    },
    'documents.describe': async (input) => {
      await store.idle();
      return store.describe(input.path, { ...(input.description !== undefined ? { description: input.description } : {}), ...(input.tags ? { tags: input.tags } : {}) }, 'user');
    },
  };
}
