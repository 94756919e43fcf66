import type { Bundle } from '../../../shared/model/bundle';
import { isToolUsable, type ToolView } from '../../../shared/model/tool';
import type { IndexedTool } from '../search/types';
import type { ToolIndex } from '../search/tool-index';

/** The index's view of a tool: the searchable fields and its effective enabled state. */
export function toIndexed(tool: ToolView, bundle: Bundle | undefined): IndexedTool {
  return {
    id: tool.id,
    bundleId: tool.bundleId,
    slug: tool.slug,
    version: tool.version,
    displayName: tool.displayName,
    description: tool.description,
    tags: tool.tags,
    enabled: isToolUsable(tool, bundle),
    modifiedAt: tool.modifiedAt,
  };
}

function sameIndexed(a: IndexedTool, b: IndexedTool): boolean {
  return (
    a.bundleId === b.bundleId &&
    a.slug === b.slug &&
    a.version === b.version &&
    a.displayName === b.displayName &&
    a.description === b.description &&
    a.enabled === b.enabled &&
    a.modifiedAt === b.modifiedAt &&
    a.tags.length === b.tags.length &&
    a.tags.every((t, i) => t === b.tags[i])
  );
}

/**
 * Brings the index in line with the files: upserts what differs, removes what is gone.
 * A fresh index costs one read per tool; a missing one is rebuilt in batches.
 */
export async function syncIndex(index: ToolIndex, wanted: IndexedTool[]): Promise<{ upserted: number; removed: number; rebuilt: boolean }> {
  // A recreated or half-built index is rebuilt whole; so is an empty one (faster in batches).
  if (index.needsRebuild || (index.count() === 0 && wanted.length > 0)) {
    await index.rebuildInBatches(wanted);
    return { upserted: wanted.length, removed: 0, rebuilt: true };
  }
  const keep = new Set<string>();
  const changed: IndexedTool[] = [];
  for (const t of wanted) {
    keep.add(t.id);
    const have = index.get(t.id);
    if (!have || !sameIndexed(have, t)) changed.push(t);
  }
  index.upsertMany(changed);
  let removed = 0;
  for (const id of index.ids()) {
    if (!keep.has(id) && index.remove(id)) removed++;
  }
  return { upserted: changed.length, removed, rebuilt: false };
}
