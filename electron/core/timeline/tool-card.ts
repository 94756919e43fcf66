/** How a tool's result becomes a card in the chat, and the text a routed result is written as. */
import type { ErrorInfo } from '../../../shared/errors';
import { INLINE_VALUE_MAX_CHARS, type ToolCard } from '../../../shared/model/conversation';
import type { ToolView } from '../../../shared/model/tool';
import type { InvokeOutcome } from '../invoke/dispatcher';
import { toErrorInfo } from '../../../shared/errors';
import { formatDestination, type Destination, type WriteMode } from '../../../shared/model/routing';
import { routedText } from '../routing/tool-text';
import type { OutputRouter } from '../routing/types';
import { routingFailed } from './strings';


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
    ...(tool.mcp?.ui?.resourceUri ? { hasApp: true as const } : {}),
  };
  return outcome.ok ? { ...base, status: 'ok', ...inlineValue(outcome.value) } : { ...base, status: statusOf(outcome.error), error: outcome.error };
}

/**
 * A finished call's result routed to its destination (output=): the card keeps only the
 * manifest; when writing fails, the value stays on the card beside why it was not written
 * (cancelled when the call was stopped first: nothing was written).
 */
export async function routeOntoCard(
  card: ToolCard,
  value: unknown,
  tool: Pick<ToolView, 'slug' | 'outputSchema'>,
  to: { router: Pick<OutputRouter, 'route'>; ownerId: string; destination: Destination; writeMode?: WriteMode | undefined; signal?: AbortSignal },
  errorOf: (e: unknown) => ErrorInfo = (e) => toErrorInfo(e, 'route'),
): Promise<ToolCard> {
  try {
    const manifest = await to.router.route({
      ownerId: to.ownerId,
      content: routedText(value, tool),
      destination: to.destination,
      writeMode: to.writeMode,
      label: { kind: 'tool', name: tool.slug },
      source: `tool:${tool.slug}`,
      ...(to.signal ? { signal: to.signal } : {}),
    });
    if (!manifest) return card;
    const { value: _value, valueTruncated: _cut, ...rest } = card;
    return { ...rest, manifest };
  } catch (e) {
    const error = errorOf(e);
    return { ...card, ...inlineValue(value), status: statusOf(error), error: { ...error, message: routingFailed(formatDestination(to.destination), error.message) } };
  }
}
