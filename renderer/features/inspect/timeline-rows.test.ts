import { describe, expect, it } from 'vitest';
import type { Message } from '../../../shared/model/conversation';
import { timelineRows } from './timeline-rows';

const base = { conversationId: 'c', createdAt: '2026-11-22T10:00:00.000Z', text: '' };
const card = { invocationId: 'i1', bundleId: 'b', slug: 'writefile', version: '1', displayName: 'Write file', args: { path: 'a.txt' }, source: 'model' as const };

describe('the timeline rows of a conversation', () => {
  it('names each event and sums it up in one line, in order', () => {
    const rows = timelineRows([
      { ...base, id: '1', role: 'user', text: 'write\n  hello', turnId: 't' },
      { ...base, id: '2', role: 'assistant', text: '', turnId: 't', usage: { inputTokens: 10, outputTokens: 2 } },
      { ...base, id: '3', role: 'tool', turnId: 't', tool: { ...card, status: 'awaiting-approval' } },
      { ...base, id: '3b', role: 'tool', turnId: 't', tool: { ...card, status: 'running', decision: 'allow-once' } },
      { ...base, id: '4', role: 'tool', turnId: 't', tool: { ...card, status: 'ok', durationMs: 12.4, decision: 'allow-once' } },
      { ...base, id: '5', role: 'tool', turnId: 't', tool: { ...card, invocationId: 'i2', status: 'denied', decision: 'deny' } },
      { ...base, id: '6', role: 'notice', text: '', turnId: 't', error: { code: 'UNAVAILABLE', message: 'cannot reach http://x' } },
      { ...base, id: '7', role: 'notice', text: 'Stopped.' },
    ] satisfies Message[]);
    expect(rows.map((r) => r.kind)).toEqual(['user', 'model text', 'tool call', 'approval', 'tool result', 'approval', 'error', 'notice']);
    expect(rows.map((r) => r.summary)).toEqual([
      'write hello',
      '(no text: tool calls) (10 in · 2 out)',
      'writefile · awaiting-approval · {"path":"a.txt"}',
      'writefile · allow-once',
      'writefile · ok · 12 ms',
      'writefile · deny',
      'UNAVAILABLE: cannot reach http://x',
      'Stopped.',
    ]);
  });

  it('cuts long text to one line', () => {
    const [row] = timelineRows([{ ...base, id: '1', role: 'user', text: 'x'.repeat(500) }]);
    expect(row!.summary).toHaveLength(160);
    expect(row!.summary.endsWith('…')).toBe(true);
  });
});
