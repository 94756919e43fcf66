import { z } from 'zod';
import { entryProblemText, explainAllowedHost } from './allowed-hosts';
import { ModelRefSchema } from './provider';
import { DEFAULT_TOOL_SEARCH_SETTINGS, ToolSearchSettingsSchema } from './tool-search';
import { DEFAULT_MCP_SERVER_SETTINGS, McpServerSettingsSchema } from './mcp-serve';
import { keyedRecord } from './keyed-record';
import { DEFAULT_SCRIPT_SETTINGS, ScriptSettingsSchema } from './script-tool';

export const ThemeSchema = z.enum(['system', 'light', 'dark']);
export type Theme = z.infer<typeof ThemeSchema>;

/** Host names a tool may reach: exact, or `*.` on a label boundary; an optional port; `private:` marks a private-network host. */
export const AllowedHostSchema = z.string().superRefine((entry, ctx) => {
  const why = explainAllowedHost(entry);
  if (why) ctx.addIssue({ code: 'custom', message: entryProblemText(entry, why) });
});

/** Bounds and default of Settings' regexTimeLimitMs: a hostile pattern stops within 5 s by default. */
export const REGEX_TIME_LIMIT_MIN_MS = 100;
export const REGEX_TIME_LIMIT_MAX_MS = 60_000;
export const REGEX_TIME_LIMIT_DEFAULT_MS = 4_000;

/** Bounds and default of Settings' maxDelegationDepth (tasks nested under a conversation). */
export const DELEGATION_DEPTH_MIN = 1;
export const DELEGATION_DEPTH_MAX = 10;
export const DELEGATION_DEPTH_DEFAULT = 3;

/**
 * Bounds and default of Settings' maxToolsPerBundle (docs/design/registry.md): how many tool
 * versions one bundle may hold. Each version is a file the store lists under
 * the bundle's lock and the catalog, the index and the tools screen carry, so a bundle cannot
 * grow without end (1,500 tools went into one before there was a limit).
 */
export const TOOLS_PER_BUNDLE_MIN = 1;
export const TOOLS_PER_BUNDLE_MAX = 10_000;
export const TOOLS_PER_BUNDLE_DEFAULT = 500;

/** What happens to an oversized tool result (docs/design/tool-outputs.md): kept as a handle (default), inline anyway, routed to a buffer, or dropped. */
export const OversizedChoiceSchema = z.enum(['handle', 'inline', 'buffer', 'drop']);
export type OversizedChoice = z.infer<typeof OversizedChoiceSchema>;

/** A model's window, when its provider does not say: context and output budget, in tokens. */
export const ModelWindowSchema = z
  .object({ contextTokens: z.number().int().min(512).max(100_000_000), maxOutputTokens: z.number().int().min(16).max(10_000_000) })
  .strict();
export type ModelWindow = z.infer<typeof ModelWindowSchema>;

/** Oversized tool outputs: the store, the gate and the extraction policy (docs/large-outputs.md). */
export const ToolOutputSettingsSchema = z
  .object({
    /** The folder the per-conversation `toolsmith-<id>` folders go in; empty: the OS temp folder. */
    baseDir: z.string().max(4096),
    /** A result over this many bytes is oversized (or one that would overflow the model's window). */
    maxResultBytes: z.number().int().min(1024).max(1024 * 1024 * 1024),
    /** The window assumed for a model with no entry in `models`. */
    defaultWindow: ModelWindowSchema,
    /** Per model, keyed `providerId/model` or just `model`. */
    models: keyedRecord(z.string().min(1).max(300), ModelWindowSchema),
    maxChunksForFullMode: z.number().int().min(1).max(1000),
    avgLineBytesForFullMode: z.number().int().min(1).max(100_000_000),
    overlapPercent: z.number().int().min(0).max(50),
    /** Per tool id: what the gate does with its oversized results (absent: keep as a handle). */
    perTool: keyedRecord(z.string().min(1).max(300), OversizedChoiceSchema),
  })
  .strict();
export type ToolOutputSettings = z.infer<typeof ToolOutputSettingsSchema>;

/**
 * The extraction thresholds a conversation or a workflow (its front matter) may set over
 * Settings' own: any subset; the most specific wins (workflow, then conversation, then Settings).
 */
