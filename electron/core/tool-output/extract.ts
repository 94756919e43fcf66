/**
 * The extraction module (docs/design/tool-outputs.md, "Strategies" and decision 4): given a
 * stored output, what to extract and a mode, it picks the strategy (auto), runs it, and falls
 * back to truncate with an explicit warning when the strategy cannot execute. "Not found" is a
 * success. It knows nothing of the agent loop: the tool_output tool and the Stored outputs
 * inspector both call it.
 *
 * auto: full-chunked when the output fits in `maxChunksForFullMode` chunks of the model's
 * window, or its average line is over `avgLineBytesForFullMode` bytes (huge single-line
 * JSON cannot be grepped usefully); read-grep otherwise; truncate when no model is set up.
 */
import { AppError } from '../../../shared/errors';
import { chunkCount, runFullChunked } from './full-chunked';
import type { ExtractionMode } from './messages';
import { runReadGrep } from './read-grep';
import { runTruncate } from './truncate';
import { StrategyFailed, type ExtractContext, type ExtractionReport, type StrategyResult } from './types';

type Concrete = Exclude<ExtractionMode, 'auto'>;

export function averageLineBytes(o: { bytes: number; lines: number }): number {
  return o.lines > 0 ? o.bytes / o.lines : o.bytes;
}

/** What auto picks, and why (shown on the timeline). */
export function chooseStrategy(ctx: ExtractContext): { mode: Concrete; why: string } {
  if (!ctx.model) return { mode: 'truncate', why: 'no model is set up for this conversation' };
  const avg = averageLineBytes(ctx.output);
  if (avg > ctx.policy.avgLineBytesForFullMode) {
    return { mode: 'full-chunked', why: `average line ${Math.round(avg)} bytes > ${ctx.policy.avgLineBytesForFullMode}` };
  }
  let n: number;
  try {
    n = chunkCount(ctx);
  } catch {
    return { mode: 'read-grep', why: 'the model window leaves no room for a chunk' };
  }
  if (n <= ctx.policy.maxChunksForFullMode) return { mode: 'full-chunked', why: `fits in ${n} chunk${n === 1 ? '' : 's'} (≤ ${ctx.policy.maxChunksForFullMode})` };
  return { mode: 'read-grep', why: `needs ${n} chunks (> ${ctx.policy.maxChunksForFullMode}) and lines average ${Math.round(avg)} bytes` };
}

function run(mode: Concrete, ctx: ExtractContext): Promise<StrategyResult> {
  if (mode === 'full-chunked') return runFullChunked(ctx);
  if (mode === 'read-grep') return runReadGrep(ctx);
  return runTruncate(ctx);
}

export async function extract(ctx: ExtractContext, requested: ExtractionMode, now: () => number = Date.now): Promise<ExtractionReport & { why?: string }> {
  const started = now();
  let mode: Concrete;
  let why: string | undefined;
  let autoNoModel = false;
  if (requested === 'auto') {
    const c = chooseStrategy(ctx);
    mode = c.mode;
    why = c.why;
    autoNoModel = !ctx.model;
  } else mode = requested;
  if (mode === 'truncate') {
    const reason = autoNoModel ? 'no model is set up for this conversation' : undefined;
    const r = await runTruncate(ctx, reason);
    return { ...r, requested, used: 'truncate', ...(autoNoModel ? { fallback: { from: 'auto' as const, reason: reason! } } : {}), ...(why ? { why } : {}), durationMs: now() - started };
  }
  try {
    const r = await run(mode, ctx);
    return { ...r, requested, used: mode, ...(why ? { why } : {}), durationMs: now() - started };
  } catch (e) {
    if (ctx.signal.aborted) throw new AppError('CANCELLED', 'the extraction was cancelled');
    if (!(e instanceof StrategyFailed) && !(e instanceof AppError)) throw e;
    const reason = `${mode}: ${e.message}`;
    const r = await runTruncate(ctx, reason);
    return { ...r, requested, used: 'truncate', fallback: { from: mode, reason }, ...(why ? { why } : {}), durationMs: now() - started };
  }
}
