/**
 * Oversized tool outputs as the app uses them: the store under Settings' base folder, the gate
 * applied to a tool's result before it reaches a model (a model's call, or a `+` run the model
 * sees later), and `tool_output` runs with the conversation's model. Built once by tool-output/module.ts.
 *
 * A result the gate lets through stays whole on its card (no blind cut). An oversized one is
 * handled as the tool's remembered choice says (Settings → Tool outputs, or the card's menu):
 * - handle (default): stored; the card keeps a preview and the handle; the model is told the
 *   oversized message (docs/design/tool-outputs.md);
 * - inline: stored, and given to the model whole anyway;
 * - buffer: routed to the conversation's buffer named after the tool (a manifest);
 * - drop: nothing is kept; the model is told it was dropped.
 */
import os from 'node:os';
import { AppError } from '../../../shared/errors';
import type { ToolCard, StoredOutputInfo } from '../../../shared/model/conversation';
import type { ModelRef } from '../../../shared/model/provider';
import { withOverrides, type ExtractionOverrides, type OversizedChoice, type ToolOutputSettings } from '../../../shared/model/settings';
import type { ModelClient } from '../llm/types';
import type { OutputRouter } from '../routing/types';
import { routedText } from '../routing/tool-text';
import { isStoredOutputRef, type ResponseSpill, type StoredOutputRefInfo } from '../invoke/stored-ref';
import type { ToolView } from '../../../shared/model/tool';
import type { Manifest } from '../../../shared/model/routing';
import { gate } from './gate';
import { ToolOutputStore } from './store';
import { gptCounter, isOpenAiFamily, knownCount, type TokenCounter } from '../llm/tokens';
import { modelContent } from '../llm/result-content';
import { ToolOutputRunner, type ToolOutputAnswer } from './tool-output-tool';
import { DEFAULT_POLICY, type ExtractionModel, type ExtractionPolicy } from './types';

/** A body is held in memory up to at least this many bytes before it goes to the store as it arrives. */
export const SPILL_MIN_BYTES = 8 * 1024 * 1024;

/** Characters of an oversized result its card keeps to show. */
export const PREVIEW_CHARS = 2000;

export interface ToolOutputServiceOptions {
  settings: () => ToolOutputSettings;
  /** Default: gpt-tokenizer, exact for OpenAI families and an estimate elsewhere. */
  tokens?: (model: ModelRef | undefined) => TokenCounter;
  /** Removes secret values from stored text as it is read back (a body written as it arrived is stored as received). */
  redact?: (text: string) => string;
  /** What could not be cleaned up (reported, never fatal). */
  onProblem?: (message: string) => void;
  /** Where a `buffer` choice routes to (the conversation's buffers). */
  router?: Pick<OutputRouter, 'route'>;
  now?: () => Date;
}

export interface GateRequest {
  conversationId: string;
  toolId: string;
  toolName: string;
  args: unknown;
  /** The result as text (a string as is, else its routed text). */
  text: string;
  model?: ModelRef;
  /** Tokens the conversation already takes (the last step's input figure). */
  usedTokens?: number;
}

export type GateOutcome =
  | { kind: 'pass' }
  | { kind: 'stored'; info: StoredOutputInfo; preview: string }
  | { kind: 'buffer'; info: StoredOutputInfo }
  | { kind: 'drop'; info: StoredOutputInfo };

export class ToolOutputService {
  readonly store: ToolOutputStore;
  readonly runner: ToolOutputRunner;
  private readonly counters: (model: ModelRef | undefined) => TokenCounter;

