/**
 * The timeline of a conversation as Inspect lists it: every row the core appended, in
 * order, with what kind of event it records and a one-line summary. An oversized result is
 * its own kind (the handle stored, or what the gate did instead), as is a later change of that
 * choice and an extraction (tool_output: strategy, chunks, tokens, duration, fallback, why).
 */
import type { ExtractionInfo, Message, StoredOutputInfo } from '../../../shared/model/conversation';
import { outputStrings as os } from '../../i18n/output-strings';
import { formatDuration } from '../chat/format';
import { extractionFigures, formatBytes, formatTokens } from '../outputs/format';

export type TimelineKind = 'user' | 'model text' | 'tool call' | 'tool result' | 'approval' | 'consent' | 'error' | 'notice' | 'oversized' | 'output choice' | 'extraction';

export interface TimelineRow {
  id: string;
  at: string;
  turnId?: string;
  kind: TimelineKind;
  summary: string;
  /** The row itself, for the details view. */
  message: Message;
}

const ONE_LINE_MAX = 160;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > ONE_LINE_MAX ? `${flat.slice(0, ONE_LINE_MAX - 1)}…` : flat;
}

export function kindOf(m: Message): TimelineKind {
  if (m.role === 'user') return 'user';
  if (m.role === 'assistant') return 'model text';
  if (m.role === 'tool') {
    const st = m.tool?.status;
    // A memory call's consent question (awaiting-approval) and the user's answer (running again).
    if (m.tool?.consent && (st === 'awaiting-approval' || st === 'running')) return 'consent';
    // The user's answer to an approval request: the call goes on (running) or is denied.
    if (st === 'denied' || (st === 'running' && m.tool?.decision)) return 'approval';
    if (st === 'running' || st === 'awaiting-approval') return 'tool call';
    return 'tool result';
  }
  return m.error ? 'error' : 'notice';
}

export function summaryOf(m: Message): string {
  if (m.role === 'tool' && m.tool) {
    const t = m.tool;
    const head = `${t.slug} · ${t.status}${t.durationMs !== undefined ? ` · ${Math.round(t.durationMs)} ms` : ''}`;
    if (t.consent && (t.status === 'awaiting-approval' || t.status === 'running')) {
      const c = t.consent;
      return `${t.slug} · consent ${c.answer ?? 'asked'}: ${c.operation.replace('.', ' ')} on block '${c.label}' (${c.permission})`;
    }
    if (t.decision && (t.status === 'running' || t.status === 'denied')) return `${t.slug} · ${t.decision}`;
    if (t.error) return `${head} · ${t.error.code}: ${oneLine(t.error.message)}`;
    if (t.stored) return `${head} · ${storedSummary(t.stored)}${t.manifest ? ` · ${oneLine(t.manifest.text)}` : ''}`;
    if (t.extraction) return `${head} · ${extractionSummary(t.extraction, t.durationMs === undefined)}`;
    if (t.manifest) return `${head} · ${oneLine(t.manifest.text)}`;
    if (t.status === 'running' || t.status === 'awaiting-approval') return `${head} · ${oneLine(JSON.stringify(t.args) ?? '')}`;
    return head;
  }
  if (m.error) return `${m.error.code}: ${oneLine(m.error.message)}`;
  const usage = m.usage ? ` (${m.usage.inputTokens ?? 0} in · ${m.usage.outputTokens ?? 0} out)` : '';
  const text = oneLine(m.text);
  return (text === '' && m.role === 'assistant' ? '(no text: tool calls)' : text) + usage;
}

export function storedSummary(x: StoredOutputInfo): string {
  const size = formatBytes(x.bytes);
  const reason = os.gate.reason[x.reason];
  if (x.choice === 'handle' && x.handle) return os.timeline.stored(x.handle, size, formatTokens(x.tokens, x.tokensExact), reason);
  return os.timeline.choice(os.choices[x.choice], size, reason);
}

/** An extraction in one line; its duration unless the row already says the call's. */
export function extractionSummary(x: ExtractionInfo, withDuration = true): string {
  const parts = [withDuration ? os.timeline.extraction(extractionFigures(x), formatDuration(x.durationMs)) : extractionFigures(x)];
  if (x.fallback) parts.push(os.timeline.fallback(x.fallback.from, oneLine(x.fallback.reason)));
  if (x.why) parts.push(os.timeline.why(oneLine(x.why)));
  return parts.join(' · ');
}

export function timelineRows(messages: readonly Message[]): TimelineRow[] {
  // A call's first row with `stored` is the gate at work; a later one, the choice changed on its card.
  const gated = new Set<string>();
  return messages.map((m) => {
    let kind = kindOf(m);
    const t = m.role === 'tool' ? m.tool : undefined;
    if (t?.stored && kind === 'tool result') {
      kind = gated.has(t.invocationId) ? 'output choice' : 'oversized';
      gated.add(t.invocationId);
    } else if (t?.extraction && kind === 'tool result') kind = 'extraction';
    return { id: m.id, at: m.createdAt, turnId: m.turnId, kind, summary: summaryOf(m), message: m };
  });
}
