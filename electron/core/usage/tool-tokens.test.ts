import { describe, expect, it } from 'vitest';
import type { ToolCard } from '../../../shared/model/conversation';
import { estimateCounter } from '../llm/tokens';
import type { TimelineRow } from '../timeline/conversation-store';
import { toolTokenUse } from './tool-tokens';

let n = 0;
function row(tool: Partial<ToolCard> & Pick<ToolCard, 'slug' | 'status'>, turnId?: string): TimelineRow {
  return {
    id: `m${++n}`,
    conversationId: 'c',
    role: 'tool',
    createdAt: '2026-11-24T00:00:00.000Z',
    text: '',
    ...(turnId ? { turnId } : {}),
    tool: { invocationId: `i${n}`, bundleId: 'b', version: '1', displayName: tool.slug, args: {}, source: 'user', ...tool },
  } as TimelineRow;
}

describe('toolTokenUse', () => {
  it("counts each call once, at its latest row, on the text the model is given; running calls and other rows are left out", () => {
    const rows: TimelineRow[] = [
      { id: 'u', conversationId: 'c', role: 'user', createdAt: '', text: 'hello there' } as TimelineRow,
      // A palette run: {"echo":"abcdefg"} is 18 bytes -> 5 tokens at 4 bytes a token.
      row({ slug: 'echo', status: 'ok', value: { echo: 'abcdefg' } }),
      // A model's call: running, then its result (the latest row counts): 'x' x 40 as a string -> 10 tokens.
      row({ slug: 'grep', status: 'running', source: 'model', callId: 'c1' }, 't1'),
      row({ slug: 'grep', status: 'ok', source: 'model', callId: 'c1', value: 'x'.repeat(40) }, 't1'),
      // The same call id in another turn is another call: an error, its message -> 'the service is down' 19 bytes -> 5 tokens.
      row({ slug: 'grep', status: 'error', source: 'model', callId: 'c1', error: { code: 'UNAVAILABLE', message: 'the service is down' } }, 't2'),
      // Still waiting for approval: not counted.
      row({ slug: 'writefile', status: 'awaiting-approval', source: 'model', callId: 'c2' }, 't2'),
      // A routed result counts its manifest: 8 bytes -> 2 tokens.
      row({ slug: 'echo', status: 'ok', manifest: { destination: 'variable:x', writeMode: 'replace', text: '12345678' } as ToolCard['manifest'] }),
    ];
    const use = toolTokenUse(rows, estimateCounter);
    expect(use).toEqual({
      tools: [
        { bundleId: 'b', slug: 'grep', displayName: 'grep', calls: 2, errors: 1, tokens: 15 },
        { bundleId: 'b', slug: 'echo', displayName: 'echo', calls: 2, errors: 0, tokens: 7 },
      ],
      totalTokens: 22,
      exact: false,
    });
  });
});
