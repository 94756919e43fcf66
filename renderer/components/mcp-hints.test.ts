import { describe, expect, it } from 'vitest';
import { hintBadges } from './mcp-hints';

describe('an MCP tool’s hints as badges', () => {
  it('shows each hint the server gave, in words, the destructive one as a danger', () => {
    expect(hintBadges({ serverTool: 'rm', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } })).toEqual([
      { key: 'readOnlyHint', text: 'changes things', title: 'The MCP server says: changes things', danger: false },
      { key: 'destructiveHint', text: 'destructive', title: 'The MCP server says: destructive', danger: true },
      { key: 'idempotentHint', text: 'idempotent', title: 'The MCP server says: idempotent', danger: false },
      { key: 'openWorldHint', text: 'closed world', title: 'The MCP server says: closed world', danger: false },
    ]);
  });

  it('leaves out what MCP ignores for a read-only tool, and shows nothing without hints', () => {
    expect(hintBadges({ serverTool: 'ls', annotations: { readOnlyHint: true, destructiveHint: true, idempotentHint: false, openWorldHint: true } }).map((b) => b.text)).toEqual([
      'read-only',
      'reaches the outside world',
    ]);
    expect(hintBadges({ serverTool: 'x' })).toEqual([]);
    expect(hintBadges({ serverTool: 'x', annotations: {} })).toEqual([]);
    expect(hintBadges(undefined)).toEqual([]);
  });
});
