/** How a tool's result becomes a card in the chat, and the text a routed result is written as. */
import type { ErrorInfo } from '../../../shared/errors';
import { INLINE_VALUE_MAX_CHARS, type ToolCard } from '../../../shared/model/conversation';
import type { ToolView } from '../../../shared/model/tool';
import type { InvokeOutcome } from '../invoke/dispatcher';


/** The value as a card keeps it: whole, or its text cut at INLINE_VALUE_MAX_CHARS. */
export function inlineValue(value: unknown): Pick<ToolCard, 'value' | 'valueTruncated'> {
  if (value === undefined) return {};
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return {};
  if (text.length <= INLINE_VALUE_MAX_CHARS) return { value };
  return { value: text.slice(0, INLINE_VALUE_MAX_CHARS), valueTruncated: true };
}

export function statusOf(error: ErrorInfo): ToolCard['status'] {
  return error.code === 'CANCELLED' ? 'cancelled' : 'error';
}

/** The card of a finished call, with the value inline (the caller swaps in a manifest when routed). */
export function cardOf(tool: ToolView, args: unknown, outcome: InvokeOutcome, source: ToolCard['source']): ToolCard {
  const base = {
    invocationId: outcome.invocationId,
    bundleId: tool.bundleId,
    slug: tool.slug,
    version: tool.version,
    displayName: tool.displayName,
    args,
    durationMs: Math.round(outcome.durationMs * 1000) / 1000,
    source,
  };
  return outcome.ok ? { ...base, status: 'ok', ...inlineValue(outcome.value) } : { ...base, status: statusOf(outcome.error), error: outcome.error };
}
