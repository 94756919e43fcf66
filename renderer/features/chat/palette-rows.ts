/**
 * What the palette says of each tool beside its name: its version, and whether it is the
 * newest or an older version of a tool listed more than once (same bundle and slug), so
 * v1 is not run when v2 was meant. Versions compare as in shared/versions.ts (a pre-release is
 * below its release).
 */
import { compareVersions } from '../../../shared/versions';

export interface VersionedTool {
  id: string;
  bundleId: string;
  slug: string;
  version: string;
}

export type VersionMark = 'newest' | 'older' | null;

/** Per tool id: 'newest' / 'older' when several versions of its tool are listed, else null. */
export function versionMarks(tools: readonly VersionedTool[]): Map<string, VersionMark> {
  const groups = new Map<string, VersionedTool[]>();
  for (const t of tools) {
    const key = `${t.bundleId}/${t.slug}`;
    const g = groups.get(key);
    if (g) g.push(t);
    else groups.set(key, [t]);
  }
  const marks = new Map<string, VersionMark>();
  for (const g of groups.values()) {
    if (g.length === 1) {
      marks.set(g[0]!.id, null);
      continue;
    }
    const newest = g.reduce((best, t) => (compareVersions(t.version, best.version) > 0 ? t : best));
    for (const t of g) marks.set(t.id, t === newest ? 'newest' : 'older');
  }
  return marks;
}

/** The option to move to with ↑/↓ from `active` among `count`; wraps only when nothing more is to come. */
export function nextActive(active: number, count: number, down: boolean, more: boolean): number {
  if (count === 0) return 0;
  if (down) return active + 1 < count ? active + 1 : more ? active : 0;
  return active > 0 ? active - 1 : more ? 0 : count - 1;
}
