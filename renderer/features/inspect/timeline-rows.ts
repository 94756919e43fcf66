/**
 * The timeline of a conversation as Inspect lists it: every row the core appended, in
 * order, with what kind of event it records and a one-line summary.
 */
import type { Message } from '../../../shared/model/conversation';

export type TimelineKind = 'user' | 'model text' | 'tool call' | 'tool result' | 'approval' | 'error' | 'notice';

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
    if (t.decision && (t.status === 'running' || t.status === 'denied')) return `${t.slug} · ${t.decision}`;
    if (t.error) return `${head} · ${t.error.code}: ${oneLine(t.error.message)}`;
    if (t.manifest) return `${head} · ${oneLine(t.manifest.text)}`;
    if (t.status === 'running' || t.status === 'awaiting-approval') return `${head} · ${oneLine(JSON.stringify(t.args) ?? '')}`;
    return head;
  }
  if (m.error) return `${m.error.code}: ${oneLine(m.error.message)}`;
  const usage = m.usage ? ` (${m.usage.inputTokens ?? 0} in · ${m.usage.outputTokens ?? 0} out)` : '';
  const text = oneLine(m.text);
  return (text === '' && m.role === 'assistant' ? '(no text: tool calls)' : text) + usage;
}

export function timelineRows(messages: readonly Message[]): TimelineRow[] {
  return messages.map((m) => ({ id: m.id, at: m.createdAt, turnId: m.turnId, kind: kindOf(m), summary: summaryOf(m), message: m }));
}
