/**
 * The full-chunked strategy (docs/design/tool-outputs.md, "Strategies"): the output is cut into
 * balanced, overlapping chunks that each fit the model's window; one map call per chunk (a
 * bounded number at once), then one reduce call over the chunk results (none when there is a
 * single chunk). Every call must answer the nonce's final-report wrapper; a call that does not is
 * a failure.
 */
import fs from 'node:fs/promises';
import { bytesAt } from '../routing/buffer-index';
import type { ModelMessage } from '../llm/types';
import { ChunkBudgetError, planChunks, toCharBoundary } from './chunking';
import { isNotFound, parseFinalReport } from './final-report';
import { mapPrompt, reducePrompt } from './prompts';
import { StrategyFailed, type ExtractContext, type StrategyResult } from './types';

interface CallTotals {
  modelCalls: number;
  tokensIn: number;
  tokensOut: number;
}

/** One model call that must produce a final report; answers its content. */
export async function reportCall(ctx: ExtractContext, messages: ModelMessage[], what: string, totals: CallTotals): Promise<string> {
  const m = ctx.model!;
  let r;
  try {
    r = await m.client.step({ model: m.model, messages, tools: [], maxOutputTokens: m.maxOutputTokens }, () => {}, ctx.signal);
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    throw new StrategyFailed(`${what}: the model call failed: ${(e as Error).message}`);
  }
  totals.modelCalls++;
  totals.tokensIn += r.usage?.inputTokens ?? 0;
  totals.tokensOut += r.usage?.outputTokens ?? 0;
  const report = parseFinalReport(r.text, ctx.nonce);
  if (report === undefined) throw new StrategyFailed(`${what}: the model's answer had no final report with this session's nonce`);
  return report;
}

async function pool<T>(n: number, limit: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (next < n && failed === undefined) {
      const i = next++;
      try {
        out[i] = await fn(i);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, n)) }, worker));
  if (failed !== undefined) throw failed;
  return out;
}

/** How many chunks the output needs with this model (for auto's decision). */
export function chunkCount(ctx: Pick<ExtractContext, 'output' | 'model' | 'policy' | 'tokens' | 'extract' | 'nonce'>): number {
  const m = ctx.model!;
  const o = ctx.output;
  return planChunks({ totalBytes: o.bytes, totalTokens: o.tokens, maxContextTokens: m.contextTokens, maxOutputTokens: m.maxOutputTokens, promptTokens: promptTokens(ctx), overlapPercent: ctx.policy.overlapPercent }).ranges.length;
}

function promptTokens(ctx: Pick<ExtractContext, 'output' | 'policy' | 'tokens' | 'extract' | 'nonce'>): number {
  const o = ctx.output;
  const sample = mapPrompt({ toolName: o.toolName, argsJson: o.argsJson, stats: o, chunkIndex: 999, chunkTotal: 999, overlapPercent: ctx.policy.overlapPercent, extract: ctx.extract, nonce: ctx.nonce });
  // Some room for the message framing of the provider.
  return ctx.tokens.count(sample).tokens + 64;
}

export async function runFullChunked(ctx: ExtractContext): Promise<StrategyResult> {
  if (!ctx.model) throw new StrategyFailed('no model is set up for this conversation');
  const m = ctx.model;
  const o = ctx.output;
  let plan;
  try {
    plan = planChunks({ totalBytes: o.bytes, totalTokens: o.tokens, maxContextTokens: m.contextTokens, maxOutputTokens: m.maxOutputTokens, promptTokens: promptTokens(ctx), overlapPercent: ctx.policy.overlapPercent });
  } catch (e) {
    if (e instanceof ChunkBudgetError) throw new StrategyFailed(e.message);
    throw e;
  }
  const totals: CallTotals = { modelCalls: 0, tokensIn: 0, tokensOut: 0 };
  const n = plan.ranges.length;
  const fh = await fs.open(ctx.store.filePath(o), 'r');
  let outputs: string[];
  try {
    outputs = await pool(n, ctx.policy.mapConcurrency, async (i) => {
      const [a0, b0] = plan.ranges[i]!;
      const raw = await bytesAt(fh, Math.max(0, a0 - 4), Math.min(o.bytes, b0 + 4));
      const shift = Math.max(0, a0 - 4);
      const a = toCharBoundary(raw, a0 - shift);
      const b = b0 >= o.bytes ? raw.length : toCharBoundary(raw, b0 - shift);
      const chunk = ctx.store.redact(raw.subarray(a, b).toString('utf8'));
      const system = mapPrompt({ toolName: o.toolName, argsJson: o.argsJson, stats: o, chunkIndex: i + 1, chunkTotal: n, overlapPercent: ctx.policy.overlapPercent, extract: ctx.extract, nonce: ctx.nonce });
      return reportCall(ctx, [{ role: 'system', text: system }, { role: 'user', text: chunk }], `chunk ${i + 1} of ${n}`, totals);
    });
  } finally {
    await fh.close();
  }
  let text: string;
  if (n === 1) text = outputs[0]!;
  else {
    const system = reducePrompt({ toolName: o.toolName, argsJson: o.argsJson, extract: ctx.extract, chunkOutputs: outputs, nonce: ctx.nonce });
    text = await reportCall(ctx, [{ role: 'system', text: system }, { role: 'user', text: 'Synthesize the final answer from the chunk outputs above.' }], 'the reduce step', totals);
  }
  return { text, notFound: isNotFound(text), chunks: n, ...totals };
}