  constructor(private readonly opts: ToolOutputServiceOptions) {
    const exact = gptCounter(true);
    const estimate = gptCounter(false);
    this.counters = opts.tokens ?? ((m) => (m && isOpenAiFamily(m.model) ? exact : estimate));
    this.store = new ToolOutputStore({
      baseDir: () => opts.settings().baseDir || os.tmpdir(),
      tokens: estimate,
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.redact ? { redact: opts.redact } : {}),
      ...(opts.onProblem ? { onProblem: opts.onProblem } : {}),
    });
    this.runner = new ToolOutputRunner({ store: this.store, tokens: estimate });
  }

  /** The token counter for a model: exact for OpenAI families, an estimate (said so) elsewhere. */
  tokensFor(model: ModelRef | undefined): TokenCounter {
    return this.counters(model);
  }

  /** The model's window: Settings' entry for `providerId/model`, then for `model`, then the default. */
  windowFor(model: ModelRef | undefined): { contextTokens: number; maxOutputTokens: number } {
    const s = this.opts.settings();
    if (!model) return s.defaultWindow;
    return s.models[`${model.providerId}/${model.model}`] ?? s.models[model.model] ?? s.defaultWindow;
  }

  /** Settings' thresholds under the given overrides (a conversation's, then a workflow's: the last wins). */
  policy(...overrides: (ExtractionOverrides | undefined)[]): ExtractionPolicy {
    const s = this.opts.settings();
    const base = { ...DEFAULT_POLICY, maxChunksForFullMode: s.maxChunksForFullMode, avgLineBytesForFullMode: s.avgLineBytesForFullMode, overlapPercent: s.overlapPercent };
    return withOverrides(base, ...overrides);
  }

  choiceFor(toolId: string): OversizedChoice {
    return this.opts.settings().perTool[toolId] ?? 'handle';
  }

  extractionModel(client: ModelClient | undefined, model: ModelRef | undefined): ExtractionModel | undefined {
    if (!client || !model) return undefined;
    return { client, model: model.model, ...this.windowFor(model) };
  }

  /** Whether `tool_output` is offered in this conversation (docs/design/tool-outputs.md, decision 15: while its store is non-empty). */
  hasOutputs(conversationId: string): boolean {
    return !this.store.isEmpty(conversationId);
  }

  /** The gate: passes a result, or stores / routes / drops it as the tool's choice says. */
  async gate(req: GateRequest, signal?: AbortSignal): Promise<GateOutcome> {
    const bytes = Buffer.byteLength(req.text);
    const s = this.opts.settings();
    const w = this.windowFor(req.model);
    // A token covers at least one byte: a result whose bytes fit the free window passes uncounted.
    if (fitsUncounted(bytes, s.maxResultBytes, w, req.usedTokens)) return { kind: 'pass' };
    const counter = this.tokensFor(req.model);
    const tokens = counter.count(req.text);
    const d = gate({ bytes, tokens: tokens.tokens }, { maxBytes: s.maxResultBytes, contextTokens: w.contextTokens, maxOutputTokens: w.maxOutputTokens, ...(req.usedTokens !== undefined ? { usedTokens: req.usedTokens } : {}) });
    if (!d.oversized) return { kind: 'pass' };
    const choice = this.choiceFor(req.toolId);
    const lines = countLines(req.text);
    const info: StoredOutputInfo = {
      toolId: req.toolId,
      bytes,
      lines,
      tokens: tokens.tokens,
      tokensExact: tokens.exact,
      reason: d.reason!,
      choice,
      ...(d.share !== undefined ? { share: d.share } : {}),
      contextTokens: w.contextTokens,
    };
    if (choice === 'buffer') return { kind: 'buffer', info };
    if (choice === 'drop') return { kind: 'drop', info };
    const stored = await this.store.put(req.conversationId, req.text, { toolName: req.toolName, toolId: req.toolId, argsJson: argsJson(req.args) }, signal, knownCount(tokens, counter.name));
    return { kind: 'stored', info: { ...info, handle: stored.handle }, preview: req.text.slice(0, PREVIEW_CHARS) };
  }

  /**
   * A finished call's card through the gate: a result that fits stays whole on the card (no
   * cut); an oversized one is stored, routed to the tool's buffer, or dropped, as its choice says.
   * Used by the agent loop (a model's calls) and the `+` palette (results the model sees later).
   */
  async gateCard(
    card: ToolCard,
    req: { conversationId: string; tool: Pick<ToolView, 'id' | 'slug' | 'outputSchema'>; args: unknown; value: unknown; model?: ModelRef; usedTokens?: number },
    signal?: AbortSignal,
  ): Promise<ToolCard> {
    // Written to the store as it arrived (an HTTP body too large for memory): already a handle.
    if (isStoredOutputRef(req.value)) return this.refCard(card, req.value.$storedOutput, req.tool.id, req.model);
    // Stored as routing would write it: a string as is, a text property (readfile's content), else indented JSON;
    // content (an MCP result's parts, an HTTP tool's image) as the model is given it: its images are not text to count.
    // Media past the bytes cap (Settings → Tool outputs) is stored like any result that large: the card keeps no megabytes of base64.
    const content = modelContent(req.value);
    const withinCap = content !== undefined && (JSON.stringify(req.value)?.length ?? 0) <= this.opts.settings().maxResultBytes;
    const text = withinCap ? content.text : routedText(req.value, req.tool);
    const g = await this.gate(
      { conversationId: req.conversationId, toolId: req.tool.id, toolName: req.tool.slug, args: req.args, text, ...(req.model ? { model: req.model } : {}), ...(req.usedTokens !== undefined ? { usedTokens: req.usedTokens } : {}) },
      signal,
    );
    if (g.kind === 'pass') {
      const { valueTruncated: _cut, ...rest } = card;
      return req.value === undefined ? rest : { ...rest, value: req.value };
    }
    const gated = gatedCard(card, g);
    if (g.kind !== 'buffer') return gated;
    const manifest = await this.routeToBuffer(req.conversationId, req.tool.slug, text, signal);
    return manifest ? { ...gated, manifest } : gated;
  }

  /** An oversized result written to the conversation's buffer `<tool>-output` (the `buffer` choice); its manifest. */
  async routeToBuffer(conversationId: string, toolSlug: string, content: string, signal?: AbortSignal): Promise<Manifest | null> {
    if (!this.opts.router) return null;
    return this.opts.router.route({
      ownerId: conversationId,
      content,
      destination: { kind: 'variable', name: oversizedBufferName(toolSlug) },
      writeMode: 'replace',
      label: { kind: 'tool', name: toolSlug },
      source: `tool:${toolSlug}`,
      ...(signal ? { signal } : {}),
    });
  }

  /** The spill of an HTTP call of this conversation: bodies over the threshold go straight to its store. */
  spillFor(conversationId: string, meta: { toolName: string; toolId: string; argsJson: string }): ResponseSpill {
    return {
      thresholdBytes: Math.max(SPILL_MIN_BYTES, this.opts.settings().maxResultBytes),
      open: () => {
        const sink = this.store.beginSync(conversationId, meta);
        return {
          write: (c) => sink.write(c),
          finish: () => {
            const o = sink.finish();
            return { handle: o.handle, bytes: o.bytes, lines: o.lines, tokens: o.tokens, tokensExact: o.tokensExact };
          },
          discard: () => sink.discard(),
        };
      },
    };
  }

  private refCard(card: ToolCard, ref: StoredOutputRefInfo, toolId: string, model: ModelRef | undefined): ToolCard {
    const w = this.windowFor(model);
    const { value: _v, valueTruncated: _t, ...rest } = card;
    const s = this.opts.settings();
    return {
      ...rest,
      value: ref.preview,
      valueTruncated: true,
      stored: {
        handle: ref.handle,
        toolId,
        bytes: ref.bytes,
        lines: ref.lines,
        tokens: ref.tokens,
        tokensExact: ref.tokensExact,
        reason: ref.bytes > s.maxResultBytes ? 'bytes' : 'tokens',
        choice: 'handle',
        share: ref.tokens / w.contextTokens,
        contextTokens: w.contextTokens,
      },
    };
  }

  /** Runs `tool_output` for a conversation with its model (none: auto truncates), under its thresholds. */
  run(conversationId: string, args: unknown, model: ExtractionModel | undefined, signal: AbortSignal, ...overrides: (ExtractionOverrides | undefined)[]): Promise<ToolOutputAnswer> {
    return this.runner.run(conversationId, args, model, signal, this.policy(...overrides));
  }

  /** The whole text of a stored output, for an `inline` choice; undefined once its session ended. */
  inlineText(handle: string): string | undefined {
    const o = this.store.get(handle);
    if (!o) return undefined;
    return this.store.readTextSync(handle);
  }

  /**
   * Pass by handle: the text of a stored output for an argument `{"$handle": …}`. Only the
   * conversation that holds it may pass it; NOT_FOUND otherwise, or once its session ended.
   */
  resolveHandle(handle: string, ownerId: string | undefined): string {
    if (ownerId === undefined) {
      throw new AppError('NOT_FOUND', `the handle ${String(handle).slice(0, 80)} can only be passed by a call of the conversation that holds it`);
    }
    return this.store.readTextSync(this.store.require(handle, ownerId).handle);
  }

  async endSession(conversationId: string): Promise<void> {
    this.runner.forget(conversationId);
    await this.store.endSession(conversationId);
  }

  sweep(): Promise<number> {
    return this.store.sweep();
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = -1; (i = text.indexOf('\n', i + 1)) >= 0; ) n++;
  return text.endsWith('\n') ? n : n + 1;
}

