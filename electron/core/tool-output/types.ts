/** The seams of extraction: the model it may call, its policy, and what a strategy answers. */
import type { BufferSearcher } from '../routing/buffer-search';
import type { ModelClient } from '../llm/types';
import type { ExtractionMode } from './messages';
import type { StoredOutput, ToolOutputStore } from './store';
import type { TokenCounter } from '../llm/tokens';

/** The conversation's model, with its window (from the provider's model info or Settings). */
export interface ExtractionModel {
  client: ModelClient;
  model: string;
  contextTokens: number;
  maxOutputTokens: number;
}

export interface ExtractionPolicy {
  /** auto picks full-chunked when the output fits in this many chunks (default 1). */
  maxChunksForFullMode: number;
  /** ... or when its average line is longer than this many bytes (default 1000). */
  avgLineBytesForFullMode: number;
  /** Overlap between chunks, percent (default 10). */
  overlapPercent: number;
  /** Map calls running at once (default 3). */
  mapConcurrency: number;
  /** Steps the read-grep sub-agent may take before it must report (default 12). */
  readGrepMaxSteps: number;
  /** Tokens a truncated view keeps when no model window is known (default 4000). */
  truncateTokens: number;
}

export const DEFAULT_POLICY: ExtractionPolicy = {
  maxChunksForFullMode: 1,
  avgLineBytesForFullMode: 1000,
  overlapPercent: 10,
  mapConcurrency: 3,
  readGrepMaxSteps: 12,
  truncateTokens: 4000,
};

export interface ExtractContext {
  store: ToolOutputStore;
  output: StoredOutput;
  extract: string;
  model?: ExtractionModel;
  policy: ExtractionPolicy;
  /** The session's nonce for the final-report wrapper. */
  nonce: string;
  signal: AbortSignal;
  tokens: TokenCounter;
  searcher: BufferSearcher;
}

/** A strategy could not execute (docs/design/tool-outputs.md, decision 4): extraction falls back to truncate. */
export class StrategyFailed extends Error {}

export interface StrategyResult {
  text: string;
  notFound: boolean;
  chunks?: number;
  modelCalls: number;
  tokensIn: number;
  tokensOut: number;
}

export interface ExtractionReport extends StrategyResult {
  /** The mode asked for, and the one that produced the text. */
  requested: ExtractionMode;
  used: Exclude<ExtractionMode, 'auto'>;
  /** Set when the chosen strategy failed and truncate answered instead. */
  fallback?: { from: Exclude<ExtractionMode, 'auto' | 'truncate'> | 'auto'; reason: string };
  durationMs: number;
}
