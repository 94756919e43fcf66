/**
 * Every user-visible string of Settings → Tool search (docs/tool-search.md). Kept apart from
 * strings.ts like the other screens' strings.
 */
import type { ToolSearchMode } from '../../shared/model/tool-search';

export const toolSearchStrings = {
  title: 'Tool search',
  help: 'With many tools, a model is not given every tool’s definition: it gets the pinned tools and tool_search, finds the tools it needs by describing the task, and those are added for the rest of its turn. The chat shows each search and the tools it loaded.',
  mode: 'When',
  modes: {
    auto: 'Past either threshold below',
    always: 'Always',
    off: 'Never (every definition is sent)',
  } satisfies Record<ToolSearchMode, string>,
  forced: (max: number) => `Past ${max} tools a model is always given tool_search: providers refuse more tools than that in one request.`,
  maxTools: 'More tools than',
  maxSchemaPercent: 'Or definitions taking more of the model’s window than (%)',
  maxSchemaPercentHelp: 'The window is the one Settings → Tool outputs gives the model.',
  results: 'Tools a search returns',
  pinned: 'Pinned tools',
  pinnedHelp: 'One per line: a tool’s slug, or bundle/slug. Always given to the model, searched or not. A message’s @tools lines pin their tools for that turn too.',
  maxLoadedTokens: 'Definitions a turn’s searches load, at most (tokens)',
  maxLoadedTokensHelp: 'All of a turn’s searches together, and never more than the share of the window above. Past it a search still names what it found, but loads nothing more.',
  semantic: 'Semantic search (embeddings)',
  semanticHelp:
    'Also rank tools by meaning: each tool’s text (name, description, arguments) and each search’s query are sent to the provider’s /embeddings endpoint, and the nearest tools are fused with the word ranking. Tools are embedded once and kept in the data folder. When the endpoint fails or is slow, searches rank by words and say so.',
  semanticEnabled: 'Rank by meaning too',
  semanticProvider: 'Provider',
  semanticProviderNone: 'Choose a provider…',
  semanticProviderHelp: 'An OpenAI-compatible provider from Settings → Models that serves /embeddings: OpenAI, LM Studio, or Ollama (its /v1 address).',
  semanticModel: 'Embedding model',
  semanticModelHelp: 'e.g. nomic-embed-text (Ollama), text-embedding-nomic-embed-text-v1.5 (LM Studio), text-embedding-3-small (OpenAI).',
  test: 'Test',
  testing: 'Testing…',
  testOk: 'Embedded a sentence',
  testFailed: 'Failed',
  save: 'Save',
  saving: 'Saving…',
  saved: 'Saved.',
};
