/**
 * The index's stored records: the row shape read back from SQLite, the checks on what
 * callers hand in, and the conversions between the two.
 */
import { AppError } from '../../../shared/errors';
import type { SearchFields } from './ranking';
import type { IndexedTool } from './types';

export interface ToolRow {
  rid: number;
  id: string;
  bundle_id: string;
  slug: string;
  version: string;
  display_name: string;
  description: string;
  tags: string;
  enabled: number;
  modified_at: string;
  neg_mod: number;
  src_path: string | null;
  src_mtime: number | null;
  src_size: number | null;
  doc: string | null;
}

export function invalidTool(message: string, details?: unknown): AppError {
  return new AppError('VALIDATION_FAILED', `invalid indexed tool: ${message}`, details);
}

export function validateTool(t: unknown): IndexedTool {
  if (typeof t !== 'object' || t === null) throw invalidTool('not an object');
  const x = t as Record<string, unknown>;
  for (const k of ['id', 'bundleId', 'slug', 'version', 'displayName', 'description', 'modifiedAt'] as const) {
    if (typeof x[k] !== 'string') throw invalidTool(`${k} must be a string`, { field: k, id: x.id });
  }
  if ((x.id as string).length === 0) throw invalidTool('id must not be empty', { field: 'id' });
  if (!Array.isArray(x.tags) || !x.tags.every((g) => typeof g === 'string')) {
    throw invalidTool('tags must be an array of strings', { field: 'tags', id: x.id });
  }
  if (typeof x.enabled !== 'boolean') throw invalidTool('enabled must be a boolean', { field: 'enabled', id: x.id });
  if (x.doc !== undefined && typeof x.doc !== 'string') throw invalidTool('doc must be a string', { field: 'doc', id: x.id });
  if (x.source !== undefined) {
    const s = x.source as Record<string, unknown> | null;
    if (
      typeof s !== 'object' ||
      s === null ||
      typeof s.path !== 'string' ||
      typeof s.mtimeMs !== 'number' ||
      typeof s.size !== 'number'
    ) {
      throw invalidTool('source must be {path, mtimeMs, size}', { field: 'source', id: x.id });
    }
  }
  return t as IndexedTool;
}

/** Validates and keeps the last record for each id. */
export function dedupe(tools: Iterable<IndexedTool>): IndexedTool[] {
  const byId = new Map<string, IndexedTool>();
  for (const t of tools) {
    const v = validateTool(t);
    byId.delete(v.id);
    byId.set(v.id, v);
  }
  return [...byId.values()];
}

export function rowFields(r: ToolRow): SearchFields {
  return { slug: r.slug, displayName: r.display_name, description: r.description, tags: parseTags(r.tags) };
}

export function parseTags(json: string): string[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function rowToTool(r: ToolRow): IndexedTool {
  const t: IndexedTool = {
    id: r.id,
    bundleId: r.bundle_id,
    slug: r.slug,
    version: r.version,
    displayName: r.display_name,
    description: r.description,
    tags: parseTags(r.tags),
    enabled: r.enabled === 1,
    modifiedAt: r.modified_at,
  };
  if (r.src_path !== null) t.source = { path: r.src_path, mtimeMs: r.src_mtime ?? 0, size: r.src_size ?? 0 };
  if (r.doc !== null) t.doc = r.doc;
  return t;
}

/** tool_data columns after rid. */
export function dataParams(t: IndexedTool): unknown[] {
  return [
    t.bundleId,
    t.slug,
    t.version,
    t.displayName,
    t.description,
    JSON.stringify(t.tags),
    t.modifiedAt,
    t.source?.path ?? null,
    t.source?.mtimeMs ?? null,
    t.source?.size ?? null,
  ];
}
