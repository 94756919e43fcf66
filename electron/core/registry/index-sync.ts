import type { Bundle } from '../../../shared/model/bundle';
import { isToolUsable, type ToolView } from '../../../shared/model/tool';
import type { CachedToolFile, ToolOrigin } from '../bundles/tool-files';
import type { IndexedTool } from '../registry-index/types';
import type { ToolIndex } from '../registry-index/tool-index';

/**
 * The index's view of a tool: the searchable fields and its effective enabled state, and,
 * when the store can vouch for it, the file it came from and its record as JSON.
 */
export function toIndexed(tool: ToolView, bundle: Bundle | undefined, origin?: ToolOrigin): IndexedTool {
  const t: IndexedTool = {
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
  if (origin) {
    t.source = origin.source;
    t.doc = origin.doc;
  }
  return t;
}

/** What the index holds of one tool file, by the file's path: a cache for the store, and what a sync compares. */
export interface IndexedFile extends CachedToolFile {
  id: string;
  enabled: boolean;
}

/** The index's tool files (fingerprint and doc) by path. */
export function indexedFiles(index: ToolIndex): Map<string, IndexedFile> {
  const out = new Map<string, IndexedFile>();
  for (const f of index.sources()) out.set(f.path, f);
  return out;
}

function sameSource(a: IndexedTool, b: IndexedTool): boolean {
  if (!a.source || !b.source) return a.source === b.source;
  return a.source.path === b.source.path && a.source.mtimeMs === b.source.mtimeMs && a.source.size === b.source.size;
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
    a.tags.every((t, i) => t === b.tags[i]) &&
    sameSource(a, b) &&
    a.doc === b.doc
  );
}

/**
 * True when the index's row for `t` is already what `t` would write: same file fingerprint,
 * same doc (so the same record, from which every searchable field is derived) and same
 * enabled state. Checked from `known` (indexedFiles()), without reading the row.
 */
function unchanged(t: IndexedTool, known: ReadonlyMap<string, IndexedFile>): boolean {
  const k = t.source && known.get(t.source.path);
  return (
    k !== undefined &&
    k.id === t.id &&
    k.mtimeMs === t.source!.mtimeMs &&
    k.size === t.source!.size &&
    k.enabled === t.enabled &&
    k.doc === t.doc
  );
}

/**
 * Brings the index in line with the files: upserts what differs, removes what is gone.
 * A fresh index costs nothing per tool loaded from it (given `known`, see unchanged()) and
 * one read per other tool; a missing one is rebuilt in batches.
 */
export async function syncIndex(
  index: ToolIndex,
  wanted: IndexedTool[],
  known: ReadonlyMap<string, IndexedFile> = new Map(),
): Promise<{ upserted: number; removed: number; rebuilt: boolean }> {
  // A recreated or half-built index is rebuilt whole; so is an empty one (faster in batches).
  if (index.needsRebuild || (index.count() === 0 && wanted.length > 0)) {
    await index.rebuildInBatches(wanted);
    return { upserted: wanted.length, removed: 0, rebuilt: true };
  }
  const keep = new Set<string>();
  const changed: IndexedTool[] = [];
  for (const t of wanted) {
    keep.add(t.id);
    if (unchanged(t, known)) continue;
    const have = index.get(t.id);
    if (!have || !sameIndexed(have, t)) changed.push(t);
  }
  if (changed.length > 0) index.upsertMany(changed);
  let removed = 0;
  // Every wanted tool is in the index now, so when it holds no more rows than that, none is left to remove.
  if (index.count() > keep.size) {
    for (const id of index.ids()) {
      if (!keep.has(id) && index.remove(id)) removed++;
    }
  }
  return { upserted: changed.length, removed, rebuilt: false };
}
