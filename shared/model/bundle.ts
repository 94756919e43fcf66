import { z } from 'zod';
import { DescriptionSchema, DisplayNameSchema, SlugSchema, TimestampSchema, UuidV7Schema } from './validation';

/**
 * A named group of tools with one on/off switch (docs/design/registry.md). The file
 * `<data>/bundles/<id>/bundle.json` holds exactly this object.
 *
 * - `modifiedAt` moves only on a structural change (slug, displayName, description);
 *   toggling `isEnabled` or soft-deleting does not touch it.
 * - `softDeletedAt` is set by DELETE; the reaper removes the bundle two days later if it
 *   has no tools left. A PUT of a soft-deleted bundle restores it.
 * - Bundle slugs follow the slug rule but need not be unique across bundles: the id is
 *   the identity, the slug is a label.
 */
export const BundleSchema = z
  .object({
    id: UuidV7Schema,
    slug: SlugSchema,
    displayName: DisplayNameSchema,
    description: DescriptionSchema,
    isEnabled: z.boolean(),
    isBuiltIn: z.boolean(),
    createdAt: TimestampSchema,
    modifiedAt: TimestampSchema,
    softDeletedAt: TimestampSchema.optional(),
  })
  .strict();
export type Bundle = z.infer<typeof BundleSchema>;

/** PUT /tools/bundles/{bundleID}: create or replace. */
export const BundlePutBodySchema = z
  .object({
    slug: SlugSchema,
    displayName: DisplayNameSchema,
    isEnabled: z.boolean(),
    description: DescriptionSchema,
  })
  .strict();
export type BundlePutBody = z.infer<typeof BundlePutBodySchema>;

/** PATCH of a bundle or a tool: the enabled flag is the only thing a PATCH may change. */
export const EnabledPatchBodySchema = z.object({ isEnabled: z.boolean() }).strict();
export type EnabledPatchBody = z.infer<typeof EnabledPatchBodySchema>;

/**
 * A built-in bundle as shipped in `resources/bundles/<name>/bundle.json`: a bundle
 * without the fields the store owns (isBuiltIn is implied, built-ins are never deleted).
 */
export const BuiltinBundleConfigSchema = BundleSchema.omit({ isBuiltIn: true, softDeletedAt: true });
export type BuiltinBundleConfig = z.infer<typeof BuiltinBundleConfigSchema>;

/** Page sizes of the registry's lists: the same bounds as the search API. */
export const REGISTRY_MAX_PAGE_SIZE = 100;
export const REGISTRY_DEFAULT_PAGE_SIZE = 20;

/** The filters and paging the registry's bundle and tool lists share (the tool list adds tags). */
export const registryListShape = {
  bundleIds: z.array(UuidV7Schema).max(1000).optional(),
  includeDisabled: z.boolean().optional(),
  /** Soft-deleted bundles, and the tools of soft-deleted bundles, are hidden unless asked for. */
  includeDeleted: z.boolean().optional(),
  pageSize: z.number().int().min(1).max(REGISTRY_MAX_PAGE_SIZE).optional(),
  pageToken: z.string().max(512).optional(),
};

export const ListBundlesQuerySchema = z.object(registryListShape).strict();
export type ListBundlesQuery = z.infer<typeof ListBundlesQuerySchema>;

export interface Page<T> {
  items: T[];
  /** Absent on the last page. */
  nextPageToken?: string;
}

/** Usable means enabled and not soft-deleted. */
export function isBundleUsable(b: Pick<Bundle, 'isEnabled' | 'softDeletedAt'>): boolean {
  return b.isEnabled && b.softDeletedAt === undefined;
}