export const ExtractionOverridesSchema = ToolOutputSettingsSchema.pick({ maxChunksForFullMode: true, avgLineBytesForFullMode: true, overlapPercent: true })
  .partial()
  .strict();
export type ExtractionOverrides = z.infer<typeof ExtractionOverridesSchema>;

/** Layers overrides over a base, later layers winning; absent fields keep the earlier value. */
export function withOverrides<T extends ExtractionOverrides>(base: T, ...layers: (ExtractionOverrides | undefined)[]): T {
  const out = { ...base };
  for (const l of layers) {
    if (!l) continue;
    for (const [k, v] of Object.entries(l) as [keyof ExtractionOverrides, number | undefined][]) if (v !== undefined) out[k] = v as T[typeof k];
  }
  return out;
}

export const DEFAULT_TOOL_OUTPUT_SETTINGS: ToolOutputSettings = {
  baseDir: '',
  maxResultBytes: 256 * 1024,
  defaultWindow: { contextTokens: 32_768, maxOutputTokens: 4_096 },
  models: {},
  maxChunksForFullMode: 1,
  avgLineBytesForFullMode: 1000,
  overlapPercent: 10,
  perTool: {},
};

export const SettingsSchema = z
  .object({
    theme: ThemeSchema,
    /** The folder tools may read and write; empty means `<data folder>/workspace`. */
    workspaceDir: z.string().max(4096),
    allowedHosts: z.array(AllowedHostSchema).max(1000),
    /** The model new conversations start with (null: none). */
    defaultModel: ModelRefSchema.nullable(),
    /** The model that writes documents' summaries after each write (null: a summary is the file's first lines). */
    documentSummaryModel: ModelRefSchema.nullable(),
    /** Tools (slug, or bundle/slug) whose results a model may route itself with `output`/`write_mode` (docs/design/routing.md). */
    modelRouting: z.array(z.string().regex(/^([A-Za-z0-9][A-Za-z0-9_.-]*\/)?[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a tool slug, or bundle/slug').max(300)).max(1000),
    /** How long one regular expression search (grep, regex-extract, a buffer search) may run before it is stopped with TIMEOUT. */
    regexTimeLimitMs: z.number().int().min(REGEX_TIME_LIMIT_MIN_MS).max(REGEX_TIME_LIMIT_MAX_MS),
    /** How deep agents may delegate (docs/design/orchestration.md): a task at this depth may not give work to another agent. */
    maxDelegationDepth: z.number().int().min(DELEGATION_DEPTH_MIN).max(DELEGATION_DEPTH_MAX),
    /** How many tool versions one bundle may hold; a new one past it is refused (updates and PATCH are not). */
    maxToolsPerBundle: z.number().int().min(TOOLS_PER_BUNDLE_MIN).max(TOOLS_PER_BUNDLE_MAX),
    toolOutputs: ToolOutputSettingsSchema,
    /** Tool search when a conversation has many tools (shared/model/tool-search.ts). */
    toolSearch: ToolSearchSettingsSchema,
    /** Settings → MCP server: whether the registry is served to other MCP clients, and which bundles. */
    mcpServer: McpServerSettingsSchema,
    /** Settings → Script tools: the time, memory and output limits of a script tool that sets none (shared/model/script-tool.ts). */
    scriptTools: ScriptSettingsSchema,
  })
  .strict();
export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  theme: 'system',
  workspaceDir: '',
  allowedHosts: [],
  defaultModel: null,
  documentSummaryModel: null,
  modelRouting: [],
  regexTimeLimitMs: REGEX_TIME_LIMIT_DEFAULT_MS,
  maxDelegationDepth: DELEGATION_DEPTH_DEFAULT,
  maxToolsPerBundle: TOOLS_PER_BUNDLE_DEFAULT,
  toolOutputs: DEFAULT_TOOL_OUTPUT_SETTINGS,
  toolSearch: DEFAULT_TOOL_SEARCH_SETTINGS,
  mcpServer: DEFAULT_MCP_SERVER_SETTINGS,
  scriptTools: DEFAULT_SCRIPT_SETTINGS,
};

/** A settings change: any subset of the fields. */
export const SettingsPatchSchema = SettingsSchema.partial().strict();
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;
