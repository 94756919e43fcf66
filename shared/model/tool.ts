import { z } from 'zod';
import { FullHttpSpecSchema, httpSpecProblems, placeholdersOf } from './http-spec';
import { ScriptSourceSpecSchema, ScriptSpecSchema } from './script-tool';
import { isBundleUsable, registryListShape, type Bundle } from './bundle';
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
 * A tool (docs/design/registry.md). `local` is a TypeScript function registered in the
 * main process under a stable id; `script` is JavaScript run in a sandbox (./script-tool.ts).
 * A tool file `<data>/bundles/<bundleId>/tools/<name>.json` holds exactly this object (a
 * script tool's source is in `<name>.js` beside it).
 *
 * Tool versions are immutable: a PUT of an existing <slug, version> is a conflict, so a
 * tool's `modifiedAt` equals its `createdAt`; PATCH only flips `isEnabled`, which is not a
 * structural change and leaves `modifiedAt` alone.
 */
export const ToolTypeSchema = z.enum(['local', 'http', 'sequence', 'mcp', 'script']);
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

/**
 * The HTTP back-end (shared/model/http-spec.ts): templates checked when the tool is saved,
 * so a placeholder in the host or a malformed one never reaches a request.
 */
export const HttpSpecSchema = z
  .unknown()
  // Size and depth first, by an iterative walk, so a hostile value never reaches zod's recursion.
  .superRefine(ruled((v) => jsonViolation(v, 'http', HTTP_SPEC_LIMITS)))
  .pipe(
    FullHttpSpecSchema.superRefine((spec, ctx) => {
      for (const p of httpSpecProblems(spec)) {
        ctx.addIssue({ code: 'custom', path: p.field.split('.').slice(1), message: p.message, params: { rule: p.rule } });
      }
    }),
  );
export type HttpSpec = z.infer<typeof HttpSpecSchema>;

/**
 * A multi-step tool: a sequence of other tools' calls. Each step's args is a JSON template
 * whose strings may hold `${args.NAME}` (the call's arguments) and `${steps.ID.value...}`
 * (an earlier step's result); a string that is exactly one placeholder takes the value as
 * JSON. `result` (a template too) shapes the answer; by default it is the last step's value.
 */
export const SequenceStepSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,63}$/, { error: "a step id: letters, digits and '-', starting with a letter" }),
    tool: z.object({ bundleId: UuidV7Schema, slug: SlugSchema, version: VersionSchema }).strict(),
    args: z.unknown(),
  })
  .strict();
export const SequenceSpecSchema = z
  .unknown()
  .superRefine(ruled((v) => jsonViolation(v, 'sequence', HTTP_SPEC_LIMITS)))
  .pipe(z.object({ steps: z.array(SequenceStepSchema).min(1).max(20), result: z.unknown().optional() }).strict())
  .superRefine((spec, ctx) => {
    const seen = new Set<string>();
    spec.steps.forEach((step, i) => {
      if (seen.has(step.id)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'id'], message: `step id '${step.id}' is used twice`, params: { rule: 'unique' } });
      for (const ref of sequenceRefs(step.args)) {
        if (ref.kind === 'step' && !seen.has(ref.step)) {
          ctx.addIssue({ code: 'custom', path: ['steps', i, 'args'], message: `step '${step.id}' uses \${steps.${ref.step}...}, which is not an earlier step`, params: { rule: 'step-order' } });
        }
        if (ref.kind === 'bad') ctx.addIssue({ code: 'custom', path: ['steps', i, 'args'], message: ref.message, params: { rule: 'template' } });
      }
      seen.add(step.id);
    });
    for (const ref of sequenceRefs(spec.result)) {
      if (ref.kind === 'step' && !seen.has(ref.step)) ctx.addIssue({ code: 'custom', path: ['result'], message: `result uses \${steps.${ref.step}...}, which is not a step`, params: { rule: 'step-order' } });
      if (ref.kind === 'bad') ctx.addIssue({ code: 'custom', path: ['result'], message: ref.message, params: { rule: 'template' } });
    }
  });
export type SequenceSpec = z.infer<typeof SequenceSpecSchema>;

type SequenceRef = { kind: 'args' } | { kind: 'step'; step: string } | { kind: 'bad'; message: string };

/** Every placeholder in a JSON template, as what it refers to. */
export function sequenceRefs(template: unknown): SequenceRef[] {
  const refs: SequenceRef[] = [];
  const stack = [template];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') {
      try {
        for (const p of placeholdersOf(x)) {
          if (p.kind === 'secret') refs.push({ kind: 'bad', message: 'secrets are for HTTP tools; a sequence passes them on by calling one' });
          else if (p.path[0] === 'args') refs.push({ kind: 'args' });
          else if (p.path[0] === 'steps' && p.path[1]) refs.push({ kind: 'step', step: p.path[1] });
          else refs.push({ kind: 'bad', message: `'\${${p.path.join('.')}}' must start with args. or steps.ID.` });
        }
      } catch (e) {
        refs.push({ kind: 'bad', message: (e as Error).message });
      }
    } else if (Array.isArray(x)) stack.push(...x);
    else if (x && typeof x === 'object') stack.push(...Object.values(x));
  }
  return refs;
}

