/**
 * The gate (docs/design/tool-outputs.md, decision 11): a result is oversized when it is over the
 * bytes cap OR its tokens would overflow what is left of the model's window. Only oversized
 * results are stored (decision 10); the rest reach the model as they are.
 */

export const DEFAULT_MAX_RESULT_BYTES = 256 * 1024;

export interface GateInput {
  bytes: number;
  tokens: number;
}

export interface GateWindow {
  /** The bytes cap (Settings; default 256 KiB). */
  maxBytes: number;
  /** The model's context window and output budget, when known. */
  contextTokens?: number;
  maxOutputTokens?: number;
  /** Tokens the conversation already takes (the last step's input figure, or an estimate). */
  usedTokens?: number;
}

export interface GateDecision {
  oversized: boolean;
  reason?: 'bytes' | 'tokens';
  /** The result's share of the model's window (0..), when the window is known. */
  share?: number;
  /** Tokens left for it in the window, when known. */
  freeTokens?: number;
}

export function gate(r: GateInput, w: GateWindow): GateDecision {
  const known = w.contextTokens !== undefined && w.contextTokens > 0;
  const free = known ? Math.max(0, w.contextTokens! - (w.maxOutputTokens ?? 0) - (w.usedTokens ?? 0)) : undefined;
  const share = known ? r.tokens / w.contextTokens! : undefined;
  const base = { ...(share !== undefined ? { share } : {}), ...(free !== undefined ? { freeTokens: free } : {}) };
  if (r.bytes > w.maxBytes) return { oversized: true, reason: 'bytes', ...base };
  if (free !== undefined && r.tokens > free) return { oversized: true, reason: 'tokens', ...base };
  return { oversized: false, ...base };
}
