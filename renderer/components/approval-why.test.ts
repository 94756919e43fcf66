import { describe, expect, it } from 'vitest';
import { approvalWhy } from './approval-why';

describe('why a call asks, in words', () => {
  it('names the function or the step a tool asks through', () => {
    expect(approvalWhy({ reason: { kind: 'function', functionId: 'files.write' } })).toEqual({ reason: 'It runs files.write, which asks before it runs wherever it is used.' });
    expect(approvalWhy({ reason: { kind: 'step', step: 'save', tool: 'summarize@1' } }).reason).toBe('Its step save calls summarize@1, which asks before it runs.');
    expect(approvalWhy({ reason: { kind: 'tool' } }).hints).toBeUndefined();
    expect(approvalWhy({ reason: { kind: 'script' } }).reason).toMatch(/^Its script comes from outside this app .* read it before it runs\.$/);
  });

  it('shows an MCP tool’s hints, and says when it gave none', () => {
    expect(approvalWhy({ reason: { kind: 'tool' }, mcpHints: {} })).toMatchObject({ hints: [], noHints: 'No hints given: treated as possibly destructive.' });
    const given = approvalWhy({ reason: { kind: 'tool' }, mcpHints: { destructiveHint: true, idempotentHint: false, openWorldHint: true } });
    expect(given.noHints).toBeUndefined();
    expect(given.hints).toEqual([
      { key: 'destructiveHint', text: 'destructive', danger: true },
      { key: 'idempotentHint', text: 'not idempotent', danger: false },
      { key: 'openWorldHint', text: 'reaches the outside world', danger: false },
    ]);
    // Only idempotent/open-world hints say nothing of its effects: still treated as possibly destructive.
    expect(approvalWhy({ reason: { kind: 'tool' }, mcpHints: { idempotentHint: true } }).noHints).toBeDefined();
  });
});
