/**
 * The in-memory copy of the registry, built from the files on open() and reload().
 * Reads are served from here; every write updates it after the disk commit.
 */
import type { Bundle } from '../../../shared/model/bundle';
import type { RegistryChange, Tool } from '../../../shared/model/tool';
import { toolKey } from '../../../shared/model/validation';
import type { CachedToolFile, ToolOrigin } from './tool-files';

export class Catalog {
  readonly bundles = new Map<string, Bundle>();
  readonly tools = new Map<string, Tool>();
  /** toolId -> the file a tool was loaded from, for tools whose file's fingerprint is settled (see tool-files.ts). */
  readonly origins = new Map<string, ToolOrigin>();
  /** toolId -> why a script tool's `.js` cannot be used (missing, changed by hand; script-files.ts). */
  readonly scriptProblems = new Map<string, string>();
  /** bundleId -> toolKey(slug, version) -> toolId */
  private readonly keys = new Map<string, Map<string, string>>();

  setBundle(b: Bundle): void {
    this.bundles.set(b.id, b);
  }

  /** Forgets a bundle and every tool of it. */
  deleteBundle(id: string): void {
    this.bundles.delete(id);
    for (const toolId of this.keys.get(id)?.values() ?? []) {
      this.tools.delete(toolId);
      this.origins.delete(toolId);
      this.scriptProblems.delete(toolId);
    }
    this.keys.delete(id);
  }

  /**
   * Sets a tool; `origin` only when `t` is exactly what that file holds (a write passes none);
   * `scriptProblem` when its script file cannot be used.
   */
  setTool(t: Tool, origin?: ToolOrigin, scriptProblem?: string): void {
    let byKey = this.keys.get(t.bundleId);
    if (!byKey) this.keys.set(t.bundleId, (byKey = new Map()));
    const key = toolKey(t.slug, t.version);
    const previous = byKey.get(key);
    if (previous !== undefined && previous !== t.id) {
      this.tools.delete(previous);
      this.origins.delete(previous);
      this.scriptProblems.delete(previous);
    }
    byKey.set(key, t.id);
    this.tools.set(t.id, t);
    if (origin) this.origins.set(t.id, origin);
    else this.origins.delete(t.id);
    if (scriptProblem !== undefined) this.scriptProblems.set(t.id, scriptProblem);
    else this.scriptProblems.delete(t.id);
  }

  deleteTool(id: string): void {
    const t = this.tools.get(id);
    if (!t) return;
    this.tools.delete(id);
    this.origins.delete(id);
    this.scriptProblems.delete(id);
    this.keys.get(t.bundleId)?.delete(toolKey(t.slug, t.version));
  }

  /** The loaded tool files as a cache for the next scan (a reload then reads only what changed). */
  fileCache(): Map<string, CachedToolFile> {
    const out = new Map<string, CachedToolFile>();
    for (const [id, o] of this.origins) {
      out.set(o.source.path, { mtimeMs: o.source.mtimeMs, size: o.source.size, doc: o.doc, id, tool: this.tools.get(id) });
    }
    return out;
  }

  findTool(bundleId: string, slug: string, version: string): Tool | undefined {
    const id = this.keys.get(bundleId)?.get(toolKey(slug, version));
    return id === undefined ? undefined : this.tools.get(id);
  }

  toolsOf(bundleId: string): Tool[] {
    return [...(this.keys.get(bundleId)?.values() ?? [])].map((id) => this.tools.get(id)!);
  }

  /** What turned `before` into `after`, as the change events a listener would have seen. */
  static diff(before: Catalog, after: Catalog): RegistryChange[] {
    const changes: RegistryChange[] = [];
    for (const [id, b] of after.bundles) {
      const old = before.bundles.get(id);
      if (!old) changes.push({ kind: 'bundle', op: 'put', id });
      else if (old.softDeletedAt === undefined && b.softDeletedAt !== undefined) changes.push({ kind: 'bundle', op: 'delete', id });
      else if (!same(old, b)) changes.push({ kind: 'bundle', op: onlyFlag(old, b) ? 'patch' : 'put', id });
    }
    for (const [id, t] of after.tools) {
      const old = before.tools.get(id);
      if (!old) changes.push({ kind: 'tool', op: 'put', id, bundleId: t.bundleId });
      else if (old !== t && !same(old, t)) changes.push({ kind: 'tool', op: onlyFlag(old, t) ? 'patch' : 'put', id, bundleId: t.bundleId });
      // Its script file went missing, was changed by hand, or was put back: the tool is shown switched off or on again.
      else if (before.scriptProblems.get(id) !== after.scriptProblems.get(id)) changes.push({ kind: 'tool', op: 'patch', id, bundleId: t.bundleId });
    }
    for (const [id, t] of before.tools) if (!after.tools.has(id)) changes.push({ kind: 'tool', op: 'delete', id, bundleId: t.bundleId });
    for (const id of before.bundles.keys()) if (!after.bundles.has(id)) changes.push({ kind: 'bundle', op: 'delete', id });
    return changes;
  }
}

/** Equal as JSON, whatever the key order. */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a, sortedKeys) === JSON.stringify(b, sortedKeys);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/** True when the two differ in isEnabled only: a PATCH, not a structural change. */
function onlyFlag<T extends { isEnabled: boolean }>(a: T, b: T): boolean {
  return same({ ...a, isEnabled: b.isEnabled }, b);
}
