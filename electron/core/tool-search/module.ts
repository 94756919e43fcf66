/**
 * Tool search's operations: the findability report (./findability.ts) over the tools a turn
 * would search, and semantic search (./embeddings): the service turns and the palette fuse
 * with the word ranking, and Settings' "Test". Analysed tools are kept between reports, and a
 * report is kept until a tool or bundle changes (the same tools, stamps and bundle slugs give
 * the same report).
 *
 * With semantic search on, the usable tools are embedded in the background when the module
 * starts, when tools change and when the setting changes, so a search seldom waits.
 */
import type { FindabilityReport } from '../../../shared/model/findability';
import type { SemanticSearchSettings } from '../../../shared/model/tool-search';
import { providersModule } from '../agent/providers/module';
import { defineModule } from '../platform/feature-module';
import { SemanticSearch, VectorCache, type SemanticDoc, type SemanticTarget } from './embeddings';
import { findabilityReport, type RegistryTool } from './findability';
import { AnalysisCache } from './ranker';
import { usableTools } from '../agent/tools-for-model';

/** A change of tools or settings is embedded after this quiet time (an import changes many tools at once). */
const WARM_DELAY_MS = 2_000;

export const toolSearchModule = defineModule<{ semantic: SemanticSearch }, 'tools.findability' | 'tools.testEmbeddings'>({
  name: 'tool-search',
  start: ({ registry, settings, dataDir, events, problems, now, use }) => {
    const { clients } = use(providersModule);
    const cache = new AnalysisCache();
    let last: { stamp: string; report: Promise<FindabilityReport> } | undefined;
    const usable = (): RegistryTool[] => usableTools(registry.store);

    const targetOf = (s: Pick<SemanticSearchSettings, 'providerId' | 'model'>): SemanticTarget => {
      const c = clients.connection(s.providerId);
      return { providerId: s.providerId, model: s.model.trim(), connection: { baseUrl: c.baseUrl, key: c.key, redact: c.redact } };
    };
    let vectors: Promise<VectorCache> | undefined;
    const semantic = new SemanticSearch({
      target: () => {
        const s = settings.get().toolSearch.semantic;
        if (!s.enabled || !s.providerId || !s.model.trim()) return undefined;
        try {
          // Anthropic serves no embeddings: Settings offers only OpenAI-compatible providers.
          return clients.connection(s.providerId).kind === 'anthropic' ? undefined : targetOf(s);
        } catch {
          // The provider was removed: off until another is chosen.
          return undefined;
        }
      },
      cache: () =>
        (vectors ??= VectorCache.open({
          dataDir,
          now,
          problem: (message, path) => problems.report({ kind: 'io-error', path, message }),
        })),
    });

    let timer: NodeJS.Timeout | undefined;
    const warmSoon = () => {
      if (!semantic.enabled()) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        const docs: SemanticDoc[] = registry.store
          .allTools()
          .filter((t) => registry.store.isUsable(t.id))
          .map((tool) => {
            const bundle = registry.store.bundleById(tool.bundleId);
            return { key: tool.id, cacheKey: `${tool.id}@${tool.modifiedAt}@${bundle?.slug ?? ''}@${bundle?.displayName ?? ''}`, make: () => ({ tool, bundleSlug: bundle?.slug ?? '', bundleName: bundle?.displayName ?? '' }) };
          });
        semantic.warm(docs);
      }, WARM_DELAY_MS);
      timer.unref?.();
    };
    const offStore = events.on('store.changed', warmSoon);
    const offSettings = events.on('settings.changed', warmSoon);
    registry.useSemantic(semantic);
    warmSoon();

    return {
      api: { semantic },
      handlers: {
        'tools.findability': ({ bundleIds }) => {
          const tools = usable();
          const stamp = JSON.stringify([bundleIds ?? null, tools.map((t) => `${t.tool.id}@${t.tool.modifiedAt}@${t.bundleSlug}`).sort()]);
          if (last?.stamp !== stamp) {
            // Not cancelled with the call: a second caller may be waiting for the same report.
            const report = findabilityReport(tools, { cache, ...(bundleIds ? { bundleIds } : {}) });
            last = { stamp, report };
            // A report that failed is not kept.
            report.catch(() => {
              if (last?.report === report) last = undefined;
            });
          }
          return last.report;
        },
        'tools.testEmbeddings': async ({ providerId, model }) => {
          let target: SemanticTarget;
          try {
            target = targetOf({ providerId, model });
          } catch (e) {
            return { ok: false, message: (e as Error).message };
          }
          if (clients.connection(providerId).kind === 'anthropic') return { ok: false, message: 'Anthropic has no embeddings endpoint: choose an OpenAI-compatible provider (OpenAI, Ollama, LM Studio)' };
          return semantic.test(target);
        },
      },
      stop: () => {
        clearTimeout(timer);
        offStore();
        offSettings();
      },
      close: async () => {
        if (vectors) await (await vectors.catch(() => undefined))?.flush();
      },
    };
  },
});
