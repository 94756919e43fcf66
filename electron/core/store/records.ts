/**
 * The bundle and tool objects the store writes, with their fields in one fixed order so
 * the files diff cleanly, and without keys that are undefined.
 */
import type { Bundle } from '../../../shared/model/bundle';
import type { Tool } from '../../../shared/model/tool';

export function bundleRecord(b: Bundle): Bundle {
  const out: Bundle = {
    id: b.id,
    slug: b.slug,
    displayName: b.displayName,
    description: b.description,
    isEnabled: b.isEnabled,
    isBuiltIn: b.isBuiltIn,
    createdAt: b.createdAt,
    modifiedAt: b.modifiedAt,
  };
  if (b.softDeletedAt !== undefined) out.softDeletedAt = b.softDeletedAt;
  return out;
}

export function toolRecord(t: Tool): Tool {
  const out: Tool = {
    id: t.id,
    bundleId: t.bundleId,
    slug: t.slug,
    version: t.version,
    displayName: t.displayName,
    description: t.description,
    tags: t.tags,
    type: t.type,
    argSchema: t.argSchema,
    outputSchema: t.outputSchema,
    isEnabled: t.isEnabled,
    isBuiltIn: t.isBuiltIn,
    createdAt: t.createdAt,
    modifiedAt: t.modifiedAt,
  };
  if (t.type === 'local' && t.local) out.local = t.local;
  if (t.type === 'http' && t.http) out.http = t.http;
  if (t.type === 'sequence' && t.sequence) out.sequence = t.sequence;
  if (t.requiresApproval) out.requiresApproval = true;
  return out;
}
