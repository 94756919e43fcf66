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

  it('shows an oversized result stored behind a handle, a choice changed on its card, and an extraction', () => {
    const read = { invocationId: 'r1', bundleId: 'b', slug: 'readfile', version: '1', displayName: 'Read file', args: { path: 'big.log' }, source: 'model' as const };
    const stored = { bytes: 5_242_880, lines: 60_000, tokens: 1_310_720, tokensExact: false, reason: 'bytes' as const, handle: 'h-1', choice: 'handle' as const };
    const extraction = { handle: 'h-1', requested: 'auto', used: 'truncate', why: 'the document is 38 windows long', chunks: 2, modelCalls: 3, tokensIn: 9000, tokensOut: 120, durationMs: 1500, notFound: false, fallback: { from: 'read-grep', reason: 'the sub-agent gave\nno report' } };
    const rows = timelineRows([
      { ...base, id: '1', role: 'tool', turnId: 't', tool: { ...read, status: 'running' } },
      { ...base, id: '2', role: 'tool', turnId: 't', tool: { ...read, status: 'ok', durationMs: 40, stored } },
      { ...base, id: '3', role: 'tool', turnId: 't', tool: { ...read, invocationId: 'x1', slug: 'tool_output', status: 'ok', durationMs: 1500, extraction } },
      { ...base, id: '4', role: 'tool', turnId: 't', tool: { ...read, status: 'ok', durationMs: 40, stored: { ...stored, handle: undefined, choice: 'drop' } } },
    ] satisfies Message[]);
    expect(rows.map((r) => r.kind)).toEqual(['tool call', 'oversized', 'extraction', 'output choice']);
    expect(rows[1]!.summary).toBe('readfile · ok · 40 ms · stored as h-1 (5.0 MiB, ≈1,310,720 tokens, over the size cap)');
    expect(rows[2]!.summary).toBe('tool_output · ok · 1500 ms · truncate · 2 chunks · 3 model calls · 9,000 in · 120 out · fallback from read-grep: the sub-agent gave no report · why: the document is 38 windows long');
    expect(rows[3]!.summary).toBe('readfile · ok · 40 ms · Drop (5.0 MiB, over the size cap)');
    // Without the call's duration, the extraction's own.
    const { durationMs: _d, ...noDuration } = rows[2]!.message.tool!;
    expect(timelineRows([{ ...rows[2]!.message, tool: noDuration }])[0]!.summary).toContain('9,000 in · 120 out · 1.50 s · fallback');
  });
});
