import { describe, expect, it } from 'vitest';
import { MCP_CLIENT_NAME_MAX } from '../../../shared/model/mcp-serve';
import { McpApprovalQueue } from './approval-queue';
import { cleanClientText, clientLabel } from './client-name';

/** Characters none of which may reach the approval prompt (variation selectors checked by code point). */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\u2028\u2029]/u;
const hasVariationSelector = (t: string) => Array.from(t).some((c) => c.codePointAt(0)! >= 0xfe00 && c.codePointAt(0)! <= 0xfe0f);

describe('the client name shown in the approval prompt', () => {
  it('keeps an ordinary name and version as they are', () => {
    expect(clientLabel('Claude Desktop', '1.0.0')).toBe('Claude Desktop 1.0.0');
    expect(clientLabel('Ünïcode Çlient 日本', '2')).toBe('Ünïcode Çlient 日本 2');
  });

  it('removes bidi overrides and isolates, zero-width and tag characters, and line breaks', () => {
    const name = `\u202Eevil\u202C \u2066x\u2069\u200B\u200C\u200D\uFEFF\u00AD\u061C\u{E0041}\u{E007F}\nToolsmith\r\n\u2028has\u2029verified\t\u0085\u0007 this\uFE0F`;
    const shown = clientLabel(name, '1');
    expect(shown).toBe('evil x Toolsmith has verified this 1');
    expect(shown).not.toMatch(FORBIDDEN);
    expect(hasVariationSelector(shown)).toBe(false);
  });

  it('cuts a 20 kB name to the limit, ending in an ellipsis', () => {
    const shown = clientLabel(`${'x'.repeat(10_000)}\n${'y'.repeat(10_000)}`, '1.0');
    expect(Array.from(shown)).toHaveLength(MCP_CLIENT_NAME_MAX);
    expect(shown.endsWith('…')).toBe(true);
    // Surrogate pairs are never split.
    const emoji = cleanClientText('😀'.repeat(200));
    expect(Array.from(emoji)).toHaveLength(MCP_CLIENT_NAME_MAX);
    expect(emoji).not.toMatch(/\p{Cs}/u);
  });

  it('keeps at most two combining marks on a letter', () => {
    expect(cleanClientText(`a${'\u0301'.repeat(50)}b`)).toBe('a\u0301\u0301b'.normalize('NFC'));
  });

  it('answers empty for a name of nothing but invisible characters, or none at all', () => {
    expect(clientLabel('\u202E\u200B\n\t', '')).toBe('');
    expect(clientLabel(undefined, undefined)).toBe('');
  });

  it('never lets the version stand in for a name, or extend it', () => {
    // A name of nothing but invisible characters: no claim, whatever the version says.
    expect(clientLabel('\u202E\u200B', 'Claude Desktop (verified)')).toBe('');
    expect(clientLabel('', 'Toolsmith (this window)')).toBe('');
    // A version that does not look like one is left out; one that does is added.
    expect(clientLabel('Claude', 'Desktop (verified)')).toBe('Claude');
    expect(clientLabel('\u202Etxt.exe Trusted Client', '1\u202E9')).toBe('txt.exe Trusted Client 19');
    expect(clientLabel('Cursor', 'v1.2.3-beta+4')).toBe('Cursor v1.2.3-beta+4');
  });
});

describe('the approval queue', () => {
  it('cleans the client of every request it holds, from whichever process it came', async () => {
    const queue = new McpApprovalQueue({ now: () => new Date('2026-01-01T00:00:00Z') });
    const answer = queue.ask({ toolId: 't', toolName: 'b/t', displayName: 'T', args: {}, client: `\u202Eok\n${'z'.repeat(20_000)}` });
    const [shown] = queue.list();
    expect(Array.from(shown!.client)).toHaveLength(MCP_CLIENT_NAME_MAX);
    expect(shown!.client).not.toMatch(FORBIDDEN);
    expect(shown!.client.startsWith('ok z')).toBe(true);
    queue.respond(shown!.id, 'deny');
    expect(await answer).toEqual({ decision: 'deny' });
  });
});
