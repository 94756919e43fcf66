import { z } from 'zod';
import { isBundleUsable, REGISTRY_MAX_PAGE_SIZE, type Bundle } from './bundle';
import {
  argSchemaViolation,
  DescriptionSchema,
  DisplayNameSchema,
  HTTP_SPEC_LIMITS,
  jsonViolation,
  schemaViolation,
  SlugSchema,
  TagsSchema,
  TimestampSchema,
  UuidV7Schema,
  VersionSchema,
  type RuleViolation,
} from './validation';

/**
 * A tool (seed 004). `local` is the seed's `go`: a TypeScript function registered in the
 * main process under a stable id. A tool file `<data>/bundles/<bundleId>/tools/<name>.json`
 * holds exactly this object.
 *
 * Tool versions are immutable: a PUT of an existing <slug, version> is a conflict, so a
 * tool's `modifiedAt` equals its `createdAt`; PATCH only flips `isEnabled`, which is not a
 * structural change and leaves `modifiedAt` alone.
 */
export const ToolTypeSchema = z.enum(['local', 'http']);
export type ToolType = z.infer<typeof ToolTypeSchema>;

export type JsonSchemaObject = Record<string, unknown>;

function ruled(check: (v: unknown) => RuleViolation | null) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    const v = check(value);
    if (v) ctx.addIssue({ code: 'custom', message: v.message, params: { rule: v.rule } });
  };
}

/** Checked by an iterative walk (size, depth) here; compiled with ajv by the store. */
export const ArgSchemaSchema = z.custom<JsonSchemaObject>(() => true).superRefine(ruled((v) => argSchemaViolation(v)));
export const OutputSchemaSchema = z.custom<JsonSchemaObject>(() => true).superRefine(ruled((v) => schemaViolation(v, 'outputSchema')));

