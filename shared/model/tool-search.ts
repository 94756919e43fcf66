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

/** Definitions a turn's searches may load: the default keeps eight searches on the 500 realistic tools under 0.15x of every schema (docs/tool-search.md). */
export const LOADED_TOKENS_DEFAULT = 32_000;
export const LOADED_TOKENS_MIN = 1_000;
export const LOADED_TOKENS_MAX = 1_000_000;

/**
 * Semantic search (docs/tool-search.md, "Semantic search"): tools' texts and the model's
 * query are embedded by a saved provider's OpenAI-compatible `/embeddings` endpoint and the
 * nearest tools are fused with the word ranking. Off, or when the endpoint fails, the ranking
 * is by words alone.
 */
export const SemanticSearchSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** A saved provider (Settings → Models) whose base URL serves `/embeddings`; '' when none is chosen. */
    providerId: z.string().max(100),
    /** The embedding model, e.g. nomic-embed-text (Ollama) or text-embedding-3-small (OpenAI). */
    model: z.string().max(300),
  })
  .strict()
  .refine((s) => !s.enabled || (s.providerId !== '' && s.model.trim() !== ''), { message: 'choose a provider and a model to turn semantic search on', path: ['model'] });
export type SemanticSearchSettings = z.infer<typeof SemanticSearchSettingsSchema>;

export const DEFAULT_SEMANTIC_SEARCH_SETTINGS: SemanticSearchSettings = { enabled: false, providerId: '', model: '' };

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
    /**
     * Tokens of definitions one turn's searches may load, all searches together (and never
     * more than `maxSchemaPercent` of the model's window); past it a search still answers but
     * loads nothing more. Absent in settings written before it: the default.
     */
    maxLoadedTokens: z.number().int().min(LOADED_TOKENS_MIN).max(LOADED_TOKENS_MAX).default(LOADED_TOKENS_DEFAULT),
    semantic: SemanticSearchSettingsSchema.default(DEFAULT_SEMANTIC_SEARCH_SETTINGS),
  })
  .strict();
export type ToolSearchSettings = z.infer<typeof ToolSearchSettingsSchema>;

export const DEFAULT_TOOL_SEARCH_SETTINGS: ToolSearchSettings = {
  mode: 'auto',
  maxTools: 30,
  maxSchemaPercent: 25,
  pinned: [],
  results: 5,
  maxLoadedTokens: LOADED_TOKENS_DEFAULT,
  semantic: DEFAULT_SEMANTIC_SEARCH_SETTINGS,
};

/** The answer of Settings → Tool search's "Test": one sentence embedded, or why not. */
export const EmbeddingsTestSchema = z
  .object({
    ok: z.boolean(),
    /** One sentence a user can act on: "768 dimensions in 41 ms", "the key was refused (401)", ... */
    message: z.string(),
    dimensions: z.number().int().optional(),
    ms: z.number().optional(),
  })
  .strict();
export type EmbeddingsTest = z.infer<typeof EmbeddingsTestSchema>;
