/**
 * Pure helpers for oversized tool outputs as the UI shows them: sizes, token counts (≈ when
 * estimated), a result's share of the model's window, an extraction's figures, and the
 * choices the gate's menu offers for a card.
 */
import type { ExtractionInfo, StoredOutputInfo } from '../../../shared/model/conversation';
import type { OversizedChoice } from '../../../shared/model/settings';

export const CHOICES: readonly OversizedChoice[] = ['handle', 'inline', 'buffer', 'drop'];

const n = (v: number) => v.toLocaleString('en');

export { formatBytes } from '../../../shared/bytes';

/** Tokens, prefixed with ≈ when the figure is an estimate. */
export function formatTokens(tokens: number, exact: boolean): string {
  return `${exact ? '' : '≈'}${n(tokens)}`;
}

/**
 * A share of a window as a percentage: whole percents from 10 %, one decimal below, "<0.1"
 * for a sliver; past 100 % it is still written out (a result may be many windows long).
 */
export function formatShare(share: number): string {
  const pct = share * 100;
  if (pct > 0 && pct < 0.1) return '<0.1%';
  if (pct < 10) return `${(Math.round(pct * 10) / 10).toString()}%`;
  return `${n(Math.round(pct))}%`;
}

/** The share of the window: the stored figure, else tokens / contextTokens; undefined when neither is known. */
export function shareOf(info: Pick<StoredOutputInfo, 'share' | 'tokens' | 'contextTokens'>): number | undefined {
  if (info.share !== undefined) return info.share;
  if (info.contextTokens && info.contextTokens > 0) return info.tokens / info.contextTokens;
  return undefined;
}

/** Which choices can still be made on a card: keeping or inlining needs the stored output (a handle). */
export function availableChoices(info: Pick<StoredOutputInfo, 'handle' | 'choice'>, handleKept: boolean): OversizedChoice[] {
  return CHOICES.filter((c) => {
    if (c === info.choice) return true;
    if (c === 'drop') return true;
    return info.handle !== undefined && handleKept;
  });
}

/** An extraction's figures in one line: strategy, chunks, model calls, tokens in/out. */
export function extractionFigures(x: Pick<ExtractionInfo, 'used' | 'requested' | 'chunks' | 'modelCalls' | 'tokensIn' | 'tokensOut'>): string {
  const parts = [x.requested !== 'auto' && x.requested !== x.used ? `${x.used} (asked ${x.requested})` : x.used];
  if (x.chunks !== undefined) parts.push(`${n(x.chunks)} chunk${x.chunks === 1 ? '' : 's'}`);
  parts.push(`${n(x.modelCalls)} model call${x.modelCalls === 1 ? '' : 's'}`);
  parts.push(`${n(x.tokensIn)} in · ${n(x.tokensOut)} out`);
  return parts.join(' · ');
}
