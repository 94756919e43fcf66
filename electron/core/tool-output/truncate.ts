/**
 * The truncate strategy: the top and the bottom of the output are kept, the middle is cut,
 * behind an explicit warning (docs/design/tool-outputs.md, decision 4: it is also what a failed
 * strategy falls back to).
 */
import fs from 'node:fs/promises';
import { bytesAt } from '../routing/buffer-index';
import { toCharBoundary } from './chunking';
import { truncateWarning } from './messages';
import type { ExtractContext, StrategyResult } from './types';

/** How many bytes a truncated view keeps: a quarter of the model's free window, or the policy's token figure. */
export function truncateBudgetBytes(ctx: Pick<ExtractContext, 'model' | 'policy' | 'output'>): number {
  const o = ctx.output;
  const bytesPerToken = o.tokens > 0 ? o.bytes / o.tokens : 4;
  const tokens = ctx.model ? Math.max(256, Math.floor((ctx.model.contextTokens - ctx.model.maxOutputTokens) / 4)) : ctx.policy.truncateTokens;
  return Math.max(1024, Math.floor(tokens * bytesPerToken));
}

export async function runTruncate(ctx: ExtractContext, reason?: string): Promise<StrategyResult> {
  const o = ctx.output;
  const budget = truncateBudgetBytes(ctx);
  const fh = await fs.open(ctx.store.filePath(o), 'r');
  try {
    if (o.bytes <= budget) {
      const all = ctx.store.redact((await bytesAt(fh, 0, o.bytes)).toString('utf8'));
      return { text: `${truncateWarning(reason, o.bytes, o.bytes)}\n\n${all}`, notFound: false, modelCalls: 0, tokensIn: 0, tokensOut: 0 };
    }
    const half = Math.floor(budget / 2);
    const headRaw = await bytesAt(fh, 0, half + 4);
    const head = headRaw.subarray(0, toCharBoundary(headRaw, half));
    const tailStart = o.bytes - half;
    const tailRaw = await bytesAt(fh, Math.max(0, tailStart - 4), o.bytes);
    const tail = tailRaw.subarray(toCharBoundary(tailRaw, tailRaw.length - half));
    const cut = o.bytes - head.length - tail.length;
    const headText = ctx.store.redact(head.toString('utf8'));
    const tailText = ctx.store.redact(tail.toString('utf8'));
    const text =
      `${truncateWarning(reason, head.length + tail.length, o.bytes)}\n\n` +
      `${headText}\n\n[… ${cut} bytes cut from the middle …]\n\n${tailText}`;
    return { text, notFound: false, modelCalls: 0, tokensIn: 0, tokensOut: 0 };
  } finally {
    await fh.close();
  }
}
