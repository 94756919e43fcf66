/**
 * The bundle and tool objects the store writes, with their fields in one fixed order so
 * the files diff cleanly, and without keys that are undefined; fields the app does not
 * know are kept (see EXTRA_FIELDS).
 */
import type { z } from 'zod';
import type { Bundle } from '../../../shared/model/bundle';
import { TOOL_BACKEND_FIELDS, TOOL_DEFINITION_FIELDS, type Tool } from '../../../shared/model/tool';
import { toFileText } from '../lib/durable-fs';

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
  return withExtra(out, extraOf(b));
}

export function toolRecord(t: Tool): Tool {
  const out: Record<string, unknown> = { id: t.id, bundleId: t.bundleId, slug: t.slug, version: t.version };
  for (const k of TOOL_DEFINITION_FIELDS) out[k] = t[k];
  Object.assign(out, { isEnabled: t.isEnabled, isBuiltIn: t.isBuiltIn, createdAt: t.createdAt, modifiedAt: t.modifiedAt });
  // Only the back-end object of the tool's type.
  for (const k of TOOL_BACKEND_FIELDS) if (t.type === k && t[k]) out[k] = t[k];
  if (t.requiresApproval) out.requiresApproval = true;
  return withExtra(out as Tool, extraOf(t));
}

/**
 * Fields a file holds that this version of the app does not know (written by a newer
 * version, or by hand). They are kept: the loader serves the record without them and
 * reports them, and a write of the record puts them back (see recordText). They ride on
 * the record under a symbol, so they never reach the API or the catalog's comparisons,
 * and an object spread (`{ ...current, isEnabled }`) carries them along.
 */
export const EXTRA_FIELDS: unique symbol = Symbol('fields this version does not know');
export type ExtraFields = Record<string, unknown>;
type WithExtra = { [EXTRA_FIELDS]?: ExtraFields };

export function extraOf(record: object | undefined): ExtraFields | undefined {
  return (record as WithExtra | undefined)?.[EXTRA_FIELDS];
}

/** `record` with `extra` attached (none: unchanged). */
export function withExtra<T extends object>(record: T, extra: ExtraFields | undefined): T {
  if (extra && Object.keys(extra).length > 0) (record as WithExtra)[EXTRA_FIELDS] = extra;
  return record;
}

/** The text of a record's file: its known fields in their fixed order, then the kept unknown ones. */
export function recordText(record: object): string {
  const extra = extraOf(record);
  return toFileText(extra ? { ...record, ...extra } : record);
}

export type KeptParse<T> = { ok: true; data: T; extra?: ExtraFields } | { ok: false; error: z.ZodError };

/**
 * Parses with a strict schema but tolerates unknown top-level fields: when they are the
 * only thing wrong, the record without them is returned with them in `extra`.
 */
export function parseKeepingUnknown<S extends z.ZodType>(schema: S, value: unknown): KeptParse<z.output<S>> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, data: parsed.data };
  const unknownOnly = parsed.error.issues.every((i) => i.code === 'unrecognized_keys' && i.path.length === 0);
  if (!unknownOnly || typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: parsed.error };
  const names = new Set(parsed.error.issues.flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys : [])));
  const known: Record<string, unknown> = {};
  const extra: ExtraFields = {};
  for (const [k, v] of Object.entries(value)) (names.has(k) ? extra : known)[k] = v;
  const again = schema.safeParse(known);
  return again.success ? { ok: true, data: again.data, extra } : { ok: false, error: again.error };
}
