/**
 * Every bundle of the store, read page by page: what a suite runs when no bundle is named
 * (testcase-handlers.ts keeps the usable ones) and the names an imported bundle must not take
 * (transfer/zip.ts).
 */
import type { Bundle } from '../../../shared/model/bundle';
import type { ToolStore } from '../bundles/tool-store';

/** Every bundle, switched on or off, in the store's order; soft-deleted ones are gone from view. */
export function allBundles(store: Pick<ToolStore, 'listBundles'>): Bundle[] {
  const out: Bundle[] = [];
  let pageToken: string | undefined;
  do {
    const page = store.listBundles({ includeDisabled: true, pageSize: 100, ...(pageToken ? { pageToken } : {}) });
    out.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return out;
}
