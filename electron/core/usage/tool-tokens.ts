/**
 * What each tool's results take of a conversation's context: per tool, the calls that
 * finished and the tokens of the text the model is given for their results (the latest row
 * of each call, as `render.ts` gives it: a value, a manifest, a stored output's message, an
 * error). Runs from the `+` palette, a model's calls and workflow steps all count.
 */
import type { ToolCard } from '../../../shared/model/conversation';
import type { ToolTokenUse } from '../../../shared/model/usage';
import type { TokenCounter } from '../llm/tokens';
import type { TimelineRow } from '../timeline/conversation-store';
import { resultText, type StoredText } from '../timeline/render';

const FINISHED = new Set<ToolCard['status']>(['ok', 'error', 'cancelled', 'denied']);

/** Tools by tokens, most first (ties by name). */
export function toolTokenUse(rows: readonly TimelineRow[], counter: TokenCounter, storedText?: StoredText): { tools: ToolTokenUse[]; totalTokens: number; exact: boolean } {
  // The latest row of each call: a model's call by its turn and call id, any other by its invocation.
  const latest = new Map<string, ToolCard>();
  for (const r of rows) {
    const card = r.role === 'tool' ? r.tool : undefined;
    if (!card) continue;
    const key = card.source === 'model' && card.callId ? `m\u0000${r.turnId ?? ''}\u0000${card.callId}` : `i\u0000${card.invocationId}`;
    latest.delete(key);
    latest.set(key, card);
  }
  const byTool = new Map<string, ToolTokenUse>();
  let totalTokens = 0;
  let exact = true;
  for (const card of latest.values()) {
    if (!FINISHED.has(card.status)) continue;
    const key = `${card.bundleId}\u0000${card.slug}`;
    let use = byTool.get(key);
    if (!use) byTool.set(key, (use = { bundleId: card.bundleId, slug: card.slug, displayName: card.displayName, calls: 0, errors: 0, tokens: 0 }));
    const counted = counter.count(resultText(card, storedText).text);
    use.calls += 1;
    if (card.status === 'error') use.errors += 1;
    use.tokens += counted.tokens;
    totalTokens += counted.tokens;
    exact &&= counted.exact;
  }
  const tools = [...byTool.values()].sort((a, b) => b.tokens - a.tokens || a.slug.localeCompare(b.slug));
  return { tools, totalTokens, exact };
}
