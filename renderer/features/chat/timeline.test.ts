import { describe, expect, it } from 'vitest';
import type { Message, ToolCard } from '../../../shared/model/conversation';
import { awaitingApproval, foldTimeline, usageByTurn } from './timeline';

let seq = 0;
const row = (m: Partial<Message> & Pick<Message, 'role'>): Message => ({ id: `m${++seq}`, conversationId: 'c', createdAt: '2025-01-01T00:00:00Z', text: '', ...m });
const card = (c: Partial<ToolCard> & Pick<ToolCard, 'invocationId' | 'status'>): ToolCard => ({
  bundleId: 'b',
  slug: 'echo',
  version: '1',
  displayName: 'Echo',
  args: { a: 1 },
  source: 'model',
  ...c,
});

describe('foldTimeline', () => {
  it('folds the rows of one invocation into one card at the first row, showing the latest status', () => {
    const rows = [
      row({ role: 'user', text: 'hi', turnId: 't1' }),
      row({ role: 'tool', turnId: 't1', tool: card({ invocationId: 'i1', status: 'awaiting-approval' }) }),
      row({ role: 'tool', turnId: 't1', tool: card({ invocationId: 'i2', status: 'running' }) }),
      row({ role: 'tool', turnId: 't1', tool: card({ invocationId: 'i1', status: 'running', decision: 'allow-once', args: { a: 2 } }) }),
      row({ role: 'tool', turnId: 't1', tool: card({ invocationId: 'i1', status: 'ok', value: 'done', args: undefined }) }),
    ];
    const items = foldTimeline(rows);
    expect(items.map((i) => i.kind)).toEqual(['message', 'tool', 'tool']);
    const first = items[1] as Extract<(typeof items)[number], { kind: 'tool' }>;
    expect(first.card.invocationId).toBe('i1');
    expect(first.card.status).toBe('ok');
    expect(first.card.value).toBe('done');
    // A later row without arguments keeps the last ones given; the decision stays.
    expect(first.card.args).toEqual({ a: 2 });
    expect(first.card.decision).toBe('allow-once');
    expect(first.rows).toBe(3);
    expect((items[2] as { card: ToolCard }).card.status).toBe('running');
  });

  it('a choice changed on an oversized result is the card\'s whole result: a dropped preview or a manifest no longer routed goes', () => {
    const stored = { bytes: 5_000_000, lines: 60_000, tokens: 1_200_000, tokensExact: false, reason: 'bytes' as const };
    const manifest = {
      kind: 'tool' as const,
      name: 'echo',
      destination: 'variable:echo-output',
      target: { kind: 'variable' as const, ownerId: 'c', name: 'echo-output' },
      writeMode: 'replace' as const,
      count: 1,
      totalChars: 5_000_000,
      paths: [],
      text: '[tool routed] echo -> variable:echo-output (5 MB)',
    };
    const result = card({ invocationId: 'i1', status: 'ok', value: 'preview…', valueTruncated: true, stored: { ...stored, handle: 'h', choice: 'handle' } });
    const routed: ToolCard = { ...result, stored: { ...stored, handle: 'h', choice: 'buffer' }, manifest };
    const back = { ...result, stored: { ...stored, handle: 'h', choice: 'handle' as const } };
    const dropped = card({ invocationId: 'i1', status: 'ok', stored: { ...stored, choice: 'drop' } });
    const fold = (...cards: ToolCard[]) => (foldTimeline(cards.map((c) => row({ role: 'tool', tool: c })))[0] as { card: ToolCard }).card;

    expect(fold(card({ invocationId: 'i1', status: 'running' }), result)).toMatchObject({ value: 'preview…', stored: { choice: 'handle', handle: 'h' } });
    expect(fold(result, routed).manifest).toEqual(manifest);
    // Back to a handle: the manifest of the earlier row is not the result any more.
    const again = fold(result, routed, back);
    expect(again.manifest).toBeUndefined();
    expect(again.value).toBe('preview…');
    // Dropped: no handle, and the preview goes with it.
    const gone = fold(result, dropped);
    expect(gone.stored).toEqual({ ...stored, choice: 'drop' });
    expect(gone.value).toBeUndefined();
    expect(gone.valueTruncated).toBeUndefined();
    expect(gone.args).toEqual({ a: 1 });
  });

  it('puts the usage of a turn after its last row', () => {
    const rows = [
      row({ role: 'user', text: 'q', turnId: 't1' }),
      row({ role: 'assistant', text: 'calling', turnId: 't1', usage: { inputTokens: 10, outputTokens: 5 } }),
      row({ role: 'tool', turnId: 't1', tool: card({ invocationId: 'i1', status: 'running' }) }),
      row({ role: 'assistant', text: 'answer', turnId: 't1', usage: { inputTokens: 20, outputTokens: 7 } }),
      row({ role: 'tool', turnId: 't1', tool: card({ invocationId: 'i1', status: 'ok' }) }),
      row({ role: 'user', text: 'next', turnId: 't2' }),
      row({ role: 'assistant', text: 'no usage', turnId: 't2' }),
    ];
    const items = foldTimeline(rows);
    expect(items.map((i) => i.kind)).toEqual(['message', 'message', 'tool', 'message', 'usage', 'message', 'message']);
    expect(items[4]).toMatchObject({ kind: 'usage', turnId: 't1', usage: { inputTokens: 30, outputTokens: 12, steps: 2 } });
  });

  it('lists the cards still waiting for approval', () => {
    const rows = [
      row({ role: 'tool', tool: card({ invocationId: 'a', status: 'awaiting-approval' }) }),
      row({ role: 'tool', tool: card({ invocationId: 'b', status: 'awaiting-approval' }) }),
      row({ role: 'tool', tool: card({ invocationId: 'a', status: 'denied', decision: 'deny' }) }),
    ];
    expect(awaitingApproval(foldTimeline(rows)).map((c) => c.invocationId)).toEqual(['b']);
  });
});

describe('usageByTurn', () => {
  it('sums only assistant rows with figures, and counts missing halves as zero', () => {
    const rows = [
      row({ role: 'assistant', turnId: 't', usage: { inputTokens: 3 } }),
      row({ role: 'assistant', turnId: 't', usage: { outputTokens: 4 } }),
      row({ role: 'assistant', turnId: 't', usage: {} }),
      row({ role: 'notice', turnId: 't', usage: { inputTokens: 100 } }),
      row({ role: 'assistant', usage: { inputTokens: 100 } }),
    ];
    expect(Object.fromEntries(usageByTurn(rows))).toEqual({ t: { inputTokens: 3, outputTokens: 4, steps: 2 } });
  });
});
