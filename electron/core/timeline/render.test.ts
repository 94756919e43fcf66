import { describe, expect, it } from 'vitest';
import type { ToolCard } from '../../../shared/model/conversation';
import type { TimelineRow } from './conversation-store';
import { UNFINISHED_TEXT, renderForModel } from './render';

const row = (r: Partial<TimelineRow> & Pick<TimelineRow, 'role'>): TimelineRow => ({ id: Math.random().toString(), conversationId: 'c', createdAt: 'x', text: '', ...r });
const card = (c: Partial<ToolCard>): ToolCard => ({ invocationId: 'i', bundleId: 'b', slug: 'echo', version: '1', displayName: 'Echo', args: {}, status: 'ok', source: 'model', ...c });

describe('renderForModel', () => {
  it('renders prompts, user tool runs, assistant calls with their latest result; leaves out notices; redacts', () => {
    const rows: TimelineRow[] = [
      row({ role: 'user', text: '@input file:a\nhi', prompt: 'hi\n\n[input] file:a\nSECRET' }),
      row({ role: 'tool', tool: card({ source: 'user', args: { text: 'x' }, value: 'y' }) }),
      row({ role: 'notice', text: 'no model' }),
      row({ role: 'assistant', text: 'calling', toolCalls: [{ callId: 'k1', name: 'echo', argsText: '{}' }, { callId: 'k2', name: 'echo', argsText: '{}' }] }),
      row({ role: 'tool', tool: card({ callId: 'k1', status: 'running' }) }),
      row({ role: 'tool', tool: card({ callId: 'k1', status: 'ok', value: { a: 1 } }) }),
      row({ role: 'tool', tool: card({ callId: 'k2', status: 'awaiting-approval' }) }),
    ];
    const out = renderForModel({ rows, system: 'be brief', redact: (t) => t.replaceAll('SECRET', '[redacted]') });
    expect(out).toEqual([
      { role: 'system', text: 'be brief' },
      { role: 'user', text: 'hi\n\n[input] file:a\n[redacted]\n\n[the user ran the tool echo with {"text":"x"}]\ny' },
      { role: 'assistant', text: 'calling', toolCalls: [{ callId: 'k1', name: 'echo', argsText: '{}' }, { callId: 'k2', name: 'echo', argsText: '{}' }] },
      { role: 'tool', callId: 'k1', name: 'echo', text: '{"a":1}' },
      { role: 'tool', callId: 'k2', name: 'echo', text: UNFINISHED_TEXT, isError: true },
    ]);
  });

  it("matches results to calls within their turn: another turn's call of the same id is not this one's", () => {
    const rows: TimelineRow[] = [
      row({ role: 'user', text: 'one' }),
      row({ role: 'assistant', turnId: 't1', toolCalls: [{ callId: 'k1', name: 'echo', argsText: '{}' }] }),
      row({ role: 'tool', turnId: 't1', tool: card({ callId: 'k1', status: 'ok', value: 'first' }) }),
      row({ role: 'user', text: 'two' }),
      row({ role: 'assistant', turnId: 't2', toolCalls: [{ callId: 'k1', name: 'echo', argsText: '{}' }] }),
      row({ role: 'tool', turnId: 't2', tool: card({ callId: 'k1', status: 'running' }) }),
    ];
    const tools = renderForModel({ rows, system: '', redact: (t) => t }).filter((m) => m.role === 'tool');
    expect(tools).toEqual([
      { role: 'tool', callId: 'k1', name: 'echo', text: 'first' },
      { role: 'tool', callId: 'k1', name: 'echo', text: UNFINISHED_TEXT, isError: true },
    ]);
  });
});

describe('oversized results', () => {
  const base = { invocationId: 'inv-1', bundleId: 'b', slug: 'readfile', version: '1', displayName: 'Read file', args: { path: 'big.log' } };
  const stored = { handle: '0b8f0b1e-1d5a-4c47-9f5e-3f3b1a2c4d5e', bytes: 5000, lines: 10, tokens: 1250, tokensExact: false, reason: 'bytes' as const, choice: 'handle' as const };
  const row = (tool: object, id: string) => ({ id, conversationId: 'c', role: 'tool' as const, createdAt: '2026-01-01T00:00:00.000Z', text: '', tool: { status: 'ok' as const, source: 'user' as const, ...base, ...tool } });

  it('a stored result is told as the exact oversized message, and only a call\'s latest row counts', () => {
    const first = row({ value: 'preview', valueTruncated: true, stored }, 'm1');
    const out = renderForModel({ rows: [first], system: '', redact: (t) => t });
    expect(out[0]!.text).toContain('Tool output is too large (5000 bytes, 10 lines, 1250 tokens).\nCall tool_output(handle = "0b8f0b1e-1d5a-4c47-9f5e-3f3b1a2c4d5e", extract = "what to extract").');
    const inline = row({ value: 'preview', valueTruncated: true, stored: { ...stored, choice: 'inline' } }, 'm2');
    const both = renderForModel({ rows: [first, inline], system: '', redact: (t) => t, storedText: () => 'THE WHOLE TEXT' });
    expect(both).toHaveLength(1);
    expect(both[0]!.text).toContain('THE WHOLE TEXT');
    expect(both[0]!.text).not.toContain('Tool output is too large');
    const gone = renderForModel({ rows: [inline], system: '', redact: (t) => t, storedText: () => undefined });
    expect(gone[0]!.text).toContain('is no longer stored');
    const { handle: _h, ...noHandle } = stored;
    const dropped = renderForModel({ rows: [row({ stored: { ...noHandle, choice: 'drop' } }, 'm3')], system: '', redact: (t) => t });
    expect(dropped[0]!.text).toContain('was dropped by the user\'s setting');
  });
});
