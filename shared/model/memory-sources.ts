/**
 * Memory's data sources (docs/design/memory.md): a FileSource (a block source: files of a folder
 * become Working blocks through the `file` tool, under glob permission rules) and a folder
 * watcher (a stream source: new and changed files of a folder become notifications in the blocks
 * that subscribed to it). Their settings are kept in `memory-sources.json` in the data folder.
 */
import { z } from 'zod';
import { MEMORY_PERMISSIONS } from './memory';

/** A source's id: what `source` and `file` name it by (`source_id`). */
export const SourceIdSchema = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a source id is lowercase letters, digits and dashes (for example notes or project-docs)');

/** An absolute folder: `/home/me/notes`, `C:\Users\me\notes`, `\\server\share`. */
export const SourceFolderSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((v) => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(v), 'the folder is an absolute path (for example /home/me/notes)');

/** One glob rule: files whose path (relative to the folder, `/` separators) matches get this permission. */
export const FileRuleSchema = z
  .object({
    pattern: z.string().min(1).max(500),
    permission: z.enum(MEMORY_PERMISSIONS),
  })
  .strict();
export type FileRule = z.infer<typeof FileRuleSchema>;

export const FileSourceConfigSchema = z
  .object({
    kind: z.literal('files'),
    id: SourceIdSchema,
    folder: SourceFolderSchema,
    /** In order: the first rule that matches a path decides; a path no rule matches is refused. */
    rules: z.array(FileRuleSchema).max(200),
  })
  .strict();

export const WatchSourceConfigSchema = z
  .object({
    kind: z.literal('watch'),
    id: SourceIdSchema,
    folder: SourceFolderSchema,
    /** Globs of the files reported (relative to the folder); default every file. */
    include: z.array(z.string().min(1).max(500)).max(50).default(['**']),
    /** Paused: no notifications until resumed. */
    paused: z.boolean().default(false),
  })
  .strict();

export const SourceConfigSchema = z.discriminatedUnion('kind', [FileSourceConfigSchema, WatchSourceConfigSchema]);
export type SourceConfig = z.infer<typeof SourceConfigSchema>;
export type SourceConfigInput = z.input<typeof SourceConfigSchema>;
export type FileSourceConfig = z.infer<typeof FileSourceConfigSchema>;
export type WatchSourceConfig = z.infer<typeof WatchSourceConfigSchema>;

/** What `memory-sources.json` holds: the sources, and which blocks each stream writes its notifications to. */
export const SourcesFileSchema = z
  .object({
    sources: z.array(SourceConfigSchema).max(100),
    subscriptions: z.array(z.object({ sourceId: SourceIdSchema, owner: z.string(), label: z.string() }).strict()).max(10_000),
  })
  .strict();
export type SourcesFile = z.infer<typeof SourcesFileSchema>;

export const SOURCE_STATES = ['active', 'watching', 'paused', 'error'] as const;

/** A source as `source status` and Inspect → Memory show it. */
export const SourceStatusSchema = z
  .object({
    id: z.string(),
    /** `block`: a FileSource; `stream`: a folder watcher. */
    type: z.enum(['block', 'stream']),
    kind: z.enum(['files', 'watch']),
    folder: z.string(),
    /** active (a block source), watching, paused, or error (see `error`). */
    state: z.enum(SOURCE_STATES),
    error: z.string().optional(),
    /** FileSource: its rules, and the files loaded as blocks now. */
    rules: z.array(FileRuleSchema).optional(),
    loaded: z.array(z.object({ owner: z.string(), label: z.string(), path: z.string() }).strict()).optional(),
    /** Folder watcher: its globs, the blocks it writes to, its notifications since the app started, the latest few. */
    include: z.array(z.string()).optional(),
    subscribers: z.array(z.object({ owner: z.string(), label: z.string() }).strict()).optional(),
    notifications: z.number().int().optional(),
    recent: z.array(z.string()).optional(),
  })
  .strict();
export type SourceStatus = z.infer<typeof SourceStatusSchema>;
