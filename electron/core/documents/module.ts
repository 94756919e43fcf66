/**
 * Documents (docs/design/documents.md): every workspace file a tool or a route writes is
 * recorded with its metadata; a text's summary is written in the background by Settings'
 * document summary model when one is set.
 */
import path from 'node:path';
import { documentHandlers } from './document-handlers';
import { defineModule } from '../platform/feature-module';
import { providersModule } from '../agent/providers/module';
import { toolOutputModule } from '../tool-output/module';
import { DocumentStore } from './document-store';
import { registerDocumentTool } from './document-tool';
import { DocumentSummarizer } from './summarizer';

export const documentsModule = defineModule({
  name: 'documents',
  functions: (functions, api: () => DocumentStore) => registerDocumentTool(functions, () => api()),
  start: ({ dataDir, workspaceDir, now, problems, events, settings, hooks, config, use, ifStartFails }) => {
    const { clients } = use(providersModule);
    const toolOutputs = use(toolOutputModule);
    const documents: DocumentStore = DocumentStore.open({
      file: path.join(dataDir, 'documents.sqlite'),
      workspaceDir,
      now,
      problems: (p) => problems.report(p),
      onChange: (paths) => events.emit('documents.changed', { paths }),
      onTextVersion: (v) => summaries.schedule(v),
    });
    ifStartFails(() => documents.close());
    const summaries: DocumentSummarizer = new DocumentSummarizer({
      store: documents,
      model: () => {
        const ref = settings.get().documentSummaryModel;
        if (!ref) return undefined;
        return { ref, client: () => clients.forProvider(ref.providerId), contextTokens: toolOutputs.windowFor(ref).contextTokens };
      },
      ...config.documentSummaries,
    });
    // Awaited by the writer, so each write's content is the version recorded (record never throws).
    hooks.wrote = (rel, by) => documents.record(rel, by);
    return {
      api: documents,
      handlers: documentHandlers(documents),
      close: async () => {
        await documents.idle();
        await summaries.close();
        documents.close();
      },
    };
  },
});
