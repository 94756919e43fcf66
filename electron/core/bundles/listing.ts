/** The registry's two lists: filters over the catalog, then a page in id order. */
import { ListBundlesQuerySchema, type Bundle, type ListBundlesQuery, type Page } from '../../../shared/model/bundle';
import { isToolUsable, ListToolsQuerySchema, type ListToolsQuery, type Tool, type ToolView } from '../../../shared/model/tool';
import { nfc } from '../../../shared/model/validation';
import type { Catalog } from './catalog';
import { parseInput } from './input';
import { pageOf } from './paging';

/**
 * A local tool whose function is not registered, and a script tool whose script file is missing
 * or changed (`scriptProblem`), are shown disabled, with the reason; their files are untouched.
 */
export function toolView(t: Tool, isLocalFunctionKnown?: (functionId: string) => boolean, scriptProblem?: string): ToolView {
  if (scriptProblem !== undefined) return { ...t, isEnabled: false, unavailableReason: scriptProblem };
  if (t.type !== 'local' || !t.local || !isLocalFunctionKnown || isLocalFunctionKnown(t.local.functionId)) return t;
  return { ...t, isEnabled: false, unavailableReason: `local function '${t.local.functionId}' is not registered` };
}

/** Disabled bundles are hidden unless includeDisabled, soft-deleted ones unless includeDeleted. */
export function listBundles(catalog: Catalog, query: ListBundlesQuery): Page<Bundle> {
  const q = parseInput(ListBundlesQuerySchema, query, 'query');
  const ids = q.bundleIds ? new Set(q.bundleIds) : undefined;
  const items = [...catalog.bundles.values()].filter(
    (b) => (!ids || ids.has(b.id)) && (q.includeDisabled || b.isEnabled) && (q.includeDeleted || b.softDeletedAt === undefined),
  );
  const filter = { list: 'bundles', ids: q.bundleIds?.toSorted(), disabled: !!q.includeDisabled, deleted: !!q.includeDeleted };
  return pageOf(items, { pageSize: q.pageSize, pageToken: q.pageToken, filter });
}

/**
 * Tools that are not usable (themselves, their function or their bundle disabled) are
 * hidden unless includeDisabled; tools of soft-deleted bundles unless includeDeleted.
 * A tool matches `tags` when it has every one of them.
 */
export function listTools(catalog: Catalog, views: ToolView[], query: ListToolsQuery): Page<ToolView> {
  const q = parseInput(ListToolsQuerySchema, query, 'query');
  const ids = q.bundleIds ? new Set(q.bundleIds) : undefined;
  const tags = q.tags?.map(nfc);
  const items = views.filter((t) => {
    const b = catalog.bundles.get(t.bundleId);
    if (ids && !ids.has(t.bundleId)) return false;
    if (tags && !tags.every((tag) => t.tags.includes(tag))) return false;
    if (!q.includeDeleted && b?.softDeletedAt !== undefined) return false;
    return q.includeDisabled || isToolUsable(t, b);
  });
  const filter = { list: 'tools', ids: q.bundleIds?.toSorted(), tags: tags?.toSorted(), disabled: !!q.includeDisabled, deleted: !!q.includeDeleted };
  return pageOf(items, { pageSize: q.pageSize, pageToken: q.pageToken, filter });
}
