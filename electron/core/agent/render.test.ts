import { describe, expect, it } from 'vitest';
import type { ToolCard } from '../../../shared/model/conversation';
import type { TimelineRow } from '../chat/conversation-store';
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
