/**
 * Settings → Limits → "Tools per bundle": how many tool versions one bundle may hold.
 *
 * Counted from the bundle's tools folder as it is on disk, under the bundle's lock (the
 * caller holds it), never from the catalog: another process may have added tools since this
 * one last reloaded, and two processes each seeing room for one more must not both add it.
 * Every tool file counts (each version is a file), including one the loader has not set aside
 * yet. Only a new file is refused: PATCH and a bundle's PUT never come here.
 *
 * The refusal is CONFLICT (rule 'bundle-tool-limit'), like the store's other refusals that
 * depend on the bundle's current state (see refusals.ts): delete some tools, or raise the
 * limit, and the same request succeeds.
 */
import { AppError } from '../../../shared/errors';
import type { Bundle } from '../../../shared/model/bundle';
import { quote } from '../../../shared/model/validation';
import { listDir, type StoreFs } from '../lib/durable-fs';
import { isDataFileName, type StoreLayout } from './layout';

/** The rule named in the refusal's details; import reports tell it apart from 'exists'. */
export const BUNDLE_TOOL_LIMIT_RULE = 'bundle-tool-limit';

/** How many tool files the bundle's folder holds now (temp files and other entries not counted). */
export async function toolFilesHeld(fs: StoreFs, layout: StoreLayout, bundleId: string): Promise<number> {
  return (await listDir(fs, layout.toolsDir(bundleId))).filter(isDataFileName).length;
}

export function bundleFull(b: Pick<Bundle, 'id' | 'slug'>, held: number, limit: number): AppError {
  return new AppError(
    'CONFLICT',
    `bundle ${quote(b.slug)} holds ${held} tool${held === 1 ? '' : 's'}, the most Settings → Limits → Tools per bundle allows (${limit}); ` +
      'delete some of its tools, put the new one in another bundle, or raise the limit',
    { bundleId: b.id, held, limit, rule: BUNDLE_TOOL_LIMIT_RULE },
  );
}

/** Refuses a new tool file when the bundle already holds `limit` (or more, after the limit was lowered). Call under the bundle's lock. */
export async function assertRoomForTool(fs: StoreFs, layout: StoreLayout, bundle: Pick<Bundle, 'id' | 'slug'>, limit: number): Promise<void> {
  if (!Number.isFinite(limit)) return;
  const held = await toolFilesHeld(fs, layout, bundle.id);
  if (held >= limit) throw bundleFull(bundle, held, limit);
}
