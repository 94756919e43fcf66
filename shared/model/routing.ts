import { z } from 'zod';

/**
 * Output routing (docs/design/routing.md): where a tool's result or an `@input`'s content goes,
 * how it is written there, and the manifest left in its place. The directive grammar that
 * produces these lives in shared/directives; the writing lives in electron/core/routing.
 */

export const WriteModeSchema = z.enum(['append', 'replace', 'new']);
export type WriteMode = z.infer<typeof WriteModeSchema>;

/** Buffer names: what `variable:NAME` accepts. */
export const BUFFER_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
export const BufferNameSchema = z.string().regex(BUFFER_NAME_RE, 'letters, digits, _ . - (at most 128, not starting with . or -)');

export const DestinationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('inline') }).strict(),
  z.object({ kind: z.literal('discard') }).strict(),
  z.object({ kind: z.literal('variable'), name: BufferNameSchema }).strict(),
  /** A path relative to the workspace folder, placeholders ({today}, ...) not yet expanded. */
  z.object({ kind: z.literal('file'), path: z.string().min(1).max(4096) }).strict(),
]);
export type Destination = z.infer<typeof DestinationSchema>;

/** How a destination is written in a directive: `inline`, `discard`, `variable:NAME`, `file:PATH`. */
export function formatDestination(d: Destination): string {
  switch (d.kind) {
    case 'inline':
    case 'discard':
      return d.kind;
    case 'variable':
      return `variable:${d.name}`;
    case 'file':
      return `file:${d.path}`;
  }
}

/**
 * What is left in the chat (and given to a model) instead of a routed payload.
 * `text` is the exact manifest: `[tool routed] NAME -> DEST (total N chars)` or
 * `[input routed] 3 files -> variable:foo (total 12,340 chars)` then `paths: ...`.
 */
export const ManifestSchema = z
  .object({
    kind: z.enum(['tool', 'input']),
    /** The tool's slug, or the input's source as written (`file:notes/*.md`). */
    name: z.string(),
    /** The destination as resolved: `variable:results-2` for write-mode=new, `file:archive/2026-11-22.md`. */
    destination: z.string(),
    target: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('discard') }).strict(),
      z.object({ kind: z.literal('variable'), ownerId: z.string(), name: z.string() }).strict(),
      /** Relative to the workspace, '/' separators. */
      z.object({ kind: z.literal('file'), path: z.string() }).strict(),
    ]),
    writeMode: WriteModeSchema,
    count: z.number().int().min(0),
    totalChars: z.number().int().min(0),
    paths: z.array(z.string()),
    text: z.string(),
  })
  .strict();
export type Manifest = z.infer<typeof ManifestSchema>;

// ---- buffers -----------------------------------------------------------------------------

/** Buffers belong to an owner: a conversation (its id) or a workflow run started outside one (its run id). */
export const BufferInfoSchema = z
  .object({
    ownerId: z.string(),
    name: z.string(),
    /** Characters (UTF-16 code units, as a JS string counts them). */
    chars: z.number().int().min(0),
    bytes: z.number().int().min(0),
    lines: z.number().int().min(0),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** What last wrote it: `tool:readfile`, `input:file:notes.md`, `buffer_ops`, ... */
    source: z.string(),
  })
  .strict();
export type BufferInfo = z.infer<typeof BufferInfoSchema>;

export const BufferReadSchema = z
  .object({
    text: z.string(),
    /** Where the text starts: a character offset and a 1-based line number. */
    offset: z.number().int().min(0),
    startLine: z.number().int().min(1),
    /** The last line included (1-based; equals startLine - 1 when text is empty). */
    endLine: z.number().int().min(0),
    totalChars: z.number().int().min(0),
    totalLines: z.number().int().min(0),
  })
  .strict();
export type BufferRead = z.infer<typeof BufferReadSchema>;

export const BufferMatchSchema = z
  .object({
    line: z.number().int().min(1),
    /** 0-based column (UTF-16) and length of the match within the line. */
    column: z.number().int().min(0),
    length: z.number().int().min(0),
    text: z.string(),
    /** The column `text` starts at: a long line is shown as a window around its match (absent: 0, its head). */
    textStart: z.number().int().min(0).optional(),
    before: z.array(z.string()),
    after: z.array(z.string()),
  })
  .strict();
export type BufferMatch = z.infer<typeof BufferMatchSchema>;

export const BufferSearchResultSchema = z
  .object({ matches: z.array(BufferMatchSchema), more: z.boolean(), scannedChars: z.number().int().min(0) })
  .strict();
export type BufferSearchResult = z.infer<typeof BufferSearchResultSchema>;

// ---- workspace files ---------------------------------------------------------------------

export const WorkspaceEntrySchema = z
  .object({
    name: z.string(),
    /** Relative to the workspace, '/' separators. */
    path: z.string(),
    kind: z.enum(['file', 'dir', 'symlink', 'other']),
    size: z.number().int().min(0),
    modifiedAt: z.string(),
  })
  .strict();
export type WorkspaceEntry = z.infer<typeof WorkspaceEntrySchema>;

export const WorkspaceReadSchema = z
  .object({
    path: z.string(),
    text: z.string(),
    /** Byte offset of `text` in the file, and the file's size in bytes. */
    offset: z.number().int().min(0),
    totalBytes: z.number().int().min(0),
    /** More bytes follow `text`. */
    more: z.boolean(),
    /** The bytes looked binary: `text` is empty. */
    binary: z.boolean(),
  })
  .strict();
export type WorkspaceRead = z.infer<typeof WorkspaceReadSchema>;
