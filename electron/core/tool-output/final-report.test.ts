import { describe, expect, it } from 'vitest';
import { planChunks } from './chunking';
import { isNotFound, parseFinalReport } from './final-report';

const N = '0123456789abcdef';

describe('parseFinalReport', () => {
  it('reads the wrapper with or without its closing tag', () => {
    expect(parseFinalReport(`<ai-agent-${N}-FINAL format="text"> the answer </ai-agent-${N}-FINAL>`, N)).toBe('the answer');
    expect(parseFinalReport(`preamble\n<ai-agent-${N}-FINAL format="text">\nline 1\nline 2`, N)).toBe('line 1\nline 2');
  });
  it('ignores a leading think block, including one that holds a wrapper', () => {
    expect(parseFinalReport(`<think>maybe <ai-agent-${N}-FINAL format="text">draft</ai-agent-${N}-FINAL></think><ai-agent-${N}-FINAL format="text">final`, N)).toBe('final');
    expect(parseFinalReport(`<think>never closed <ai-agent-${N}-FINAL format="text">x`, N)).toBeUndefined();
  });
  it('a wrapper with another nonce, or none, is no report', () => {
    expect(parseFinalReport(`<ai-agent-ffffffffffffffff-FINAL format="text">x</ai-agent-ffffffffffffffff-FINAL>`, N)).toBeUndefined();
    expect(parseFinalReport('just text', N)).toBeUndefined();
  });
  it('knows a not-found report', () => {
    expect(isNotFound('NO RELEVANT DATA FOUND\nonly numbers')).toBe(true);
    expect(isNotFound('found: NO RELEVANT DATA FOUND')).toBe(false);
  });
});

describe('planChunks', () => {
  it('one chunk when it fits', () => {
    expect(planChunks({ totalBytes: 1000, totalTokens: 250, maxContextTokens: 1000, maxOutputTokens: 100, promptTokens: 100, overlapPercent: 10 }).ranges).toEqual([[0, 1000]]);
  });
  it('balanced chunks with the overlap, covering everything, none tiny', () => {
    const p = planChunks({ totalBytes: 100_000, totalTokens: 25_000, maxContextTokens: 8000, maxOutputTokens: 1000, promptTokens: 1000, overlapPercent: 10 });
    const r = p.ranges;
    expect(r.length).toBe(5);
    expect(r[0]![0]).toBe(0);
    expect(r.at(-1)![1]).toBe(100_000);
    const sizes = r.map(([a, b]) => b - a);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(6000 * 4);
    for (let i = 1; i < r.length; i++) {
      const overlap = r[i - 1]![1] - r[i]![0];
      expect(overlap / sizes[i]!).toBeGreaterThan(0.09);
      expect(overlap / sizes[i]!).toBeLessThan(0.11);
    }
  });
  it('refuses a window that leaves no room for a chunk', () => {
    expect(() => planChunks({ totalBytes: 10, totalTokens: 3, maxContextTokens: 1000, maxOutputTokens: 900, promptTokens: 90, overlapPercent: 10 })).toThrow(/leaves 10 tokens for a chunk/);
  });
});
