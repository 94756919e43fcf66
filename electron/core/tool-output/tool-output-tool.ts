/**
 * The `tool_output` tool (docs/design/tool-outputs.md, "Exact texts"): its arguments checked
 * against the exact schema, the extraction run, and the answer in the exact success or failure
 * text. Plain text, never JSON.
 */
import { AppError } from '../../../shared/errors';
import type { ExtractionInfo } from '../../../shared/model/conversation';
import { BufferSearcher } from '../routing/buffer-search';
import { extract } from './extract';
import { newNonce } from './final-report';
import { EXTRACTION_MODES, failureText, successText, type ExtractionMode } from './messages';
import type { ToolOutputStore } from './store';
import type { TokenCounter } from '../llm/tokens';
import { DEFAULT_POLICY, type ExtractionModel, type ExtractionPolicy, type ExtractionReport } from './types';

export interface ToolOutputAnswer {
  text: string;
  isError: boolean;
  report?: ExtractionReport & { why?: string };
  handle?: string;
  toolName?: string;
}

/** What an extraction did, as a tool card and the toolOutputs.extract answer show it. */
export function extractionInfo(handle: string, r: ExtractionReport & { why?: string }): ExtractionInfo {
  return {
    handle,
    requested: r.requested,
    used: r.used,
    ...(r.why ? { why: r.why } : {}),
    ...(r.chunks !== undefined ? { chunks: r.chunks } : {}),
    modelCalls: r.modelCalls,
    tokensIn: r.tokensIn,
    tokensOut: r.tokensOut,
    durationMs: r.durationMs,
    notFound: r.notFound,
    ...(r.fallback ? { fallback: r.fallback } : {}),
  };
}

export interface ToolOutputRunnerOptions {
  store: ToolOutputStore;
  tokens: TokenCounter;
  searcher?: BufferSearcher;
}

/** Checks `tool_output`'s arguments by the schema; answers the failure reason or the parsed args. */
export function checkArgs(args: unknown): { handle: string; extract: string; mode: ExtractionMode } | { error: string; handle?: string; mode?: string } {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: 'the arguments must be an object with handle and extract' };
  const a = args as Record<string, unknown>;
  const handle = typeof a.handle === 'string' ? a.handle : undefined;
  const mode = a.mode === undefined ? 'auto' : a.mode;
  const extra = Object.keys(a).filter((k) => !['handle', 'extract', 'mode'].includes(k));
  const base = { ...(handle ? { handle } : {}), ...(typeof mode === 'string' ? { mode } : {}) };
  if (extra.length) return { ...base, error: `unknown argument${extra.length > 1 ? 's' : ''}: ${extra.join(', ')} (allowed: handle, extract, mode)` };
  if (!handle) return { ...base, error: 'handle is required: the UUID given in the tool result' };
  if (typeof a.extract !== 'string' || a.extract.trim() === '') return { ...base, error: 'extract is required: say precisely what you need from the output' };
  if (typeof mode !== 'string' || !EXTRACTION_MODES.includes(mode as ExtractionMode)) {
    return { ...base, error: `mode must be one of ${EXTRACTION_MODES.join(', ')} (got ${JSON.stringify(a.mode)})` };
  }
  return { handle, extract: a.extract, mode: mode as ExtractionMode };
}

export class ToolOutputRunner {
  private readonly nonces = new Map<string, string>();
  private readonly searcher: BufferSearcher;

  constructor(private readonly opts: ToolOutputRunnerOptions) {
    this.searcher = opts.searcher ?? new BufferSearcher();
  }

  /** The session's nonce for final reports (one per session, made on first use). */
  nonce(sessionId: string): string {
    let n = this.nonces.get(sessionId);
    if (!n) this.nonces.set(sessionId, (n = newNonce()));
    return n;
  }

  forget(sessionId: string): void {
    this.nonces.delete(sessionId);
  }

  async run(sessionId: string, args: unknown, model: ExtractionModel | undefined, signal: AbortSignal, policy: ExtractionPolicy = DEFAULT_POLICY): Promise<ToolOutputAnswer> {
    const c = checkArgs(args);
    if ('error' in c) {
      const known = c.handle ? this.opts.store.get(c.handle) : undefined;
      return { text: failureText(known?.toolName ?? 'unknown', c.handle ?? '(none)', c.mode ?? 'auto', c.error), isError: true };
    }
    const o = this.opts.store.get(c.handle);
    if (!o || o.sessionId !== sessionId) {
      return {
        text: failureText('unknown', c.handle, c.mode, `no stored tool output has the handle ${c.handle} in this conversation: use a handle given in a tool result of this conversation (handles last until the conversation's session ends)`),
        isError: true,
      };
    }
    try {
      const report = await extract({ store: this.opts.store, output: o, extract: c.extract, ...(model ? { model } : {}), policy, nonce: this.nonce(sessionId), signal, tokens: this.opts.tokens, searcher: this.searcher }, c.mode);
      return { text: successText(o.toolName, o.handle, report.used, report.text), isError: false, report, handle: o.handle, toolName: o.toolName };
    } catch (e) {
      if (e instanceof AppError && e.code === 'CANCELLED') throw e;
      return { text: failureText(o.toolName, o.handle, c.mode, (e as Error).message), isError: true, handle: o.handle, toolName: o.toolName };
    }
  }
}
