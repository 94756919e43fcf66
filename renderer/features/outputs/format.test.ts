import { describe, expect, it } from 'vitest';
import { availableChoices, extractionFigures, formatBytes, formatShare, formatTokens, shareOf } from './format';

describe('oversized output figures', () => {
  it('writes sizes in bytes, KiB, MiB and GiB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1,023 B');
    expect(formatBytes(256 * 1024)).toBe('256.0 KiB');
    expect(formatBytes(5 * 1024 * 1024 + 300 * 1024)).toBe('5.3 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('marks an estimated token count with ≈', () => {
    expect(formatTokens(1_234_567, false)).toBe('≈1,234,567');
    expect(formatTokens(12, true)).toBe('12');
  });

  it('writes a share of the window as a percentage, whole from 10 %', () => {
    expect(formatShare(0.0004)).toBe('<0.1%');
    expect(formatShare(0.0734)).toBe('7.3%');
    expect(formatShare(0.5)).toBe('50%');
    expect(formatShare(38.4)).toBe('3,840%');
    expect(formatShare(0)).toBe('0%');
  });

  it('takes the stored share, else tokens over the context window', () => {
    expect(shareOf({ share: 2, tokens: 10, contextTokens: 100 })).toBe(2);
    expect(shareOf({ tokens: 50, contextTokens: 100 })).toBe(0.5);
    expect(shareOf({ tokens: 50 })).toBeUndefined();
  });

  it('offers keep and inline only while the output is kept', () => {
    expect(availableChoices({ handle: 'h', choice: 'handle' }, true)).toEqual(['handle', 'inline', 'buffer', 'drop']);
    // Dropped: nothing left to keep, inline or route.
    expect(availableChoices({ choice: 'drop' }, false)).toEqual(['drop']);
    // Routed to a buffer while the store still holds it: all four.
    expect(availableChoices({ handle: 'h', choice: 'buffer' }, true)).toEqual(['handle', 'inline', 'buffer', 'drop']);
    // Its session ended: the handle is gone.
    expect(availableChoices({ handle: 'h', choice: 'handle' }, false)).toEqual(['handle', 'drop']);
  });

  it('sums up an extraction in one line', () => {
    expect(extractionFigures({ requested: 'auto', used: 'read-grep', modelCalls: 2, tokensIn: 1200, tokensOut: 40 })).toBe('read-grep · 2 model calls · 1,200 in · 40 out');
    expect(extractionFigures({ requested: 'full-chunked', used: 'truncate', chunks: 1, modelCalls: 1, tokensIn: 5, tokensOut: 0 })).toBe('truncate (asked full-chunked) · 1 chunk · 1 model call · 5 in · 0 out');
  });
});
