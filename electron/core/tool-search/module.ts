/**
 * Tool search's operation: the findability report (./findability.ts) over the tools a turn
 * would search. Analysed tools are kept between reports, and a report is kept until a tool
 * or bundle changes (the same tools, stamps and bundle slugs give the same report).
 */
import type { FindabilityReport } from '../../../shared/model/findability';
import { defineModule } from '../platform/feature-module';
import { findabilityReport, type RegistryTool } from './findability';
import { AnalysisCache } from './ranker';

export const toolSearchModule = defineModule<undefined, 'tools.findability'>({
  name: 'tool-search',
  start: ({ registry }) => {
    const cache = new AnalysisCache();
    let last: { stamp: string; report: Promise<FindabilityReport> } | undefined;
    const usable = (): RegistryTool[] => {
      const store = registry.store;
      return store
        .allTools()
        .filter((t) => store.isUsable(t.id))
        .map((tool) => ({ tool, bundleSlug: store.bundleById(tool.bundleId)?.slug ?? '' }));
    };
    return {
      api: undefined,
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
      },
    };
  },
});
