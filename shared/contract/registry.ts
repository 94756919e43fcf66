/** The tool registry (docs/design/registry.md): bundles and their tools. The REST routes under /tools map onto these one to one. */
import { z } from 'zod';
import { BundlePutBodySchema, BundleSchema } from '../model/bundle';
import { PageSize, PageToken, QueryBool } from '../model/query';
import { RegistryChangeSchema, ToolPutBodySchema, ToolUsageSchema, ToolViewSchema } from '../model/tool';
import { ApprovalInfoSchema } from '../model/tool-approval';
import { TOOL_FIND_MAX_QUERY, TOOL_FIND_MAX_RESULTS } from '../model/tool-find';
import { BundleRef, IdList, ToolRef, type EventTable, type OperationTable } from './common';

const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextPageToken: z.string().optional() }).strict();

export const SearchHitSchema = z.object({ tier: z.enum(['prefix', 'word', 'fuzzy', 'recent']), tool: ToolViewSchema }).strict();
export type SearchHit = z.infer<typeof SearchHitSchema>;

/**
 * A tool found for a sentence ('tools.find'): `name` when its slug, display name or a tag starts
 * with the text (those come first), `words` when the sentence ranking found it; `words` lists the
 * query's words it matched (by themselves or by a word of the same meaning), in the query's order.
 */
export const FindHitSchema = z.object({ match: z.enum(['name', 'words']), words: z.array(z.string()), tool: ToolViewSchema }).strict();
export type FindHit = z.infer<typeof FindHitSchema>;

export const registryOperations = {
  'bundles.list': {
    input: z
      .object({ bundleIds: IdList.optional(), includeDisabled: QueryBool.optional(), includeDeleted: QueryBool.optional(), pageSize: PageSize.optional(), pageToken: PageToken.optional() })
      .strict(),
    output: pageOf(BundleSchema),
  },
  'bundles.get': { input: z.object(BundleRef).strict(), output: BundleSchema },
  'bundles.put': { input: z.object({ ...BundleRef, body: BundlePutBodySchema }).strict(), output: BundleSchema },
  'bundles.patch': { input: z.object({ ...BundleRef, isEnabled: z.boolean() }).strict(), output: BundleSchema },
  'bundles.delete': { input: z.object(BundleRef).strict(), output: BundleSchema },
  'tools.list': {
    input: z
      .object({
        tags: z.array(z.string().max(64)).max(50).optional(),
        bundleIds: IdList.optional(),
        includeDisabled: QueryBool.optional(),
        includeDeleted: QueryBool.optional(),
        pageSize: PageSize.optional(),
        pageToken: PageToken.optional(),
      })
      .strict(),
    output: pageOf(ToolViewSchema),
  },
  'tools.search': {
    // Long queries are cut by the index, not refused.
    input: z.object({ q: z.string().max(4096), includeDisabled: QueryBool.optional(), pageSize: PageSize.optional(), pageToken: PageToken.optional() }).strict(),
    output: z.object({ items: z.array(SearchHitSchema), nextPageToken: z.string().optional(), recommendedPageSize: z.number().int() }).strict(),
  },
  /**
   * Tools for a need written as a sentence (shared/model/tool-find.ts): the enabled tools whose
   * name starts with the text, then the others ranked by what they say of themselves, best
   * first; one answer, no pages. 'tools.search' stays the paged prefix index.
   */
  'tools.find': {
    input: z.object({ q: z.string().max(TOOL_FIND_MAX_QUERY), limit: z.number().int().min(1).max(TOOL_FIND_MAX_RESULTS).optional() }).strict(),
    output: z.object({ items: z.array(FindHitSchema) }).strict(),
  },
  'tools.get': { input: z.object(ToolRef).strict(), output: ToolViewSchema },
  'tools.put': { input: z.object({ ...ToolRef, body: ToolPutBodySchema }).strict(), output: ToolViewSchema },
  'tools.patch': { input: z.object({ ...ToolRef, isEnabled: z.boolean() }).strict(), output: ToolViewSchema },
  'tools.delete': { input: z.object(ToolRef).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  'tools.usage': { input: z.object(ToolRef).strict(), output: ToolUsageSchema },
  /** Why a model's (or a served) call of the tool waits for approval, or null when it runs at once (shared/model/tool-approval.ts). */
  'tools.approval': { input: z.object(ToolRef).strict(), output: ApprovalInfoSchema.nullable() },
} as const satisfies OperationTable;

export const registryEvents = {
  'store.changed': RegistryChangeSchema,
} as const satisfies EventTable;
