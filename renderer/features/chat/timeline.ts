/**
 * The conversation's timeline as the chat shows it: rows are only ever appended, so a
 * model's tool call is several 'tool' rows with one invocationId (running or awaiting
 * approval, then the result, then any change of what the gate did with an oversized result);
 * they fold into one card showing the latest state, at the place of the first row. After a turn's last row comes what its steps cost.
 */
import type { Message, ToolCard } from '../../../shared/model/conversation';

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  /** Assistant rows that reported a usage figure. */
  steps: number;
}

export type TimelineItem =
  | { kind: 'message'; key: string; message: Message }
  | { kind: 'tool'; key: string; message: Message; card: ToolCard; rows: number }
  | { kind: 'usage'; key: string; turnId: string; usage: TurnUsage };

/** The sum of the usage figures of a turn's assistant rows, by turnId (turns with none are absent). */
export function usageByTurn(messages: readonly Message[]): Map<string, TurnUsage> {
  const out = new Map<string, TurnUsage>();
  for (const m of messages) {
    if (m.role !== 'assistant' || !m.turnId || !m.usage) continue;
    const { inputTokens, outputTokens } = m.usage;
    if (inputTokens === undefined && outputTokens === undefined) continue;
    const u = out.get(m.turnId) ?? { inputTokens: 0, outputTokens: 0, steps: 0 };
    u.inputTokens += inputTokens ?? 0;
    u.outputTokens += outputTokens ?? 0;
    u.steps += 1;
    out.set(m.turnId, u);
  }
  return out;
}

/** Rows in order, tool rows folded by invocationId, and a usage item after each turn's last row. */
export function foldTimeline(messages: readonly Message[]): TimelineItem[] {
  const items: TimelineItem[] = [];
  const cardAt = new Map<string, number>();
  for (const m of messages) {
    if (m.role === 'tool' && m.tool) {
      const id = m.tool.invocationId;
      const at = cardAt.get(id);
      if (at === undefined) {
        cardAt.set(id, items.length);
        items.push({ kind: 'tool', key: `tool-${id}`, message: m, card: m.tool, rows: 1 });
      } else {
        const prev = items[at] as Extract<TimelineItem, { kind: 'tool' }>;
        items[at] = { ...prev, message: m, card: mergeCard(prev.card, m.tool), rows: prev.rows + 1 };
      }
      continue;
    }
    items.push({ kind: 'message', key: m.id, message: m });
  }
  const usage = usageByTurn(messages);
  if (usage.size === 0) return items;
  const lastOfTurn = new Map<string, number>();
  items.forEach((it, i) => {
    if (it.kind !== 'usage' && it.message.turnId) lastOfTurn.set(it.message.turnId, i);
  });
  const after = new Map<number, string>();
  for (const [turnId, i] of lastOfTurn) if (usage.has(turnId)) after.set(i, turnId);
  const out: TimelineItem[] = [];
  items.forEach((it, i) => {
    out.push(it);
    const turnId = after.get(i);
    if (turnId) out.push({ kind: 'usage', key: `usage-${turnId}`, turnId, usage: usage.get(turnId)! });
  });
  return out;
}

/**
 * A later row of a call over what came before: a later row may leave out what the first
 * carried (the arguments, say). A row that says what the gate did with an oversized result
 * (`stored`: the result, or a choice changed on the card) is the whole result: a value, a
 * manifest it leaves out is gone (dropped, or no longer routed).
 */
export function mergeCard(prev: ToolCard, next: ToolCard): ToolCard {
  const merged = { ...prev, ...definedOnly(next) };
  if (!next.stored) return merged;
  const { value: _v, valueTruncated: _t, manifest: _m, ...rest } = merged;
  return {
    ...rest,
    ...(next.value !== undefined ? { value: next.value } : {}),
    ...(next.valueTruncated !== undefined ? { valueTruncated: next.valueTruncated } : {}),
    ...(next.manifest ? { manifest: next.manifest } : {}),
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Tool cards waiting for the user's answer, newest last. */
export function awaitingApproval(items: readonly TimelineItem[]): ToolCard[] {
  return items.flatMap((it) => (it.kind === 'tool' && it.card.status === 'awaiting-approval' ? [it.card] : []));
}