/** `files.read`, `text.regex-extract`: the id a local function is registered under. */
export const FunctionIdSchema = z
  .string()
  .max(128, { error: 'may be at most 128 characters' })
  .regex(/^[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/, { error: "must be dot-separated names of letters, digits, '_' and '-', e.g. files.read" });

export const LocalSpecSchema = z.object({ functionId: FunctionIdSchema }).strict();
export type LocalSpec = z.infer<typeof LocalSpecSchema>;

export const HttpMethodSchema = z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The HTTP back-end. Only what every HTTP tool needs is fixed here; further fields (headers,
 * body templates, auth, retries, ...) are kept as validated JSON until their shape is defined.
 */
export const HttpSpecSchema = z
  .object({
    method: HttpMethodSchema,
    urlTemplate: z
      .string()
      .max(8192, { error: 'may be at most 8,192 characters' })
      .refine((u) => u.startsWith('http://') || u.startsWith('https://'), {
        error: 'urlTemplate must start with http:// or https://',
        params: { rule: 'url-scheme' },
      }),
  })
  .catchall(z.unknown())
  .superRefine(ruled((v) => jsonViolation(v, 'http', HTTP_SPEC_LIMITS)));
export type HttpSpec = z.infer<typeof HttpSpecSchema>;

/** Everything a client sends for a tool; slug and version come from the path. */
const toolBodyShape = {
  displayName: DisplayNameSchema,
  description: DescriptionSchema,
  tags: TagsSchema,
  type: ToolTypeSchema,
  argSchema: ArgSchemaSchema,
  outputSchema: OutputSchemaSchema,
  local: LocalSpecSchema.optional(),
  http: HttpSpecSchema.optional(),
  isEnabled: z.boolean(),
};

const toolIdentityShape = {
  id: UuidV7Schema,
  bundleId: UuidV7Schema,
  slug: SlugSchema,
  version: VersionSchema,
};

const toolStampShape = {
  isBuiltIn: z.boolean(),
  createdAt: TimestampSchema,
  modifiedAt: TimestampSchema,
};

/** The back-end object must match the type: `local` with type 'local', `http` with 'http'. */
function backendMatchesType(t: { type?: unknown; local?: unknown; http?: unknown }, ctx: z.RefinementCtx): void {
  if (t.type === 'local') {
    if (t.local === undefined) ctx.addIssue({ code: 'custom', path: ['local'], message: "a tool of type 'local' needs local: {functionId}", params: { rule: 'required' } });
    if (t.http !== undefined) ctx.addIssue({ code: 'custom', path: ['http'], message: "a tool of type 'local' must not have an http spec", params: { rule: 'type-mismatch' } });
  } else if (t.type === 'http') {
    if (t.http === undefined) ctx.addIssue({ code: 'custom', path: ['http'], message: "a tool of type 'http' needs http: {method, urlTemplate}", params: { rule: 'required' } });
    if (t.local !== undefined) ctx.addIssue({ code: 'custom', path: ['local'], message: "a tool of type 'http' must not have a local spec", params: { rule: 'type-mismatch' } });
  }
}

/** PUT /tools/bundles/{bundleID}/tools/{toolSlug}/version/{version}. */
export const ToolPutBodySchema = z.object(toolBodyShape).strict().superRefine(backendMatchesType);
export type ToolPutBody = z.infer<typeof ToolPutBodySchema>;

export const ToolSchema = z
  .object({ ...toolIdentityShape, ...toolBodyShape, ...toolStampShape })
  .strict()
  .superRefine(backendMatchesType);
export type Tool = z.infer<typeof ToolSchema>;

/**
 * A tool as the API serves it. A local tool whose function is not registered is shown
 * with `isEnabled: false` and the reason; its file is not rewritten for that.
 */
export const ToolViewSchema = z
  .object({ ...toolIdentityShape, ...toolBodyShape, ...toolStampShape, unavailableReason: z.string().optional() })
  .strict()
  .superRefine(backendMatchesType);
export type ToolView = z.infer<typeof ToolViewSchema>;

/** A built-in tool as shipped in `resources/bundles/<name>/tools/*.json`. */
export const BuiltinToolConfigSchema = z
  .object({ id: UuidV7Schema, slug: SlugSchema, version: VersionSchema, ...toolBodyShape, createdAt: TimestampSchema, modifiedAt: TimestampSchema })
  .strict()
  .superRefine(backendMatchesType);
export type BuiltinToolConfig = z.infer<typeof BuiltinToolConfigSchema>;

export const ListToolsQuerySchema = z
  .object({
    /** A tool matches when it has every tag given. */
    tags: TagsSchema.optional(),
    bundleIds: z.array(UuidV7Schema).max(1000).optional(),
    includeDisabled: z.boolean().optional(),
    /** Tools of soft-deleted bundles are hidden unless asked for. */
    includeDeleted: z.boolean().optional(),
    pageSize: z.number().int().min(1).max(REGISTRY_MAX_PAGE_SIZE).optional(),
    pageToken: z.string().max(512).optional(),
  })
  .strict();
export type ListToolsQuery = z.infer<typeof ListToolsQuerySchema>;

/** Kept apart from the tool files: recording a call never changes a tool's modifiedAt. */
export const ToolUsageSchema = z
  .object({ callCount: z.number().int().min(0), lastCalledAt: TimestampSchema.optional() })
  .strict();
export type ToolUsage = z.infer<typeof ToolUsageSchema>;

/** What changed in the registry; `bundleId` is set for tools. */
export const RegistryChangeSchema = z
  .object({
    kind: z.enum(['bundle', 'tool']),
    op: z.enum(['put', 'patch', 'delete']),
    id: UuidV7Schema,
    bundleId: UuidV7Schema.optional(),
  })
  .strict();
export type RegistryChange = z.infer<typeof RegistryChangeSchema>;

/**
 * Effective enabled: a tool may be offered and invoked only if it is enabled (and, for a
 * view, available), and its bundle is enabled and not soft-deleted.
 */
export function isToolUsable(tool: Pick<ToolView, 'isEnabled' | 'bundleId'>, bundle: Pick<Bundle, 'id' | 'isEnabled' | 'softDeletedAt'> | undefined): boolean {
  return tool.isEnabled && bundle !== undefined && bundle.id === tool.bundleId && isBundleUsable(bundle);
}
