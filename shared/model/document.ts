/** Documents (docs/design/documents.md): workspace files with metadata, passed between tasks. */
import { z } from 'zod';

export const DocumentVersionSchema = z
  .object({ seq: z.number().int().min(1), hash: z.string(), sizeBytes: z.number().int().min(0), at: z.string(), by: z.string() })
  .strict();

export const DocumentSummaryInfoSchema = z
  .object({
    /** first-lines: the file's first lines; model: written by a model. */
    source: z.enum(['first-lines', 'model']),
    /** The content hash (a version's) the summary describes. */
    hash: z.string().optional(),
    /** The model that wrote it (`providerId/model`). */
    model: z.string().optional(),
    /** Why the model's summary of this version could not be had (the first lines stay). */
    failed: z.string().optional(),
  })
  .strict();
export type DocumentSummaryInfo = z.infer<typeof DocumentSummaryInfoSchema>;

export const DocumentInfoSchema = z
  .object({
    /** Relative to the workspace, '/' separators. */
    path: z.string(),
    /** Who wrote it first: a task, a conversation, or "user". */
    createdBy: z.string(),
    createdAt: z.string(),
    updatedBy: z.string(),
    updatedAt: z.string(),
    mimeType: z.string(),
    sizeBytes: z.number().int().min(0),
    /** An estimate (4 bytes a token); absent for binary files and very large ones. */
    tokenCount: z.number().int().min(0).optional(),
    /** A summary of a text file: written by Settings' document summary model when one is set, else its first lines. */
    autoSummary: z.string(),
    /** Where the summary comes from, and which content it describes. */
    summaryInfo: DocumentSummaryInfoSchema.optional(),
    description: z.string(),
    tags: z.array(z.string()),
    /** Oldest first; only when one document is asked for. */
    versions: z.array(DocumentVersionSchema).optional(),
  })
  .strict();
export type DocumentInfo = z.infer<typeof DocumentInfoSchema>;

export const DocumentQuerySchema = z
  .object({
    tags: z.array(z.string().max(100)).max(20).optional(),
    createdBy: z.string().max(200).optional(),
    /** `text/csv`, or a prefix ending in '/' (`image/`). */
    mimeType: z.string().max(200).optional(),
    pathPrefix: z.string().max(4096).optional(),
    /** Words that must all appear in the path, description, summary or tags. */
    text: z.string().max(1000).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  })
  .strict();
export type DocumentQuery = z.infer<typeof DocumentQuerySchema>;