/**
 * A tool of an MCP server brought in as a bundle (electron/core/mcp-client): the server is the
 * bundle's, `serverTool` the tool's name on that server. `title` and `annotations` are what the
 * server said of it (hints, shown; a destructive one makes the tool ask before a model runs it).
 */
export const McpToolAnnotationsSchema = z
  .object({
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .strict();
export const McpSpecSchema = z
  .object({
    serverTool: z.string().min(1).max(256),
    title: z.string().max(256).optional(),
    annotations: McpToolAnnotationsSchema.optional(),
    /** The server runs it only as an MCP task (execution.taskSupport: required): it is called as one. */
    task: z.literal('required').optional(),
    /**
     * The tool's MCP App (extension io.modelcontextprotocol/ui): the `ui://` page its server shows
     * for it, and who may call it. Without `visibility` both may; a tool without 'model' is never
     * offered to a model, and one without 'app' is refused to apps.
     */
    ui: z
      .object({
        /** Absent for a tool that has no page of its own but is shown to apps only (visibility). */
        resourceUri: z.string().max(2048).regex(/^ui:\/\//, 'a ui:// address').optional(),
        visibility: z.array(z.enum(['model', 'app'])).max(2).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type McpSpec = z.infer<typeof McpSpecSchema>;

/** A model may be offered the tool: not an MCP tool its server shows to its app only. */
export function isModelVisible(tool: { mcp?: McpSpec | undefined }): boolean {
  const v = tool.mcp?.ui?.visibility;
  return !v || v.includes('model');
}

/** An MCP App of the tool's own server may call it. */
export function isAppVisible(tool: { mcp?: McpSpec | undefined }): boolean {
  const v = tool.mcp?.ui?.visibility;
  return !v || v.includes('app');
}

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
  sequence: SequenceSpecSchema.optional(),
  mcp: McpSpecSchema.optional(),
  /** Stored: the source's SHA-256 and limits (the source is in the `.js` file beside the tool's). */
  script: ScriptSpecSchema.optional(),
  isEnabled: z.boolean(),
  /** A model's call waits for the user's approval in the chat (calls from the + palette, the tester and the API do not). */
  requiresApproval: z.boolean().optional(),
};

/** What a client sends differs from what is stored for one back-end: a script tool is sent with its source. */
const toolPutShape = { ...toolBodyShape, script: ScriptSourceSpecSchema.optional() };

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
const BACKENDS = { local: 'local: {functionId}', http: 'http: {method, urlTemplate}', sequence: 'sequence: {steps}', mcp: 'mcp: {serverTool}', script: 'script: {source}' } as const;

/**
 * What a tool's author wrote, in the order its file keeps them: the fields every tool has, then
 * the back-end object of its type. The store's record and an export's put body both copy these.
 */
export const TOOL_DEFINITION_FIELDS = ['displayName', 'description', 'tags', 'type', 'argSchema', 'outputSchema'] as const satisfies readonly (keyof typeof toolBodyShape)[];
export const TOOL_BACKEND_FIELDS = Object.keys(BACKENDS) as (keyof typeof BACKENDS)[];

function backendMatchesType(t: { type?: unknown; local?: unknown; http?: unknown; sequence?: unknown; mcp?: unknown; script?: unknown }, ctx: z.RefinementCtx): void {
  if (typeof t.type !== 'string' || !(t.type in BACKENDS)) return;
  for (const kind of Object.keys(BACKENDS) as (keyof typeof BACKENDS)[]) {
    const present = t[kind] !== undefined;
    if (kind === t.type && !present) {
      ctx.addIssue({ code: 'custom', path: [kind], message: `a tool of type '${kind}' needs ${BACKENDS[kind]}`, params: { rule: 'required' } });
    }
    if (kind !== t.type && present) {
      ctx.addIssue({ code: 'custom', path: [kind], message: `a tool of type '${t.type}' must not have a ${kind} spec`, params: { rule: 'type-mismatch' } });
    }
  }
}

/** PUT /tools/bundles/{bundleID}/tools/{toolSlug}/version/{version}. */
export const ToolPutBodySchema = z.object(toolPutShape).strict().superRefine(backendMatchesType);
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

/** A built-in tool as shipped in `resources/bundles/<name>/tools/*.json` (never a script: built-ins are local functions). */
export const BuiltinToolConfigSchema = z
  .object({ id: UuidV7Schema, slug: SlugSchema, version: VersionSchema, ...toolBodyShape, createdAt: TimestampSchema, modifiedAt: TimestampSchema })
  .strict()
  .superRefine(backendMatchesType)
  .refine((t) => t.type !== 'script', { message: 'a built-in tool cannot be a script tool', path: ['type'] });
export type BuiltinToolConfig = z.infer<typeof BuiltinToolConfigSchema>;

export const ListToolsQuerySchema = z
  .object({
    /** A tool matches when it has every tag given. */
    tags: TagsSchema.optional(),
    ...registryListShape,
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