function argsJson(args: unknown): string {
  try {
    return JSON.stringify(args ?? {}) ?? '{}';
  } catch {
    return '{}';
  }
}

/** The card of an oversized result, as the gate left it. */
export function gatedCard(card: ToolCard, g: Exclude<GateOutcome, { kind: 'pass' }>): ToolCard {
  const { value: _v, valueTruncated: _t, ...rest } = card;
  if (g.kind === 'stored') return { ...rest, value: g.preview, valueTruncated: true, stored: g.info };
  return { ...rest, stored: g.info };
}

/** The buffer an oversized result goes to when its tool's choice is `buffer`. */
export function oversizedBufferName(slug: string): string {
  const base = slug.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^[.-]+/, '');
  return `${base || 'tool'}-output`.slice(0, 128);
}

/**
 * Whether a result of `bytes` UTF-8 bytes passes the gate whatever its token count: no tokenizer
 * (gpt-tokenizer's byte-level BPE, or the 4-bytes estimate) gives more tokens than bytes, so a
 * result within the byte limit whose bytes fit the window's free tokens is never oversized.
 */
export function fitsUncounted(bytes: number, maxBytes: number, w: { contextTokens: number; maxOutputTokens: number }, usedTokens?: number): boolean {
  if (bytes > maxBytes) return false;
  if (!(w.contextTokens > 0)) return true;
  const free = Math.max(0, w.contextTokens - w.maxOutputTokens - (usedTokens ?? 0));
  return bytes <= free;
}
