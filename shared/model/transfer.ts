import { z } from 'zod';

/** ZIPs travel as base64 inside a contract call, so they are bounded by the call's size. */
export const MAX_IMPORT_ZIP_BYTES = 6 * 1024 * 1024;

export const ImportReportSchema = z
  .object({
    bundleId: z.string().optional(),
    bundleSlug: z.string().optional(),
    /** slug@version of each tool imported. */
    imported: z.array(z.string()),
    /** slug@version that appear more than once in the archive; no copy of them was written. */
    conflicts: z.array(z.string()),
    invalid: z.array(z.object({ entry: z.string(), message: z.string() }).strict()),
    /** True when nothing was written (a refused archive, or every entry conflicted or was invalid). */
    nothingImported: z.boolean(),
  })
  .strict();
export type ImportReport = z.infer<typeof ImportReportSchema>;

/** One operation of an OpenAPI document, proposed as an HTTP tool. */
export const OpenApiOperationSchema = z
  .object({
    key: z.string(),
    method: z.string(),
    path: z.string(),
    summary: z.string(),
    slug: z.string(),
    /** A ToolPutBody for this operation, ready to save (or to edit first). */
    tool: z.record(z.string(), z.unknown()),
    warnings: z.array(z.string()),
  })
  .strict();
export type OpenApiOperation = z.infer<typeof OpenApiOperationSchema>;

export const OpenApiImportSchema = z
  .object({
    title: z.string(),
    version: z.string(),
    servers: z.array(z.string()),
    /** Hosts to add to Settings → Allowed hosts for these tools to run. */
    hostsProposal: z.array(z.string()),
    operations: z.array(OpenApiOperationSchema),
  })
  .strict();
export type OpenApiImport = z.infer<typeof OpenApiImportSchema>;
