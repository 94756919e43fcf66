/** Tool search (docs/tool-search.md): how findable the user's tools are for a model's `tool_search`. */
import { z } from 'zod';
import { FindabilityReportSchema } from '../model/findability';
import { EmbeddingsTestSchema } from '../model/tool-search';
import { IdList, Key, type EventTable, type OperationTable } from './common';

export const toolSearchOperations = {
  /**
   * The findability report: the user's tools a search will have trouble finding, and the pairs
   * it cannot tell apart, each with what to change. Every usable tool is ranked; `bundleIds`
   * limits what is reported on to those bundles.
   */
  'tools.findability': { input: z.object({ bundleIds: IdList.optional() }).strict(), output: FindabilityReportSchema },
  /**
   * Settings → Tool search's "Test" of semantic search: one sentence embedded by a saved
   * provider's `/embeddings` with this model; its dimensions and time, or why it failed.
   */
  'tools.testEmbeddings': { input: z.object({ providerId: Key, model: z.string().min(1).max(300) }).strict(), output: EmbeddingsTestSchema },
} as const satisfies OperationTable;

export const toolSearchEvents = {} as const satisfies EventTable;
