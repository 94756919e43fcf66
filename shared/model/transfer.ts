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
    /** slug@version of each imported tool that asks before a model (or a served client) runs it, and why (shared/model/tool-approval.ts). */
    asks: z.array(z.object({ tool: z.string(), message: z.string() }).strict()).optional(),
    /**
     * Set when the bundle was imported under another slug or display name because a bundle with
     * the archive's slug or name was already there (slug `weather` → `weather-2`, "Weather" →
     * "Weather (2)"); `bundleSlug` is then the new slug.
     */
    renamed: z
      .object({
        from: z.object({ slug: z.string(), displayName: z.string() }).strict(),
        to: z.object({ slug: z.string(), displayName: z.string() }).strict(),
      })
      .strict()
      .optional(),
    /** The saved test cases imported, per tool slug (the archive's `testcases/<slug>.json`). */
    testCases: z.array(z.object({ slug: z.string(), count: z.number().int() }).strict()).optional(),
    /** How many of the archive's eval cases (its `evals.json`) were imported. */
    evalCases: z.number().int().optional(),
    /** True when nothing was written (a refused archive, or every entry conflicted or was invalid). */
    nothingImported: z.boolean(),
  })
  .strict();
export type ImportReport = z.infer<typeof ImportReportSchema>;

/** A variable in the servers' URLs (`{tenant}`): the user fills it before the tools are saved. */
export const OpenApiServerVariableSchema = z
  .object({
    name: z.string(),
    /** The document's default, pre-filled; absent when the document's host is itself a placeholder (your-domain). */
    default: z.string().optional(),
    enum: z.array(z.string()).optional(),
    description: z.string().optional(),
  })
  .strict();
export type OpenApiServerVariable = z.infer<typeof OpenApiServerVariableSchema>;

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
    /** The inputs the document gives the operation (parameters and body properties) and the arguments the tool has. */
    inputs: z.object({ document: z.number().int(), arguments: z.number().int() }).strict(),
    warnings: z.array(z.string()),
  })
  .strict();
export type OpenApiOperation = z.infer<typeof OpenApiOperationSchema>;

export const OpenApiImportSchema = z
  .object({
    title: z.string(),
    version: z.string(),
    servers: z.array(z.string()),
    /** Hosts to add to Settings → Allowed hosts for these tools to run: the importers add the public ones, never a private-network one on the document's word (proposed-hosts.ts). */
    hostsProposal: z.array(z.string()),
    operations: z.array(OpenApiOperationSchema),
    /** Variables in the servers' URLs, kept as `{name}` in each tool's urlTemplate and hostsProposal until filled. */
    serverVariables: z.array(OpenApiServerVariableSchema),
    /** Operations that were not proposed, and why (e.g. OPTIONS, which no HTTP tool sends). */
    skipped: z.array(z.object({ key: z.string(), reason: z.string() }).strict()),
  })
  .strict();
export type OpenApiImport = z.infer<typeof OpenApiImportSchema>;
