/**
 * Every bundle of the store, read page by page: what a run covers when no bundle is named (a
 * suite of test cases, an eval run: `bundlesToRun`) and the names an imported bundle must not
 * take (transfer/zip.ts).
 */
import { isBundleUsable, type Bundle } from '../../../shared/model/bundle';
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

/**
 * The bundles a run covers: those named, in the order given, each once (an unknown id is
 * NOT_FOUND before anything runs); none named, every bundle switched on and not deleted.
 */
export function bundlesToRun(store: Pick<ToolStore, 'listBundles' | 'getBundle'>, ids: readonly string[] | undefined): Bundle[] {
  if (!ids) return allBundles(store).filter(isBundleUsable);
  const out: Bundle[] = [];
  for (const id of ids) {
    const b = store.getBundle(id);
    if (!out.some((x) => x.id === b.id)) out.push(b);
  }
  return out;
}
