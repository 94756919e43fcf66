/**
 * A chat call opened in the tester ("Open in tester" on a tool card): what the chat's card
 * holds of its outcome, the outcome of the tester's run in the same shape, the value the two
 * are compared as, and the test case a run is saved as (its arguments, its result expected).
 * Pure, so it is unit-tested; the store (tester/replay-store.ts) and the views use it.
 */
import type { ErrorInfo } from '../../../../shared/errors';
import type { Assertion } from '../../../../shared/model/testcase';
import type { ToolCard } from '../../../../shared/model/conversation';
import { MEMORY_BUNDLE_ID } from '../../../../shared/model/memory';
import { UuidV7Schema } from '../../../../shared/model/validation';

/** What a call answered: a value, or an error (its code and message). */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

/** Why the chat's card cannot be compared with a run. */
export type NotComparable = 'routed' | 'stored' | 'truncated' | 'cancelled' | 'denied' | 'no-result';

/** A call in the chat opened in the tester. */
export interface ReplaySource {
  /** The card's invocation id. */
  id: string;
  bundleId: string;
  slug: string;
  version: string;
  displayName: string;
  args: unknown;
  /** The chat's outcome, or why there is none to compare with. */
  chat: { comparable: true; outcome: CallOutcome } | { comparable: false; reason: NotComparable; destination?: string };
}

/** Whether a card's call can be opened in the tester: a saved tool of a real bundle, no longer running or waiting. */
export function canOpenInTester(card: ToolCard): boolean {
  if (card.status === 'running' || card.status === 'awaiting-approval' || card.status === 'awaiting-answer') return false;
  // Model-only tools (tool_output, tool_search, delegation) and memory consent cards name no bundle of the registry;
  // the memory bundle's tools act on a conversation's memory, which the tester has none of.
  return UuidV7Schema.safeParse(card.bundleId).success && card.bundleId !== MEMORY_BUNDLE_ID && card.slug !== '' && card.version !== '' && card.consent === undefined && card.task === undefined;
}

/** What of the card's outcome can be compared with a run in the tester. */
export function replaySourceOf(card: ToolCard): ReplaySource {
  return {
    id: card.invocationId,
    bundleId: card.bundleId,
    slug: card.slug,
    version: card.version,
    displayName: card.displayName,
    args: card.args === undefined ? {} : card.args,
    chat: chatOutcome(card),
  };
}

function chatOutcome(card: ToolCard): ReplaySource['chat'] {
  if (card.status === 'denied') return { comparable: false, reason: 'denied' };
  if (card.status === 'cancelled') return { comparable: false, reason: 'cancelled' };
  if (card.manifest) return { comparable: false, reason: 'routed', destination: card.manifest.destination };
  if (card.stored) return { comparable: false, reason: 'stored' };
  if (card.status === 'error' && card.error) return { comparable: true, outcome: { ok: false, error: { code: card.error.code, message: card.error.message } } };
  if (card.valueTruncated) return { comparable: false, reason: 'truncated' };
  if (card.status === 'ok') return { comparable: true, outcome: { ok: true, value: card.value } };
  return { comparable: false, reason: 'no-result' };
}

/** A run's outcome in the same shape. */
export function runOutcome(run: { ok: true; value: unknown } | { ok: false; error: ErrorInfo }): CallOutcome {
  return run.ok ? { ok: true, value: run.value } : { ok: false, error: { code: run.error.code, message: run.error.message } };
}

/** The value an outcome is compared (and shown) as: the value itself, or `{ "error": { code, message } }`. */
export function comparedValue(o: CallOutcome): unknown {
  return o.ok ? o.value : { error: o.error };
}

const NAME_MAX = 200;

/** A test case's name for a call: where it came from and its arguments, cut to fit. */
export function caseName(from: 'chat' | 'run', args: unknown): string {
  const head = from === 'chat' ? 'From the chat: ' : 'Run: ';
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    text = '';
  }
  const room = NAME_MAX - head.length;
  return head + (text.length > room ? `${text.slice(0, room - 1)}…` : text);
}

/**
 * The checks a run is saved with, its result as the expected one: ok and the whole value equal
 * (`$` equals it; keys in any order), or the error with its code.
 */
export function assertionsFor(o: CallOutcome): Assertion[] {
  if (!o.ok) return [{ kind: 'error', code: o.error.code }];
  return o.value === undefined ? [{ kind: 'ok' }] : [{ kind: 'ok' }, { kind: 'jsonPathEquals', path: '$', value: o.value }];
}
