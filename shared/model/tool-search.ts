import { z } from 'zod';

/**
 * Tool search (docs/tool-search.md): when a conversation has more tools than `maxTools`, or
 * their definitions would take more than `maxSchemaPercent` of the model's window, the model
 * is given the pinned tools and `tool_search` instead of every definition. `auto` does that
 * past either threshold, `always` whatever the count, `off` never — except past the number
 * of tools a provider accepts (PROVIDER_MAX_TOOLS), where search is always used.
 */
export const ToolSearchModeSchema = z.enum(['auto', 'always', 'off']);
export type ToolSearchMode = z.infer<typeof ToolSearchModeSchema>;

/** The most tools one request may carry: OpenAI refuses more than 128. */
export const PROVIDER_MAX_TOOLS = 128;

export const ToolSearchSettingsSchema = z
  .object({
    mode: ToolSearchModeSchema,
    /** More tools than this: search (auto). */
    maxTools: z.number().int().min(1).max(PROVIDER_MAX_TOOLS),
    /** Definitions taking more than this share of the model's window, in percent: search (auto). */
    maxSchemaPercent: z.number().int().min(1).max(100),
    /** Tools (slug, or bundle/slug) the model always has, searched or not. */
    pinned: z.array(z.string().regex(/^([A-Za-z0-9][A-Za-z0-9_.-]*\/)?[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a tool slug, or bundle/slug').max(300)).max(100),
    /** Tools one search returns (and loads) unless the model asks for another number. */
    results: z.number().int().min(1).max(20),
  })
  .strict();
export type ToolSearchSettings = z.infer<typeof ToolSearchSettingsSchema>;

export const DEFAULT_TOOL_SEARCH_SETTINGS: ToolSearchSettings = { mode: 'auto', maxTools: 30, maxSchemaPercent: 25, pinned: [], results: 5 };
